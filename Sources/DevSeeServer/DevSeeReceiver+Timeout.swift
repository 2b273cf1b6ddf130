import Foundation

extension DevSeeReceiver {
    /// The error ``DevSeeReceiver/waitForLogs(count:timeout:)`` throws when its deadline passes.
    public struct Timeout: Error, Sendable, Hashable, CustomStringConvertible {
        /// How many stored logs the caller waited for.
        public var expected: Int
        /// How many logs had been stored when the deadline passed.
        public var arrived: Int
        /// The seconds waited.
        public var timeout: TimeInterval

        /// Creates a timeout record.
        public init(expected: Int, arrived: Int, timeout: TimeInterval) {
            self.expected = expected
            self.arrived = arrived
            self.timeout = timeout
        }

        /// What was awaited and how many logs arrived.
        public var description: String {
            "DevSeeReceiver: waited \(timeout) s for \(expected) stored logs, but only \(arrived) arrived"
        }
    }
}
