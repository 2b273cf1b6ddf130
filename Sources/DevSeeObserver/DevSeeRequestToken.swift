/// Identifies one in-flight request between ``DevSeeLogger/beginRequest(_:at:)`` and
/// ``DevSeeLogger/logCompleted(token:request:response:responseBody:requestBody:error:endedAt:)``.
///
/// Tokens are unique within the process, so many identical requests in flight at once are
/// told apart.
public struct DevSeeRequestToken: Sendable, Hashable, CustomStringConvertible {
    /// The token's number.
    package let rawValue: UInt64

    init(rawValue: UInt64) {
        self.rawValue = rawValue
    }

    /// The token as a string, also sent as the log's `requestId`.
    public var description: String { "devsee-\(rawValue)" }
}
