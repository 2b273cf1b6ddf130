import Foundation

/// The running-or-stopped state of a ``LoopbackHTTPServer``: its threads, its open connections,
/// and the interruptible waits for delays and drips.
///
/// `@unchecked Sendable` because `condition` guards every stored variable below it; waits use
/// the same condition, so `stop()` wakes every waiting connection thread at once.
package final class LoopbackServerLifecycle: @unchecked Sendable {
    private let condition = NSCondition()
    private var stopped = false
    private var runningThreads = 0
    private var accepting = false
    private var openConnections: [Int: Socket] = [:]

    /// Whether `stop()` has begun.
    var isStopped: Bool {
        condition.lock()
        defer { condition.unlock() }
        return stopped
    }

    /// Whether the accept thread started and the server was not stopped since.
    var isAccepting: Bool {
        condition.lock()
        defer { condition.unlock() }
        return accepting && !stopped
    }

    /// Counts the accept thread about to start, after which the server is accepting; `false`
    /// (and nothing counted) once stopped.
    func acceptThreadWillStart() -> Bool {
        condition.lock()
        defer { condition.unlock() }
        guard !stopped else { return false }
        runningThreads += 1
        accepting = true
        return true
    }

    /// Counts a thread about to start; `false` (and nothing counted) once stopped.
    func threadWillStart() -> Bool {
        condition.lock()
        defer { condition.unlock() }
        guard !stopped else { return false }
        runningThreads += 1
        return true
    }

    /// Counts a thread as ended; call last thing on the thread.
    func threadDidEnd() {
        condition.lock()
        runningThreads -= 1
        condition.broadcast()
        condition.unlock()
    }

    /// Tracks an open connection so `stop()` can shut it; `false` once stopped.
    func register(_ socket: Socket, id: Int) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        guard !stopped else { return false }
        openConnections[id] = socket
        return true
    }

    /// Stops tracking a connection; its thread calls this before closing the descriptor, so
    /// `stop()` never shuts a descriptor number that was closed and reused.
    func unregister(id: Int) {
        condition.lock()
        openConnections[id] = nil
        condition.unlock()
    }

    /// Waits `seconds`, or less if the server stops: `true` when the full time passed.
    package func pause(_ seconds: TimeInterval) -> Bool {
        let deadline = Date(timeIntervalSinceNow: max(0, seconds))
        condition.lock()
        defer { condition.unlock() }
        while !stopped {
            if !condition.wait(until: deadline) { return !stopped }
        }
        return false
    }

    /// Changes state guarded by this lifecycle's lock (a gate's) and wakes every waiter.
    func signal(_ change: () -> Void) {
        condition.lock()
        change()
        condition.broadcast()
        condition.unlock()
    }

    /// Waits until `isSatisfied` holds, read under this lifecycle's lock after every `signal`:
    /// `true` when it held, `false` when the server stopped first.
    func wait(until isSatisfied: () -> Bool) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        while !stopped {
            if isSatisfied() { return true }
            condition.wait()
        }
        return false
    }

    /// Marks the server stopped, wakes every pause and shuts every open connection (waking its
    /// blocked reads); `false` if it was already stopped.
    func beginStop() -> Bool {
        condition.lock()
        defer { condition.unlock() }
        guard !stopped else { return false }
        stopped = true
        for socket in openConnections.values {
            socket.shutdownBoth()
        }
        condition.broadcast()
        return true
    }

    /// Waits until every counted thread has ended or `deadline` passes.
    func waitForThreads(until deadline: Date) {
        condition.lock()
        defer { condition.unlock() }
        while runningThreads > 0 {
            if !condition.wait(until: deadline) { return }
        }
    }
}
