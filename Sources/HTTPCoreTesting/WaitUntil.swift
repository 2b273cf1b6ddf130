import Foundation

/// Suspends until `condition` holds, checking it every millisecond, for state that has no
/// notification of its own (a statistics counter reaching a value); throws
/// ``ConditionTimeout`` after `timeout` seconds, which only bounds a hang.
public func waitUntil(
    timeout: TimeInterval = 60,
    _ description: @autoclosure () -> String,
    _ condition: () -> Bool
) async throws {
    let deadline = Date().addingTimeInterval(timeout)
    while !condition() {
        guard Date() < deadline else { throw ConditionTimeout(description: "not within \(timeout) s: \(description())") }
        try await Task.sleep(nanoseconds: 1_000_000)
    }
}

/// A condition awaited by ``waitUntil(timeout:_:_:)`` did not hold in time.
public struct ConditionTimeout: Error, CustomStringConvertible {
    /// What was awaited, with what was seen.
    public let description: String
}
