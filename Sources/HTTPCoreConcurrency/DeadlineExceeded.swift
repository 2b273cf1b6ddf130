import Foundation

/// Thrown by ``withDeadline(seconds:_:)`` when the operation did not finish in time.
package struct DeadlineExceeded: Error {
    package init() {}
}

/// `operation`'s result, or ``DeadlineExceeded`` once `seconds` have passed.
///
/// At the deadline the operation is cancelled and the call throws at once, even when the
/// operation ignores cancellation (its result is then discarded): a transport that ignores its
/// own timeout cannot hold the caller past the deadline.
///
/// The operation runs in an unstructured task, so it sees the caller's priority and
/// task-local values. Cancelling the calling task cancels the operation and throws
/// `CancellationError` at once, as the task group this replaced did (its sleeping child threw
/// it); a caller cancelled before the call does not start the operation. The deadline is an entry in ``DeadlineTimer``, the one Dispatch timer of the process,
/// removed as soon as the race is decided: no sleeping task and no timer per call (see
/// ``DeadlineRace``).
package func withDeadline<Value: Sendable>(
    seconds: TimeInterval,
    _ operation: @escaping @Sendable () async throws -> Value
) async throws -> Value {
    let race = DeadlineRace<Value>()
    return try await withTaskCancellationHandler {
        try await withUnsafeThrowingContinuation { continuation in
            race.start(continuation, seconds: seconds, operation: operation)
        }
    } onCancel: {
        race.decide(.failure(CancellationError()))
    }
}
