import Foundation

/// One ``withDeadline(seconds:_:)`` call: the operation's task, the deadline timer and the
/// caller's cancellation race to resume the caller's continuation, which the first of them
/// does and the others then find decided.
///
/// Deciding the race cancels the operation's task and the timer, so no timer outlives its
/// call (``DeadlineTimers/outstanding`` counts them).
final class DeadlineRace<Value: Sendable>: Sendable {
    typealias Continuation = UnsafeContinuation<Value, any Error>

    /// Where the race stands; each input returns what the caller must do outside the lock.
    enum State {
        /// The caller has not handed its continuation over yet.
        case starting
        /// The caller was cancelled before it handed its continuation over.
        case cancelledBeforeStart
        /// The operation and the timer run (each `nil` until it is armed).
        case racing(Continuation, operation: Task<Void, Never>?, timer: (any DispatchSourceTimer)?)
        /// The continuation was resumed.
        case decided

        /// Takes the caller's continuation; `false` when the caller was already cancelled.
        mutating func begin(_ continuation: Continuation) -> Bool {
            guard case .starting = self else { return false }
            self = .racing(continuation, operation: nil, timer: nil)
            return true
        }

        /// Keeps the operation's task and the timer; `false` when the race was decided
        /// meanwhile, and the caller must cancel both.
        mutating func arm(operation: Task<Void, Never>, timer: any DispatchSourceTimer) -> Bool {
            guard case .racing(let continuation, nil, nil) = self else { return false }
            self = .racing(continuation, operation: operation, timer: timer)
            return true
        }

        /// Ends the race: what to resume and to cancel, or `nil` when it was already decided.
        mutating func decide() -> (Continuation, operation: Task<Void, Never>?, timer: (any DispatchSourceTimer)?)? {
            switch self {
            case .starting:
                self = .cancelledBeforeStart
                return nil
            case .racing(let continuation, let operation, let timer):
                self = .decided
                return (continuation, operation, timer)
            case .cancelledBeforeStart, .decided:
                return nil
            }
        }
    }

    // Guards the race's state; the continuation, task and timer are only used outside it.
    private let state = Locked(State.starting)

    /// Takes the caller's continuation and starts the operation and the deadline timer; from
    /// the caller's task, so that the operation's task inherits its priority and task-locals.
    func start(_ continuation: Continuation, seconds: TimeInterval, operation: @escaping @Sendable () async throws -> Value) {
        guard state.withLock({ $0.begin(continuation) }) else {
            continuation.resume(throwing: CancellationError())
            return
        }
        let timer = DispatchSource.makeTimerSource(queue: .global())
        timer.setEventHandler { self.decide(.failure(DeadlineExceeded())) }
        timer.schedule(deadline: Moment.now().deadline(after: seconds))
        DeadlineTimers.armed()
        let task = Task {
            do {
                self.decide(.success(try await operation()))
            } catch {
                self.decide(.failure(error))
            }
        }
        let armed = state.withLock { $0.arm(operation: task, timer: timer) }
        // Activated only once it is kept, so that even a timer that fires at once finds it.
        timer.activate()
        if !armed {
            task.cancel()
            Self.disarm(timer)
        }
    }

    /// Resumes the caller with `result` unless the race was already decided, and cancels
    /// the operation and the timer.
    func decide(_ result: Result<Value, any Error>) {
        guard let (continuation, operation, timer) = state.withLock({ $0.decide() }) else { return }
        continuation.resume(with: result)
        operation?.cancel()
        if let timer { Self.disarm(timer) }
    }

    /// Cancels `timer`, which releases its handler and with it this race.
    private static func disarm(_ timer: any DispatchSourceTimer) {
        timer.cancel()
        DeadlineTimers.disarmed()
    }
}
