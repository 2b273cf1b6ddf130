import Foundation
import HTTPCore
import HTTPCoreObservation
import HTTPCoreText

extension LogEntry {
    /// What a WebSocket connection's row says about it: open, or what it carried when it
    /// ended; its messages are the row's response body.
    struct WebSocketLog: Sendable {
        /// The connection's summary from its terminal event; `nil` for the row written when it
        /// opened.
        var summary: HTTPEvent.WebSocketSummary?
        /// Every message reported either way.
        var messageCount: Int
        /// Of those, the ones the row lists.
        var listedMessageCount: Int

        var isOpen: Bool { summary == nil }
        var unlistedMessageCount: Int { max(0, messageCount - listedMessageCount) }
    }

    /// The row written when a connection opens (its `received` event, the 101): the handshake,
    /// timed from the request's start to the 101, saying that a closing row follows.
    init(webSocketOpened event: HTTPEvent, maxBodyBytes: Int) {
        self.init(event: event, maxBodyBytes: maxBodyBytes)
        method = "WS"
        durationMilliseconds = event.attemptDurationMilliseconds ?? durationMilliseconds
        endedAt = event.attemptEndedAt ?? event.timestamp
        streaming = .webSocket(WebSocketLog(summary: nil, messageCount: 0, listedMessageCount: 0))
    }

    /// The row of a connection that ended (its terminal event): its lifetime, what it carried,
    /// and the messages of `transcript` as one conversation in time order, cut at
    /// `maxBodyBytes`.
    init(webSocketEnd event: HTTPEvent, transcript: WebSocketTranscript?, maxBodyBytes: Int) {
        self.init(event: event, maxBodyBytes: maxBodyBytes)
        method = "WS"
        let summary = event.webSocket ?? HTTPEvent.WebSocketSummary(
            sentMessageCount: 0, receivedMessageCount: 0, sentByteCount: 0, receivedByteCount: 0, close: nil
        )
        let messageCount = summary.sentMessageCount + summary.receivedMessageCount
        let listed = transcript?.keptCount ?? 0
        streaming = .webSocket(WebSocketLog(summary: summary, messageCount: messageCount, listedMessageCount: listed))
        guard messageCount > 0 else { return }
        let text = Self.conversation(transcript, messageCount: messageCount)
        let data = Data(text.utf8)
        let limit = max(0, maxBodyBytes)
        responseBody = CapturedBody(
            alreadyCaptured: data.count > limit ? data.prefix(limit).withUnsafeBytes { Data($0) } : data,
            totalByteCount: data.count, contentType: "text/plain; charset=utf-8", isTruncated: data.count > limit
        )
    }

    /// The messages as the row's body shows them, one a line: `↑` sent or `↓` received, the
    /// time since the connection opened, the opcode, and the data (redacted by the client's
    /// policy as the event is read; a binary message's `base64:`), with a line for the messages
    /// between the first and the latest that were not kept, and one for those the client's
    /// policy did not emit.
    static func conversation(_ transcript: WebSocketTranscript?, messageCount: Int) -> String {
        guard let transcript, transcript.keptCount > 0 else {
            return "[messages] \(messageCount) message\(messageCount == 1 ? "" : "s"), none kept for this row"
        }
        var lines = ["[messages] \(transcript.keptCount) of \(messageCount): ↑ sent, ↓ received, time since the connection opened"]
        lines += transcript.head.compactMap(line)
        if transcript.skippedCount > 0 { lines.append("… \(transcript.skippedCount) message\(transcript.skippedCount == 1 ? "" : "s") not kept …") }
        lines += transcript.tail.compactMap(line)
        let unemitted = messageCount - transcript.keptCount - transcript.skippedCount
        if unemitted > 0 {
            lines.append("… \(unemitted) later message\(unemitted == 1 ? "" : "s") not observed one by one (the client's HTTPCorePolicy.streamMessages) …")
        }
        return lines.joined(separator: "\n")
    }

    /// One message's line: `↑ +12 ms text {"type":"subscribe"}`.
    private static func line(_ event: HTTPEvent) -> String? {
        guard let message = event.message else { return nil }
        let arrow = message.direction == .sent ? "↑" : "↓"
        let opened = event.attemptEndedAt ?? event.attemptStartedAt ?? event.timestamp
        let offset = "+" + DurationText.format(milliseconds: max(0, event.timestamp.timeIntervalSince(opened) * 1000))
        var data = message.data.replacingOccurrences(of: "\r", with: "\\r").replacingOccurrences(of: "\n", with: "\\n")
        if message.opcode == .binary, !data.isEmpty { data = BodyRenderer.base64Prefix + data }
        if message.isTruncated { data += "…[truncated: \(message.byteCount) bytes in all]" }
        let parts = [arrow, offset, message.opcode.map(\.name) ?? "message", data].filter { !$0.isEmpty }
        return parts.joined(separator: " ")
    }
}

extension HTTPEvent.StreamMessage.Opcode {
    /// The opcode's name, as RFC 6455 and the browsers' network panels write it.
    var name: String {
        switch self {
        case .text: "text"
        case .binary: "binary"
        case .close: "close"
        case .ping: "ping"
        case .pong: "pong"
        }
    }
}
