import Foundation

extension DevSeeReceiver {
    /// A `POST /api/logs` the receiver did not store: what it answered, why, and what was sent.
    ///
    /// Scripted answers count as rejections too, since their logs are not stored; a scripted
    /// connection reset is recorded with status 0.
    public struct Rejection: Sendable, Hashable {
        /// The status code answered, or 0 when the connection was reset instead.
        public var status: Int
        /// Why, for example `Validation failed: Field "statusCode" must be between 100 and 599`.
        public var reason: String
        /// The request body exactly as received.
        public var body: Data

        /// Creates a rejection record; the receiver makes these, tests may build them to compare.
        public init(status: Int, reason: String, body: Data) {
            self.status = status
            self.reason = reason
            self.body = body
        }
    }
}
