import Foundation

extension HTTPResponse {
    /// Seconds the server asks the client to wait before retrying, from `Retry-After`; `nil`
    /// when the header is missing or unreadable.
    public func retryAfter(relativeTo now: Date = Date()) -> TimeInterval? {
        headers["Retry-After"].flatMap { Self.retryAfterSeconds(from: $0, relativeTo: now) }
    }

    /// Seconds to wait from a `Retry-After` value (RFC 9110, 10.2.3): delay-seconds (digits
    /// only; too many to represent give `.infinity`), or an HTTP-date in any of the three
    /// forms recipients must accept (IMF-fixdate, RFC 850, asctime), where a date in the past
    /// gives 0. Anything else (signs, decimals, words) gives `nil`.
    public static func retryAfterSeconds(from value: String, relativeTo now: Date = Date()) -> TimeInterval? {
        let trimmed = value.trimmingCharacters(in: .whitespaces)
        if !trimmed.isEmpty, trimmed.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) {
            return TimeInterval(trimmed) ?? .infinity
        }
        for format in ["EEE, dd MMM yyyy HH:mm:ss zzz", "EEEE, dd-MMM-yy HH:mm:ss zzz", "EEE MMM d HH:mm:ss yyyy"] {
            let formatter = DateFormatter()
            formatter.locale = Locale(identifier: "en_US_POSIX")
            formatter.timeZone = TimeZone(identifier: "GMT")
            formatter.dateFormat = format
            if let date = formatter.date(from: trimmed) { return max(0, date.timeIntervalSince(now)) }
        }
        return nil
    }
}
