import Dispatch

/// The bounded, ordered delivery queue of one observer.
///
/// Emitting appends under a lock and returns; a single drain at a time runs on a dispatch
/// queue and hands events to the observer, which keeps per-observer order. When the buffer
/// is full the oldest pending event is dropped and counted.
///
/// A terminal event starts a drain at once. Other events wait at most
/// ``nonTerminalDelay`` for one, so an exchange wakes the delivery thread about once instead
/// of four times: on a small machine those wake-ups cost the app more than the delivery.
final class ObserverQueue: Sendable {
    private struct State {
        var pending: [HTTPEvent] = []
        var head = 0
        var isDraining = false
        var isDrainScheduled = false
        var isCancelled = false
        var emitted: UInt64 = 0
        var settled: UInt64 = 0
        var dropped = 0
        var waiters: [(target: UInt64, continuation: CheckedContinuation<Void, Never>)] = []

        var pendingCount: Int { pending.count - head }

        mutating func takePending() -> ArraySlice<HTTPEvent> {
            let batch = pending[head...]
            pending = []
            head = 0
            return batch
        }

        mutating func readyWaiters() -> [CheckedContinuation<Void, Never>] {
            var ready: [CheckedContinuation<Void, Never>] = []
            waiters.removeAll { waiter in
                guard isCancelled || waiter.target <= settled else { return false }
                ready.append(waiter.continuation)
                return true
            }
            return ready
        }
    }

    private let observer: any HTTPObserver
    private let limit: Int
    private let deliveryQueue: DispatchQueue
    private let state = Locked(State())

    init(observer: any HTTPObserver, limit: Int, deliveryQueue: DispatchQueue) {
        self.observer = observer
        self.limit = max(1, limit)
        self.deliveryQueue = deliveryQueue
    }

    var droppedCount: Int { state.withLock { $0.dropped } }
    var isCancelled: Bool { state.withLock { $0.isCancelled } }

    func enqueue(_ event: HTTPEvent) {
        let startDrain = state.withLock { state -> DrainStart in
            guard !state.isCancelled else { return .none }
            state.emitted += 1
            if state.pendingCount >= limit {
                state.head += 1
                state.dropped += 1
                state.settled += 1
                if state.head > 1024, state.head * 2 > state.pending.count {
                    state.pending.removeFirst(state.head)
                    state.head = 0
                }
            }
            state.pending.append(event)
            guard !state.isDraining else { return .none }
            if event.name.isTerminal {
                state.isDraining = true
                return .now
            }
            guard !state.isDrainScheduled else { return .none }
            state.isDrainScheduled = true
            return .later
        }
        switch startDrain {
        case .now: deliveryQueue.async { self.drain() }
        case .later: deliveryQueue.asyncAfter(deadline: .now() + Self.nonTerminalDelay) { self.scheduledDrain() }
        case .none: break
        }
    }

    /// The longest a non-terminal event waits before its delivery starts.
    static let nonTerminalDelay = DispatchTimeInterval.milliseconds(5)

    private enum DrainStart {
        case now, later, none
    }

    private func scheduledDrain() {
        let start = state.withLock { state -> Bool in
            state.isDrainScheduled = false
            guard !state.isDraining, state.pendingCount > 0 else { return false }
            state.isDraining = true
            return true
        }
        if start { drain() }
    }

    /// Suspends until every event enqueued before the call was delivered or dropped; starts
    /// a drain at once rather than waiting for a scheduled one.
    func waitUntilSettled() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let (ready, startDrain) = state.withLock { state -> (Bool, Bool) in
                if state.isCancelled || state.settled >= state.emitted { return (true, false) }
                state.waiters.append((state.emitted, continuation))
                guard !state.isDraining else { return (false, false) }
                state.isDraining = true
                return (false, true)
            }
            if ready { continuation.resume() }
            if startDrain { deliveryQueue.async { self.drain() } }
        }
    }

    func cancel() {
        let ready = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.isCancelled = true
            let discarded = state.takePending().count
            state.settled += UInt64(discarded)
            return state.readyWaiters()
        }
        ready.forEach { $0.resume() }
    }

    private func drain() {
        while true {
            let batch = state.withLock { state -> ArraySlice<HTTPEvent>? in
                guard !state.isCancelled, state.pendingCount > 0 else {
                    state.isDraining = false
                    return nil
                }
                return state.takePending()
            }
            guard let batch else { return }
            for event in batch {
                if isCancelled { break }
                observer.handle(event)
            }
            let ready = state.withLock { state -> [CheckedContinuation<Void, Never>] in
                state.settled += UInt64(batch.count)
                return state.readyWaiters()
            }
            ready.forEach { $0.resume() }
        }
    }
}
