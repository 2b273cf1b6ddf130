import Foundation
import HTTPCore
import HTTPCoreObservation
import HTTPCoreText

/// How the console shows a WebSocket connection (``/HTTPCoreObservation/WebSocketObservation``): as one
/// conversation, each line led by `WS` and the URL.
///
/// At `.debug` its 101 is a line (`WS wss://host/live -> 101 open`) and so is each message
/// (`WS wss://host/live → text 29 B: {"type":"subscribe"}`, `←` for one received, its data cut
/// as a stream's); its end is one line at the level of its outcome:
/// `WS wss://host/live -> closed 1000 by client: done (8.2 s, sent 3 messages 120 B, received 41 messages 9.5 KB)`.
extension ConsoleObserver {
    /// The most bytes of a message's data a line shows.
    static let maximumMessageDataBytes = 200

    /// The line of a WebSocket connection's 101, message or end; `nil` for its other events,
    /// which read as any exchange's, and for every event of other exchanges.
    static func webSocketLine(for event: HTTPEvent) -> String? {
        guard event.isWebSocket else { return nil }
        let connection = "WS \(event.request.url)"
        if event.name == .responseReceived, let statusCode = event.statusCode { return "\(connection) -> \(statusCode) open" }
        if event.name == .responseMessage, let message = event.message, message.kind == .webSocket {
            return "\(connection) \(message.direction == .sent ? "→" : "←") \(messageSummary(message))"
        }
        guard let summary = webSocketSummary(of: event) else { return nil }
        let duration = event.durationMilliseconds.map { String(format: "%.1f ms, ", $0) } ?? ""
        return "\(connection) -> \(summary.outcome) (\(duration)\(summary.counts))"
    }

    /// The outcome and the counts of a connection's end: `closed 4000 by server: bye` (or the
    /// failure, `101, then failed: …`) and `sent 1 message 29 B, received 3 messages 18 B`;
    /// `nil` for any other event.
    static func webSocketSummary(of event: HTTPEvent) -> (outcome: String, counts: String)? {
        guard let webSocket = event.webSocket, let ended = event.outcome else { return nil }
        var outcome = "\(ended)"
        if let close = webSocket.close {
            outcome = "closed \(close.code) by \(close.initiator == .client ? "client" : "server")" + (close.reason.isEmpty ? "" : ": \(close.reason)")
        }
        let counts = "sent \(messages(webSocket.sentMessageCount)) \(byteCount(webSocket.sentByteCount)), "
            + "received \(messages(webSocket.receivedMessageCount)) \(byteCount(webSocket.receivedByteCount))"
        return (outcome, counts)
    }

    /// Whether a close status code reports an error (RFC 6455, section 7.4.1), as a 4xx or 5xx
    /// does: any registered code from 1002 on but 1005 (none given); 1000 and 1001 are normal,
    /// and 3000 to 4999 belong to libraries and applications.
    static func isErrorClose(_ code: Int) -> Bool {
        (1002..<3000).contains(code) && code != 1005
    }

    /// `text 29 B: {"type":"subscribe"}`: the opcode, the size, and the data cut at
    /// ``maximumMessageDataBytes``, with `…` when it, or the policy, cut it.
    private static func messageSummary(_ message: HTTPEvent.StreamMessage) -> String {
        let opcode = message.opcode.map(name(of:)) ?? "text"
        let size = "\(opcode) \(byteCount(message.byteCount))"
        guard !message.data.isEmpty else { return size }
        let data = UTF8Text.cut(message.data, toBytes: maximumMessageDataBytes)
        return "\(size): \(data)\(message.isTruncated && data.utf8.count <= maximumMessageDataBytes ? TruncationMarker.ellipsis : "")"
    }

    private static func name(of opcode: HTTPEvent.StreamMessage.Opcode) -> String {
        switch opcode {
        case .text: "text"
        case .binary: "binary"
        case .close: "close"
        case .ping: "ping"
        case .pong: "pong"
        }
    }

    private static func messages(_ count: Int) -> String {
        count == 1 ? "1 message" : "\(count) messages"
    }
}
