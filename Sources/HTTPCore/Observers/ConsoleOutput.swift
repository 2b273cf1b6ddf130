import Dispatch
import HTTPCoreConcurrency

/// Where ``ConsoleObserver`` hands its events: a bounded buffer drained on one serial
/// dispatch queue that makes each event's text and writes it, in order, off the emitting task.
///
/// `accept` takes the lock once and appends; it never formats, redacts or writes, so a slow
/// terminal, a full pipe or a slow `write` closure never holds a request. When the buffer is
/// full the oldest event waiting is dropped; the drops are counted and reported once per
/// overflow to ``HTTPDiagnostics``, from the queue, just before the events that came after
/// the gap are written.
final class ConsoleOutput: Sendable {
    private struct State {
        var pending: BoundedQueue<HTTPEvent>
        /// Events dropped since the last report.
        var dropped = 0
        /// Whether a drain is scheduled or running on `queue`.
        var isDraining = false
        /// `flush()` callers waiting for the buffer to be written.
        var flushes: [CheckedContinuation<Void, Never>] = []
    }

    private let state: Locked<State>
    private let queue = DispatchQueue(label: "HTTPCore.ConsoleObserver")
    private let render: @Sendable (HTTPEvent) -> String
    private let write: @Sendable (String) -> Void

    /// An output that keeps at most `limit` events waiting, makes each one's text with
    /// `render` and hands it to `write`.
    init(limit: Int, render: @escaping @Sendable (HTTPEvent) -> String, write: @escaping @Sendable (String) -> Void) {
        state = Locked(State(pending: BoundedQueue(capacity: max(1, limit))))
        self.render = render
        self.write = write
    }

    /// Keeps `event` to be written; drops the oldest waiting one when the buffer is full.
    func accept(_ event: HTTPEvent) {
        let startsDrain = state.withLock { state -> Bool in
            if state.pending.append(event) != nil { state.dropped += 1 }
            guard !state.isDraining else { return false }
            state.isDraining = true
            return true
        }
        if startsDrain { queue.async { self.drain() } }
    }

    /// Returns once every event accepted before the call is written.
    func flush() async {
        await withCheckedContinuation { continuation in
            let isIdle = state.withLock { state -> Bool in
                guard state.isDraining else { return true }
                state.flushes.append(continuation)
                return false
            }
            if isIdle { continuation.resume() }
        }
    }

    /// Writes what is waiting until nothing is, then wakes the flushes.
    private func drain() {
        while true {
            let (batch, dropped, flushes) = state.withLock { state -> ([HTTPEvent], Int, [CheckedContinuation<Void, Never>]) in
                let dropped = state.dropped
                state.dropped = 0
                guard !state.pending.isEmpty else {
                    state.isDraining = false
                    defer { state.flushes.removeAll() }
                    return ([], dropped, state.flushes)
                }
                var batch: [HTTPEvent] = []
                batch.reserveCapacity(state.pending.count)
                while let event = state.pending.popFirst() { batch.append(event) }
                return (batch, dropped, [])
            }
            if dropped > 0 {
                HTTPDiagnostics.report(HTTPDiagnostic(
                    source: "ConsoleObserver",
                    level: .warning,
                    message: "\(dropped) \(dropped == 1 ? "event was" : "events were") dropped: the output did not keep up",
                    metadata: ["dropped": String(dropped)]
                ))
            }
            guard !batch.isEmpty else {
                for flush in flushes { flush.resume() }
                return
            }
            for event in batch { write(render(event)) }
        }
    }
}
