/// Whether a session of ``URLSessionClient/makeDefaultSession()`` may still create tasks: a
/// pure state machine, kept by ``SessionDelegate`` under its lock.
///
/// FoundationNetworking traps (`Session invalidated`) when a task is created on a session
/// after `finishTasksAndInvalidate()` or `invalidateAndCancel()`, and it marks the session
/// invalid on its own queue, some time after the call returns, while the delegate hears of it
/// only once the session's tasks have finished. So the package's session records the request
/// here before passing it on, and the transport asks here before each task it creates. A
/// request that arrives while a task is being created is passed on once that creation is
/// done, so no creation can run into the trap.
struct SessionInvalidation: Sendable {
    /// An invalidation asked of the session, to pass on to URLSession.
    enum Request: Sendable, Equatable {
        /// `finishTasksAndInvalidate()`: running tasks finish.
        case finishTasks
        /// `invalidateAndCancel()`: running tasks are cancelled.
        case cancelTasks
    }

    private enum State {
        /// New tasks may be created; `creating` are being created now.
        case open(creating: Int)
        /// Invalidation was asked while `creating` tasks were being created: `deferred` is
        /// passed on once the last of them exists.
        case invalidating(creating: Int, deferred: Request)
        /// Invalidation was passed on to URLSession, or the delegate was told of it.
        case invalidated
    }

    private var state = State.open(creating: 0)

    /// Whether the session was asked to invalidate, or became invalid: no task may be created.
    var isInvalidated: Bool {
        if case .open = state { return false }
        return true
    }

    /// A task is about to be created: `true` when it may be, `false` when the session was
    /// invalidated. Each `true` is followed by one ``endCreating()``.
    mutating func beginCreating() -> Bool {
        guard case .open(let creating) = state else { return false }
        state = .open(creating: creating + 1)
        return true
    }

    /// A task that ``beginCreating()`` allowed now exists: the invalidation to pass on to
    /// URLSession now, if one waited for it.
    mutating func endCreating() -> Request? {
        switch state {
        case .open(let creating):
            state = .open(creating: max(0, creating - 1))
            return nil
        case .invalidating(let creating, let deferred):
            guard creating <= 1 else {
                state = .invalidating(creating: creating - 1, deferred: deferred)
                return nil
            }
            state = .invalidated
            return deferred
        case .invalidated:
            return nil
        }
    }

    /// The session was asked to invalidate: the request to pass on to URLSession now, or
    /// `nil` when it waits for the tasks being created.
    mutating func requestInvalidation(_ request: Request) -> Request? {
        switch state {
        case .open(let creating) where creating > 0:
            state = .invalidating(creating: creating, deferred: request)
            return nil
        case .open, .invalidated:
            // Passed on again when invalidated: URLSession decides what a second call does.
            state = .invalidated
            return request
        case .invalidating(let creating, let deferred):
            // A cancel asked after a finish wins: it is the stronger request.
            state = .invalidating(creating: creating, deferred: deferred == .cancelTasks ? deferred : request)
            return nil
        }
    }

    /// The delegate was told that the session became invalid, however that happened.
    mutating func sessionBecameInvalid() {
        // URLSession marked itself invalid before telling the delegate: nothing to pass on.
        state = .invalidated
    }
}
