import Foundation

/// One ``withDeadline(seconds:_:)`` call: the operation's task, the deadline and the caller's
/// cancellation race to resume the caller's continuation, which the first of them does and
/// the others then find decided.
///
/// Deciding the race cancels the operation's task and removes the deadline from
/// ``DeadlineTimer``, so no deadline outlives its call.
final class DeadlineRace<Value: Sendable>: DeadlineExpiring {
    typealias Continuation = UnsafeContinuation<Value, any Error>

    /// Where the race stands; each input returns what the caller must do outside the lock.
    enum State {
        /// The caller has not handed its continuation over yet.
        case starting
        /// The caller was cancelled before it handed its continuation over.
        case cancelledBeforeStart
        /// The operation runs against its deadline (both `nil` until armed).
        case racing(Continuation, operation: Task<Void, Never>?, deadline: UInt64?)
        /// The continuation was resumed.
        case decided

        /// Takes the caller's continuation; `false` when the caller was already cancelled.
        mutating func begin(_ continuation: Continuation) -> Bool {
            guard case .starting = self else { return false }
            self = .racing(continuation, operation: nil, deadline: nil)
            return true
        }

        /// Keeps the operation's task and the deadline's identifier; `false` when the race
        /// was decided meanwhile, and the caller must cancel both.
        mutating func arm(operation: Task<Void, Never>, deadline: UInt64) -> Bool {
            guard case .racing(let continuation, nil, nil) = self else { return false }
            self = .racing(continuation, operation: operation, deadline: deadline)
            return true
        }

        /// Ends the race: what to resume and to cancel, or `nil` when it was already decided.
        mutating func decide() -> (Continuation, operation: Task<Void, Never>?, deadline: UInt64?)? {
            switch self {
            case .starting:
                self = .cancelledBeforeStart
                return nil
            case .racing(let continuation, let operation, let deadline):
                self = .decided
                return (continuation, operation, deadline)
            case .cancelledBeforeStart, .decided:
                return nil
            }
        }
    }

    // Guards the race's state; the continuation and the task are only used outside it.
    private let state = Locked(State.starting)

    /// Takes the caller's continuation and starts the operation against its deadline; from
    /// the caller's task, so that the operation's task inherits its priority and task-locals.
    func start(_ continuation: Continuation, seconds: TimeInterval, operation: @escaping @Sendable () async throws -> Value) {
        guard state.withLock({ $0.begin(continuation) }) else {
            continuation.resume(throwing: CancellationError())
            return
        }
        let deadline = DeadlineTimer.shared.add(self, at: Moment.now().deadline(after: seconds))
        let task = Task {
            do {
                self.decide(.success(try await operation()))
            } catch {
                self.decide(.failure(error))
            }
        }
        if !state.withLock({ $0.arm(operation: task, deadline: deadline) }) {
            task.cancel()
            DeadlineTimer.shared.remove(deadline)
        }
    }

    /// Cancels the operation and the deadline, then resumes the caller with `result`, unless
    /// the race was already decided.
    ///
    /// Cancelling first means a caller that resumes from ``DeadlineExceeded`` finds the
    /// operation cancelled already.
    func decide(_ result: Result<Value, any Error>) {
        guard let (continuation, operation, deadline) = state.withLock({ $0.decide() }) else { return }
        operation?.cancel()
        if let deadline { DeadlineTimer.shared.remove(deadline) }
        continuation.resume(with: result)
    }

    /// The deadline passed: the caller gets ``DeadlineExceeded``.
    func expire() {
        decide(.failure(DeadlineExceeded()))
    }
}
