import Dispatch
import HTTPCoreConcurrency

/// Where ``ConsoleObserver`` hands its events: a buffer bounded by count and by bytes, drained
/// on one serial dispatch queue that makes each event's text and writes it, in order, off the
/// emitting task.
///
/// `accept` takes the lock once and appends; it never formats, redacts or writes, so a slow
/// terminal, a full pipe or a slow `write` closure never holds a request. When the buffer is
/// full, by count or by the bytes its events keep alive, the oldest waiting events are
/// dropped (an event larger than the whole byte limit is dropped itself); the drops are
/// counted and reported once per overflow to ``HTTPDiagnostics``, from the queue, just
/// before the events that came after the gap are written. The queue takes the events in
/// batches bounded by count and bytes too, so the events alive at once stay within the
/// buffer's limits plus one batch's.
///
/// Every accepted event ends written or dropped; a flush waits for the events accepted before
/// it, never for the buffer to empty, which a client that never pauses would not let happen.
final class ConsoleOutput: Sendable {
    /// An event waiting, with the bytes it keeps alive.
    private struct Pending {
        let event: HTTPEvent
        let byteCost: Int
    }

    private struct State {
        var pending: BoundedQueue<Pending>
        /// The bytes the pending events keep alive.
        var pendingBytes = 0
        /// Events accepted so far, and of them those written or dropped and reported.
        var accepted: UInt64 = 0
        var finished: UInt64 = 0
        /// Events dropped since the last report.
        var dropped = 0
        /// Events that arrived after shutdown, dropped; only the first is reported.
        var droppedAfterShutdown = 0
        /// Whether a drain is scheduled or running on `queue`.
        var isDraining = false
        /// Whether ``ConsoleOutput/shutdown()`` was called: later events are dropped.
        var isShutDown = false
        /// `flush()` callers waiting for `finished` to reach the `accepted` they saw.
        var flushes: [(target: UInt64, continuation: CheckedContinuation<Void, Never>)] = []

        /// Counts `count` events as written or reported, and hands back the flushes that were
        /// waiting for no more than that.
        mutating func finish(_ count: Int) -> [CheckedContinuation<Void, Never>] {
            finished += UInt64(count)
            guard flushes.contains(where: { $0.target <= finished }) else { return [] }
            let done = flushes.filter { $0.target <= finished }.map(\.continuation)
            flushes.removeAll { $0.target <= finished }
            return done
        }

        /// Takes the oldest waiting events, at most `maximumCount` and, beyond the first,
        /// `maximumBytes` bytes.
        mutating func takeBatch(maximumCount: Int, maximumBytes: Int) -> [HTTPEvent] {
            var batch: [HTTPEvent] = []
            var bytes = 0
            while batch.count < maximumCount, let next = pending.first, batch.isEmpty || bytes + next.byteCost <= maximumBytes {
                _ = pending.popFirst()
                pendingBytes -= next.byteCost
                bytes += next.byteCost
                batch.append(next.event)
            }
            return batch
        }
    }

    /// The most events the queue takes from the buffer at once.
    static let batchCount = 256
    /// The most bytes of events the queue takes from the buffer at once (at least one event).
    static let batchBytes = 1024 * 1024

    private let state: Locked<State>
    private let byteLimit: Int
    private let queue = DispatchQueue(label: "HTTPCore.ConsoleObserver")
    private let render: @Sendable (HTTPEvent) -> String
    private let write: @Sendable (String) -> Void

    /// An output that keeps at most `limit` events and `byteLimit` bytes of them waiting,
    /// makes each one's text with `render` and hands it to `write`.
    init(
        limit: Int, byteLimit: Int, render: @escaping @Sendable (HTTPEvent) -> String, write: @escaping @Sendable (String) -> Void
    ) {
        state = Locked(State(pending: BoundedQueue(capacity: max(1, limit))))
        self.byteLimit = max(1, byteLimit)
        self.render = render
        self.write = write
    }

    /// Keeps `event` to be written; drops the oldest waiting ones when the buffer is full.
    func accept(_ event: HTTPEvent) {
        let byteCost = event.queuedByteCount
        let (startsDrain, isFirstAfterShutdown) = state.withLock { state -> (Bool, Bool) in
            state.accepted += 1
            guard !state.isShutDown else {
                state.finished += 1
                state.droppedAfterShutdown += 1
                return (false, state.droppedAfterShutdown == 1)
            }
            if byteCost > byteLimit {
                state.dropped += 1
            } else {
                while state.pendingBytes + byteCost > byteLimit, let oldest = state.pending.popFirst() {
                    state.pendingBytes -= oldest.byteCost
                    state.dropped += 1
                }
                state.pendingBytes += byteCost
                if let evicted = state.pending.append(Pending(event: event, byteCost: byteCost)) {
                    state.pendingBytes -= evicted.byteCost
                    state.dropped += 1
                }
            }
            guard !state.isDraining else { return (false, false) }
            state.isDraining = true
            return (true, false)
        }
        if startsDrain { queue.async { self.drain() } }
        if isFirstAfterShutdown {
            HTTPDiagnostics.report(HTTPDiagnostic(
                source: "ConsoleObserver",
                level: .warning,
                message: "an event arrived after shutdown and was dropped; later ones are dropped without a report",
                metadata: [:]
            ))
        }
    }

    /// Returns once every event accepted before the call is written or dropped and reported,
    /// however many arrive meanwhile.
    func flush() async {
        await withCheckedContinuation { continuation in
            let isDone = state.withLock { state -> Bool in
                guard state.finished < state.accepted else { return true }
                state.flushes.append((state.accepted, continuation))
                return false
            }
            if isDone { continuation.resume() }
        }
    }

    /// Writes what is waiting and reports unreported drops, on the caller's thread as far as
    /// it waits, then drops every later event.
    ///
    /// - Precondition: not called from `write`, which runs on the queue this waits for.
    func shutdown() {
        state.withLock { $0.isShutDown = true }
        // Behind a drain already scheduled, then for what an `accept` racing with the line
        // above appended before its own drain could be scheduled.
        queue.sync { self.drain() }
    }

    /// Writes what is waiting until nothing is, reporting drops before the events after them,
    /// and wakes each flush once the events it waits for are finished.
    private func drain() {
        var finishedSinceLastLock = 0
        while true {
            let (batch, dropped, flushes) = state.withLock { state -> ([HTTPEvent], Int, [CheckedContinuation<Void, Never>]) in
                let flushes = state.finish(finishedSinceLastLock)
                let dropped = state.dropped
                state.dropped = 0
                let batch = state.takeBatch(maximumCount: Self.batchCount, maximumBytes: Self.batchBytes)
                if batch.isEmpty, dropped == 0 { state.isDraining = false }
                return (batch, dropped, flushes)
            }
            for flush in flushes { flush.resume() }
            if dropped > 0 {
                HTTPDiagnostics.report(HTTPDiagnostic(
                    source: "ConsoleObserver",
                    level: .warning,
                    message: "\(dropped) \(dropped == 1 ? "event was" : "events were") dropped: the output did not keep up",
                    metadata: ["dropped": String(dropped)]
                ))
            }
            guard !batch.isEmpty || dropped > 0 else { return }
            for event in batch { write(render(event)) }
            finishedSinceLastLock = batch.count + dropped
        }
    }
}
