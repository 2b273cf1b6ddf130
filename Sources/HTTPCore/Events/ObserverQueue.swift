import Dispatch

/// The bounded, ordered delivery queue of one observer.
///
/// Emitting appends under a lock and returns; a single drain at a time runs on a dispatch
/// queue and hands events to the observer, which keeps per-observer order. When the buffer
/// is full the oldest pending event is dropped and counted.
final class ObserverQueue: Sendable {
    private struct State {
        var pending: [HTTPEvent] = []
        var head = 0
        var isDraining = false
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
        let startDrain = state.withLock { state -> Bool in
            guard !state.isCancelled else { return false }
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
            guard !state.isDraining else { return false }
            state.isDraining = true
            return true
        }
        if startDrain {
            deliveryQueue.async { self.drain() }
        }
    }

    /// Suspends until every event enqueued before the call was delivered or dropped.
    func waitUntilSettled() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let ready = state.withLock { state -> Bool in
                if state.isCancelled || state.settled >= state.emitted { return true }
                state.waiters.append((state.emitted, continuation))
                return false
            }
            if ready { continuation.resume() }
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
