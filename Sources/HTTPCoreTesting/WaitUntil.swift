import Foundation

/// Suspends until `condition` holds, checking it every millisecond, for state that has no
/// notification of its own (a statistics counter reaching a value).
///
/// - Parameters:
///   - timeout: The longest wait, in seconds; it only bounds a hang.
///   - description: What is awaited, for the error.
///   - condition: Read on the caller's task until it returns `true`.
/// - Throws: An error naming `description`, after `timeout` seconds.
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
package struct ConditionTimeout: Error, CustomStringConvertible {
    /// What was awaited, with what was seen.
    package let description: String
}
