import HTTPCoreConcurrency

/// The life of an observed WebSocket connection, as a state machine: each input returns
/// what to emit, and the caller emits it. It holds counts, never messages, so its size is
/// the same however long the connection lives.
struct WebSocketObservationState {
    /// What a connection carried so far, either way.
    struct Counts {
        var sentMessages = 0
        var receivedMessages = 0
        var sentBytes = 0
        var receivedBytes = 0
        /// Messages emitted as events, each numbered by the count before it.
        var emitted = 0
        /// When the last message arrived or went out, on the monotonic clock.
        var lastMessageNanoseconds: UInt64?

        var all: Int { sentMessages + receivedMessages }
    }

    /// The handshake's answer, and the attempt it ended.
    struct Opened {
        let head: ResponseRecord
        let timing: HTTPEvent.AttemptTiming
    }

    enum Phase {
        /// The handshake was sent; no answer yet.
        case connecting
        /// The 101 arrived (``opened``): messages flow.
        case open
        /// The terminal event was emitted; later inputs are ignored.
        case ended
    }

    /// A message to emit as an event: its number among those emitted, and the time since the
    /// previous message.
    struct MessageAction {
        let index: Int
        let millisecondsSincePrevious: Double?
    }

    /// The end to emit: the 101 when the connection opened, and what it carried.
    struct EndAction {
        let opened: Opened?
        let counts: Counts
    }

    private(set) var phase = Phase.connecting
    /// Set when the phase is `open`, and kept after the end.
    private(set) var opened: Opened?
    /// Counted in place, so a message costs no copy of the state's references.
    private var counts = Counts()
    let maxEmittedMessages: Int

    init(maxEmittedMessages: Int) {
        self.maxEmittedMessages = maxEmittedMessages
    }

    /// The handshake's answer arrived: `true` when it opens the connection now, `false` when
    /// it was open or ended already.
    mutating func open(_ answer: Opened) -> Bool {
        guard phase == .connecting else { return false }
        phase = .open
        opened = answer
        return true
    }

    /// A message of `byteCount` payload bytes went `direction` at `nanoseconds`: counted while
    /// open, and returned to emit when `emits` and within the cap; `nil` to emit nothing (past
    /// the cap, before the connection opened, or after its end).
    mutating func message(
        _ direction: HTTPEvent.StreamMessage.Direction, byteCount: Int, at nanoseconds: UInt64, emits: Bool
    ) -> MessageAction? {
        guard phase == .open else { return nil }
        switch direction {
        case .sent:
            counts.sentMessages += 1
            counts.sentBytes += byteCount
        case .received:
            counts.receivedMessages += 1
            counts.receivedBytes += byteCount
        }
        let since = counts.lastMessageNanoseconds.map { Double(nanoseconds &- $0) / 1_000_000 }
        counts.lastMessageNanoseconds = nanoseconds
        guard emits, counts.emitted < maxEmittedMessages else { return nil }
        defer { counts.emitted += 1 }
        return MessageAction(index: counts.emitted, millisecondsSincePrevious: since)
    }

    /// The connection ended: what to emit, once; `nil` when it ended already.
    mutating func end() -> EndAction? {
        guard phase != .ended else { return nil }
        phase = .ended
        return EndAction(opened: opened, counts: counts)
    }
}
