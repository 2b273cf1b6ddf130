import Foundation
import HTTPCore

/// Suspends callers until a condition over some state holds, or a deadline passes.
///
/// State changes go through ``update(_:)``, which resumes every waiter whose condition now
/// holds. Waiting never polls: a waiter is resumed by an update or by its deadline.
package final class AsyncCondition<State: Sendable>: Sendable {
    private struct Waiter {
        let id: UInt64
        let isSatisfied: @Sendable (State) -> Bool
        let continuation: CheckedContinuation<State, any Error>
    }

    private struct Storage {
        var state: State
        var waiters: [Waiter] = []
        var nextID: UInt64 = 0
    }

    private let storage: Locked<Storage>

    package init(_ state: State) {
        storage = Locked(Storage(state: state))
    }

    /// The current state.
    package var state: State { storage.withLock { $0.state } }

    /// Changes the state and resumes the waiters it satisfies.
    package func update<Result>(_ body: (inout State) -> Result) -> Result {
        let (result, ready) = storage.withLock { storage -> (Result, [(CheckedContinuation<State, any Error>, State)]) in
            let result = body(&storage.state)
            var ready: [(CheckedContinuation<State, any Error>, State)] = []
            storage.waiters.removeAll { waiter in
                guard waiter.isSatisfied(storage.state) else { return false }
                ready.append((waiter.continuation, storage.state))
                return true
            }
            return (result, ready)
        }
        for (continuation, state) in ready { continuation.resume(returning: state) }
        return result
    }

    /// Returns the state once `isSatisfied` holds; throws `error(state)` after `timeout`, or
    /// `CancellationError` when the waiting task is cancelled.
    package func wait(
        timeout: TimeInterval,
        until isSatisfied: @escaping @Sendable (State) -> Bool,
        error: @escaping @Sendable (State) -> any Error
    ) async throws -> State {
        let id = storage.withLock { storage -> UInt64 in
            storage.nextID += 1
            return storage.nextID
        }
        let timer = Task { [weak self] in
            try? await Task.sleep(nanoseconds: UInt64(max(0, timeout) * 1_000_000_000))
            guard !Task.isCancelled else { return }
            self?.expire(id, error: error)
        }
        defer { timer.cancel() }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let satisfied = storage.withLock { storage -> State? in
                    if isSatisfied(storage.state) { return storage.state }
                    storage.waiters.append(Waiter(id: id, isSatisfied: isSatisfied, continuation: continuation))
                    return nil
                }
                if let satisfied {
                    continuation.resume(returning: satisfied)
                } else if Task.isCancelled {
                    // The cancellation handler may have run before the waiter was registered.
                    expire(id) { _ in CancellationError() }
                }
            }
        } onCancel: { [weak self] in
            self?.expire(id) { _ in CancellationError() }
        }
    }

    private func expire(_ id: UInt64, error: @Sendable (State) -> any Error) {
        let expired = storage.withLock { storage -> (Waiter, State)? in
            guard let index = storage.waiters.firstIndex(where: { $0.id == id }) else { return nil }
            return (storage.waiters.remove(at: index), storage.state)
        }
        if let (waiter, state) = expired { waiter.continuation.resume(throwing: error(state)) }
    }
}
