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

    enum State {
        /// The handshake was sent; no answer yet.
        case connecting
        /// The 101 arrived: messages flow.
        case open(Opened, Counts)
        /// The terminal event was emitted; later inputs are ignored.
        case ended
    }

    /// A message to emit as an event: its number among those emitted, and the time since the
    /// previous message.
    struct MessageAction {
        let index: Int
        let millisecondsSincePrevious: Double?
        let opened: Opened
    }

    /// The end to emit: the 101 when the connection opened, and what it carried.
    struct EndAction {
        let opened: Opened?
        let counts: Counts
    }

    private(set) var state = State.connecting
    let maxEmittedMessages: Int

    init(maxEmittedMessages: Int) {
        self.maxEmittedMessages = maxEmittedMessages
    }

    /// The handshake's answer arrived: `true` when it opens the connection now, `false` when
    /// it was open or ended already.
    mutating func open(_ opened: Opened) -> Bool {
        guard case .connecting = state else { return false }
        state = .open(opened, Counts())
        return true
    }

    /// A message of `byteCount` payload bytes went `direction` at `nanoseconds`: counted while
    /// open, and returned to emit when within the cap; `nil` to emit nothing (past the cap,
    /// before the connection opened, or after its end).
    mutating func message(
        _ direction: HTTPEvent.StreamMessage.Direction, byteCount: Int, at nanoseconds: UInt64, emits: Bool
    ) -> MessageAction? {
        guard case .open(let opened, var counts) = state else { return nil }
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
        var action: MessageAction?
        if emits, counts.emitted < maxEmittedMessages {
            action = MessageAction(index: counts.emitted, millisecondsSincePrevious: since, opened: opened)
            counts.emitted += 1
        }
        state = .open(opened, counts)
        return action
    }

    /// The connection ended: what to emit, once; `nil` when it ended already.
    mutating func end() -> EndAction? {
        switch state {
        case .connecting:
            state = .ended
            return EndAction(opened: nil, counts: Counts())
        case .open(let opened, let counts):
            state = .ended
            return EndAction(opened: opened, counts: counts)
        case .ended:
            return nil
        }
    }
}
