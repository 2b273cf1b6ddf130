import HTTPCoreObservation

/// The message events of one WebSocket connection that its closing row lists, bounded however
/// long the connection lives: the first ones as they came, then the latest ones, each part at
/// most half of ``maxMessages`` messages and half of ``maxBytes`` bytes of message data kept
/// alive. The messages between the two are dropped and counted (``skippedCount``).
///
/// It keeps the events, not their text: a message is redacted when its row is built, on the
/// logger's workers, never on the task that sent or received it.
struct WebSocketTranscript: Sendable {
    /// The most messages kept, both parts together.
    let maxMessages: Int
    /// The most bytes of message data kept alive, both parts together.
    let maxBytes: Int
    /// The first messages, in order.
    private(set) var head: [HTTPEvent] = []
    /// The latest messages after ``head`` and the skipped ones, in order.
    private(set) var tail: [HTTPEvent] = []
    /// Messages dropped between ``head`` and ``tail``.
    private(set) var skippedCount = 0
    private var headBytes = 0
    private var tailBytes = 0

    init(maxMessages: Int, maxBytes: Int) {
        self.maxMessages = max(2, maxMessages)
        self.maxBytes = max(0, maxBytes)
    }

    /// The messages kept.
    var keptCount: Int { head.count + tail.count }

    /// The bytes the kept events keep alive beyond their exchange's records.
    var byteCount: Int { headBytes + tailBytes }

    /// Keeps a message event: in the head while it has room and nothing was put after it, else
    /// in the tail, whose oldest messages are dropped (and counted) to stay within its half.
    mutating func append(_ event: HTTPEvent) {
        let cost = event.retainedMessageByteCount
        if tail.isEmpty, skippedCount == 0, head.count < maxMessages / 2, headBytes + cost <= maxBytes / 2 {
            head.append(event)
            headBytes += cost
            return
        }
        tail.append(event)
        tailBytes += cost
        while !tail.isEmpty, tail.count > maxMessages / 2 || tailBytes > maxBytes / 2 {
            tailBytes -= tail.removeFirst().retainedMessageByteCount
            skippedCount += 1
        }
    }
}
