import Dispatch
import HTTPCoreConcurrency

/// The bounded, ordered delivery queue of one observer.
///
/// Emitting appends under a lock and returns; a single drain at a time runs on a dispatch
/// queue and hands events to the observer, which keeps per-observer order. When the buffer
/// is full the oldest pending event is dropped and counted; the drops since the last batch
/// taken form one gap, told to the observer (and reported as the end of the overflow)
/// before the first event of the next batch, which is the first event emitted after them.
///
/// A terminal event starts a drain at once when the last drain began at least
/// ``deliveryIntervalNanoseconds`` ago; other events, and terminal events under load, wait at most that
/// long for one. An observer's delivery thread thus wakes at most once per interval however
/// many exchanges end: on a small machine those wake-ups cost the app more than the
/// delivery, and under load they would otherwise come once per exchange and observer.
final class ObserverQueue: Sendable {
    private struct State {
        var pending: BoundedQueue<HTTPEvent>
        var isDraining = false
        var isDrainScheduled = false
        var isCancelled = false
        /// When the last drain began, on the monotonic clock; 0 before the first.
        var lastDrainStart: UInt64 = 0
        /// How many drains began.
        var drainCount = 0
        var statistics = HTTPObserverStatistics()
        /// Events taken by the drain and not yet handed over.
        var inFlight = 0
        /// The events dropped since the drain last took a batch: they precede `pending`.
        var gap = HTTPMissedEvents()

        init(limit: Int) {
            pending = BoundedQueue(capacity: limit)
        }

        var pendingCount: Int { pending.count }

        /// Events delivered, dropped or discarded; a flush waits for it to reach the number
        /// emitted before it.
        var settled: Int { statistics.delivered + statistics.dropped + statistics.discarded }

        /// Marks a drain as started `now` (uptime nanoseconds).
        mutating func beginDrain(at now: UInt64 = DispatchTime.now().uptimeNanoseconds) {
            isDraining = true
            lastDrainStart = now
            drainCount += 1
        }

        mutating func takePending() -> BoundedQueue<HTTPEvent> {
            let batch = pending
            pending = BoundedQueue(capacity: pending.capacity)
            return batch
        }
    }

    private let observer: any HTTPObserver
    /// The names of the events the observer handles; `nil` for all. A short array: a few
    /// comparisons of names that share their storage cost less than hashing one.
    private let handledNames: [HTTPEvent.Name]?
    /// The observer's type, as diagnostics name it.
    private let observerName: String
    private let limit: Int
    private let deliveryQueue: DispatchQueue
    /// Hands a diagnostic over without running it: called under the lock, so that reports
    /// keep the order of the changes they describe.
    private let report: (@Sendable (HTTPObserverDiagnostic) -> Void)?
    private let state: AsyncCondition<State>

    init(
        observer: any HTTPObserver,
        limit: Int,
        deliveryQueue: DispatchQueue,
        report: (@Sendable (HTTPObserverDiagnostic) -> Void)?
    ) {
        self.observer = observer
        handledNames = observer.handledEventNames.map(Array.init)
        observerName = String(describing: type(of: observer))
        self.limit = max(1, limit)
        state = AsyncCondition(State(limit: self.limit))
        self.deliveryQueue = deliveryQueue
        self.report = report
    }

    var statistics: HTTPObserverStatistics {
        state.read { state in
            var statistics = state.statistics
            statistics.pending = state.pendingCount + state.inFlight
            return statistics
        }
    }

    var isCancelled: Bool { state.read { $0.isCancelled } }

    /// How many drains began: each is one wake-up of a delivery thread.
    var drainCount: Int { state.read { $0.drainCount } }

    /// Whether the observer handles events named `name`.
    func handles(_ name: HTTPEvent.Name) -> Bool {
        handledNames?.contains(name) ?? true
    }

    /// Queues `event` when the observer handles events of its name.
    func enqueue(_ event: HTTPEvent) {
        guard handles(event.name) else { return }   // the dispatcher asks too, before it builds one
        let startDrain = state.update { state -> DrainStart in
            guard !state.isCancelled else { return .none }
            state.statistics.emitted += 1
            if let dropped = state.pending.append(event) {
                state.gap.record(dropped.name)
                if state.gap.count == 1 { report?(.overflowStarted(observer: observerName, bufferLimit: limit)) }
                state.statistics.dropped += 1
            }
            guard !state.isDraining, !state.isDrainScheduled else { return .none }
            let now = DispatchTime.now().uptimeNanoseconds
            let nextStart = state.lastDrainStart &+ Self.deliveryIntervalNanoseconds
            if event.name.isTerminal, now >= nextStart {
                state.beginDrain(at: now)
                return .now
            }
            state.isDrainScheduled = true
            let start = event.name.isTerminal ? nextStart : now &+ Self.deliveryIntervalNanoseconds
            return .at(DispatchTime(uptimeNanoseconds: start))
        }
        switch startDrain {
        case .now: deliveryQueue.async { self.drain() }
        case .at(let time): deliveryQueue.asyncAfter(deadline: time) { self.scheduledDrain() }
        case .none: break
        }
    }

    /// The longest an event waits before its delivery starts, and the shortest time between
    /// two drains that a terminal event starts at once: 5 ms.
    static let deliveryIntervalNanoseconds: UInt64 = 5_000_000

    private enum DrainStart {
        case now, at(DispatchTime), none
    }

    private func scheduledDrain() {
        let start = state.update { state -> Bool in
            state.isDrainScheduled = false
            guard !state.isDraining, state.pendingCount > 0 else { return false }
            state.beginDrain()
            return true
        }
        if start { drain() }
    }

    /// Suspends until every event enqueued before the call was delivered, dropped or
    /// discarded (or the waiting task is cancelled); starts a drain at once rather than waiting for a scheduled one.
    func waitUntilSettled() async {
        let (target, startDrain) = state.update { state -> (Int, Bool) in
            guard !state.isDraining, state.pendingCount > 0 else { return (state.statistics.emitted, false) }
            state.beginDrain()
            return (state.statistics.emitted, true)
        }
        if startDrain { deliveryQueue.async { self.drain() } }
        _ = try? await state.wait(until: { $0.isCancelled || $0.settled >= target })
    }

    /// Discards the pending events; an overflow under way ends, and is reported, here.
    func cancel() {
        state.update { state in
            state.isCancelled = true
            state.statistics.discarded += state.takePending().count
            _ = endOverflow(&state)
        }
    }

    /// The gap so far, reported as the end of its overflow and forgotten.
    private func endOverflow(_ state: inout State) -> HTTPMissedEvents {
        let gap = state.gap
        state.gap = HTTPMissedEvents()
        if gap.count > 0 { report?(.overflowEnded(observer: observerName, missed: gap)) }
        return gap
    }

    private func drain() {
        while true {
            let taken = state.update { state -> (batch: BoundedQueue<HTTPEvent>, gap: HTTPMissedEvents)? in
                guard !state.isCancelled, state.pendingCount > 0 else {
                    state.isDraining = false
                    return nil
                }
                let batch = state.takePending()
                state.inFlight = batch.count
                return (batch, endOverflow(&state))
            }
            guard let (batch, gap) = taken else { return }
            if gap.count > 0, !isCancelled { observer.handleMissedEvents(gap) }
            var delivered = 0
            for event in batch {
                if isCancelled { break }
                observer.handle(event)
                delivered += 1
            }
            state.update { state in
                state.inFlight = 0
                state.statistics.delivered += delivered
                state.statistics.discarded += batch.count - delivered
            }
        }
    }
}
