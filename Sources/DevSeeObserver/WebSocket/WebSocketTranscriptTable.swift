import HTTPCore
import HTTPCoreObservation

/// The transcripts of the WebSocket connections open now, by request id, from their 101 to
/// their end; bounded: beyond ``limit`` open connections the one opened first is forgotten
/// (its closing row then says its messages were not kept).
struct WebSocketTranscriptTable: Sendable {
    /// The most connections tracked at once; at least 1.
    let limit: Int
    /// The bounds of each transcript.
    let maxMessages: Int
    let maxBytes: Int
    private var transcripts: [HTTPRequest.ID: WebSocketTranscript] = [:]
    /// The tracked connections in the order they opened.
    private var order: [HTTPRequest.ID] = []

    init(limit: Int, maxMessages: Int, maxBytes: Int) {
        self.limit = max(1, limit)
        self.maxMessages = maxMessages
        self.maxBytes = maxBytes
    }

    /// The connections tracked now.
    var count: Int { transcripts.count }

    /// Starts the transcript of a connection that opened.
    mutating func open(_ id: HTTPRequest.ID) {
        guard transcripts[id] == nil else { return }
        if transcripts.count >= limit, !order.isEmpty {
            transcripts[order.removeFirst()] = nil
        }
        transcripts[id] = WebSocketTranscript(maxMessages: maxMessages, maxBytes: maxBytes)
        order.append(id)
    }

    /// Keeps a message event in its connection's transcript, when the connection is tracked.
    mutating func append(_ event: HTTPEvent) {
        transcripts[event.requestID]?.append(event)
    }

    /// The transcript of a connection that ended, removed; `nil` when it never opened or was
    /// forgotten.
    mutating func close(_ id: HTTPRequest.ID) -> WebSocketTranscript? {
        guard let transcript = transcripts.removeValue(forKey: id) else { return nil }
        order.removeAll { $0 == id }
        return transcript
    }
}
