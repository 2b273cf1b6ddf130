import HTTPCore
import HTTPCoreObservation

/// A WebSocket connection's line, at its end, and the fields of its messages' lines.
extension LokiLineBuilder {
    /// The fields a WebSocket connection's line has in place of a streamed exchange's:
    /// `websocket=true`, its close (`close_code`, `close_reason`, `close_initiator`, absent
    /// when it ended without a close handshake), and what went each way (`sent_messages`,
    /// `sent_bytes`, `received_messages`, `received_bytes`), then `unlogged_messages`, those
    /// without a line of their own.
    func webSocketFields(_ summary: HTTPEvent.WebSocketSummary, of event: HTTPEvent) -> [(key: String, value: String)] {
        var fields: [(key: String, value: String)] = [("websocket", "true")]
        if let close = summary.close {
            fields.append(("close_code", String(close.code)))
            fields.append(("close_reason", close.reason))
            fields.append(("close_initiator", close.initiator == .client ? "client" : "server"))
        }
        fields.append(("sent_messages", String(summary.sentMessageCount)))
        fields.append(("sent_bytes", String(summary.sentByteCount)))
        fields.append(("received_messages", String(summary.receivedMessageCount)))
        fields.append(("received_bytes", String(summary.receivedByteCount)))
        let shipped = min(event.streamMessageCount - event.droppedStreamMessageCount, max(0, maxMessageLinesPerExchange))
        fields.append(("unlogged_messages", String(max(0, event.streamMessageCount - shipped))))
        return fields
    }

    /// Whether a connection's close says something went wrong: any code but a normal closure
    /// (1000), going away (1001) or none given (1005). A warning, as a 4xx is: the exchange
    /// itself succeeded.
    static func isAbnormal(_ close: HTTPEvent.WebSocketClose?) -> Bool {
        guard let close else { return false }
        return ![1000, 1001, 1005].contains(close.code)
    }

    /// A WebSocket message's fields on its line: `direction` (`sent`, `received`) and `opcode`.
    static func webSocketMessageFields(_ message: HTTPEvent.StreamMessage) -> [(key: String, value: String)] {
        var fields: [(key: String, value: String)] = [("direction", message.direction == .sent ? "sent" : "received")]
        if let opcode = message.opcode {
            let name = switch opcode {
            case .text: "text"
            case .binary: "binary"
            case .close: "close"
            case .ping: "ping"
            case .pong: "pong"
            }
            fields.append(("opcode", name))
        }
        return fields
    }
}
