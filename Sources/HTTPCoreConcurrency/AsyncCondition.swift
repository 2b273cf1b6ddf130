import Foundation

/// State behind a lock that callers can wait on: until a condition over it holds, a
/// deadline passes, or their task is cancelled.
///
/// State changes go through ``update(_:)``, which resumes every waiter whose condition now
/// holds. Waiting never polls: a waiter is resumed by an update, its deadline or
/// cancellation. The delivery queues of observers and of dev-see logs, and the test
/// helpers, all wait through it.
///
/// Its reads and updates are inlinable, as ``Locked``'s are, so that they are specialized
/// in the targets that use them.
@usableFromInline
package final class AsyncCondition<State: Sendable>: Sendable {
    @usableFromInline
    struct Waiter {
        @usableFromInline let id: UInt64
        @usableFromInline let isSatisfied: @Sendable (State) -> Bool
        @usableFromInline let continuation: CheckedContinuation<State, any Error>

        @usableFromInline
        init(id: UInt64, isSatisfied: @escaping @Sendable (State) -> Bool, continuation: CheckedContinuation<State, any Error>) {
            self.id = id
            self.isSatisfied = isSatisfied
            self.continuation = continuation
        }
    }

    @usableFromInline
    struct Storage {
        @usableFromInline var state: State
        @usableFromInline var waiters: [Waiter] = []
        @usableFromInline var nextID: UInt64 = 0

        @usableFromInline
        init(state: State) {
            self.state = state
        }
    }

    @usableFromInline let storage: Locked<Storage>

    /// Starts from `state`, with nobody waiting.
    @inlinable
    package init(_ state: State) {
        storage = Locked(Storage(state: state))
    }

    /// The current state.
    @inlinable
    package var state: State { storage.withLock { $0.state } }

    /// Reads part of the state under the lock, without copying the rest.
    @inlinable
    package func read<Result>(_ body: (State) -> Result) -> Result {
        storage.withLock { body($0.state) }
    }

    /// Changes the state and resumes the waiters it satisfies.
    @inlinable
    package func update<Result>(_ body: (inout State) -> Result) -> Result {
        var ready: [CheckedContinuation<State, any Error>] = []
        var snapshot: State?
        let result = storage.withLock { storage -> Result in
            let result = body(&storage.state)
            // Most updates happen with nobody waiting: skip the scan.
            guard !storage.waiters.isEmpty else { return result }
            let state = storage.state
            storage.waiters.removeAll { waiter in
                guard waiter.isSatisfied(state) else { return false }
                ready.append(waiter.continuation)
                return true
            }
            if !ready.isEmpty { snapshot = state }
            return result
        }
        if let snapshot {
            for continuation in ready { continuation.resume(returning: snapshot) }
        }
        return result
    }

    /// Returns the state once `isSatisfied` holds; throws `error(state)` after `timeout` (never,
    /// when `timeout` is `nil`), or `CancellationError` when the waiting task is cancelled.
    package func wait(
        timeout: TimeInterval? = nil,
        until isSatisfied: @escaping @Sendable (State) -> Bool,
        error: @escaping @Sendable (State) -> any Error = { _ in CancellationError() }
    ) async throws -> State {
        let id = storage.withLock { storage -> UInt64 in
            storage.nextID += 1
            return storage.nextID
        }
        let timer = timeout.map { timeout in
            Task { [weak self] in
                try? await Task.sleep(nanoseconds: UInt64(max(0, timeout) * 1_000_000_000))
                guard !Task.isCancelled else { return }
                self?.expire(id, error: error)
            }
        }
        defer { timer?.cancel() }
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
