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

        var pendingCount: Int { pending.count - head }

        mutating func takePending() -> ArraySlice<HTTPEvent> {
            let batch = pending[head...]
            pending = []
            head = 0
            return batch
        }
    }

    private let observer: any HTTPObserver
    private let limit: Int
    private let deliveryQueue: DispatchQueue
    private let state = AsyncCondition(State())

    init(observer: any HTTPObserver, limit: Int, deliveryQueue: DispatchQueue) {
        self.observer = observer
        self.limit = max(1, limit)
        self.deliveryQueue = deliveryQueue
    }

    var droppedCount: Int { state.read { $0.dropped } }
    var isCancelled: Bool { state.read { $0.isCancelled } }

    func enqueue(_ event: HTTPEvent) {
        let startDrain = state.update { state -> DrainStart in
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
        let start = state.update { state -> Bool in
            state.isDrainScheduled = false
            guard !state.isDraining, state.pendingCount > 0 else { return false }
            state.isDraining = true
            return true
        }
        if start { drain() }
    }

    /// Suspends until every event enqueued before the call was delivered or dropped (or the
    /// waiting task is cancelled); starts a drain at once rather than waiting for a scheduled one.
    func waitUntilSettled() async {
        let (target, startDrain) = state.update { state -> (UInt64, Bool) in
            guard !state.isDraining, state.pendingCount > 0 else { return (state.emitted, false) }
            state.isDraining = true
            return (state.emitted, true)
        }
        if startDrain { deliveryQueue.async { self.drain() } }
        _ = try? await state.wait(until: { $0.isCancelled || $0.settled >= target })
    }

    func cancel() {
        state.update { state in
            state.isCancelled = true
            state.settled += UInt64(state.takePending().count)
        }
    }

    private func drain() {
        while true {
            let batch = state.update { state -> ArraySlice<HTTPEvent>? in
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
            state.update { $0.settled += UInt64(batch.count) }
        }
    }
}
