import Foundation

extension HTTPResponse.Head {
    /// Seconds the server asks the client to wait before retrying, from `Retry-After`: its
    /// delay-seconds, or the time until its HTTP-date (0 for a date in the past).
    ///
    /// - Parameter now: The time an HTTP-date is counted from; the current time by default.
    /// - Returns: The seconds to wait (`.infinity` for more delay-seconds than a number holds),
    ///   or `nil` when the header is missing or unreadable.
    public func retryAfter(relativeTo now: Date = Date()) -> TimeInterval? {
        headers["Retry-After"].flatMap { HTTPResponse.retryAfterSeconds(from: $0, relativeTo: now) }
    }
}

extension HTTPResponse {
    /// Seconds the server asks the client to wait before retrying: its head's
    /// ``Head/retryAfter(relativeTo:)``.
    ///
    /// - Parameter now: The time an HTTP-date is counted from; the current time by default.
    /// - Returns: The seconds to wait (`.infinity` for more delay-seconds than a number holds),
    ///   or `nil` when the header is missing or unreadable.
    public func retryAfter(relativeTo now: Date = Date()) -> TimeInterval? {
        head.retryAfter(relativeTo: now)
    }

    /// Seconds to wait from a `Retry-After` value (RFC 9110, 10.2.3): delay-seconds (digits
    /// only; too many to represent give `.infinity`), or an HTTP-date in any of the three
    /// forms recipients must accept (IMF-fixdate, RFC 850, asctime), where a date in the past
    /// gives 0. Anything else (signs, decimals, words) gives `nil`.
    package static func retryAfterSeconds(from value: String, relativeTo now: Date = Date()) -> TimeInterval? {
        let trimmed = value.trimmingCharacters(in: .whitespaces)
        if !trimmed.isEmpty, trimmed.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) {
            return TimeInterval(trimmed) ?? .infinity
        }
        return HTTPDate.parse(trimmed).map { max(0, $0.timeIntervalSince(now)) }
    }
}
