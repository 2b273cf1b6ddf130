import Foundation

/// Thrown by ``withDeadline(seconds:_:)`` when the operation did not finish in time.
package struct DeadlineExceeded: Error {
    package init() {}
}

/// `operation`'s result, or ``DeadlineExceeded`` once `seconds` have passed (the operation is
/// then cancelled): a transport that ignores its own timeout still cannot hold the caller
/// forever.
package func withDeadline<Value: Sendable>(
    seconds: TimeInterval,
    _ operation: @escaping @Sendable () async throws -> Value
) async throws -> Value {
    try await withThrowingTaskGroup(of: Value.self) { group in
        group.addTask(operation: operation)
        group.addTask {
            try await Task.sleep(nanoseconds: Moment.nanoseconds(seconds))
            throw DeadlineExceeded()
        }
        defer { group.cancelAll() }
        guard let first = try await group.next() else { throw DeadlineExceeded() }
        return first
    }
}
