import Foundation
import HTTPCore
import HTTPCoreObservation
import HTTPCoreText

extension HARExchange {
    /// The members that make a WebSocket connection's entry read as one in Chrome DevTools:
    /// `_resourceType` `websocket`; `_webSocket`, what the connection carried (`sent` and
    /// `received`, each `messages` and `bytes`, every message reported whether kept or not) and,
    /// after a close handshake, its `close` (`code`, `reason`, `initiator` `client` or
    /// `server`); and `_webSocketMessages`, the messages kept, each `type`, `time`, `opcode`,
    /// `data` in that order (``HARStreamMessage/webSocketJSON(closeCode:)``), then for a
    /// connection that failed an `error` row with the error, as DevTools adds one. The
    /// request is the handshake and the response its 101 (or the refusal), so `request.bodySize`
    /// and `response.content.size` are 0: the messages are no body. Messages not kept are
    /// counted in `_droppedStreamMessages`, as a stream's.
    var webSocketMembers: [(key: String, value: JSONValue)] {
        guard let webSocket else { return [] }
        var summary: [(key: String, value: JSONValue)] = [
            ("sent", .object([("messages", .integer(webSocket.sentMessageCount)), ("bytes", .integer(webSocket.sentByteCount))])),
            ("received", .object([("messages", .integer(webSocket.receivedMessageCount)), ("bytes", .integer(webSocket.receivedByteCount))])),
        ]
        if let close = webSocket.close {
            summary.append(("close", .object([
                ("code", .integer(close.code)),
                ("reason", .string(close.reason)),
                ("initiator", .string(close.initiator == .client ? "client" : "server")),
            ])))
        }
        var rows = messages.filter { $0.message.kind == .webSocket }.map { $0.webSocketJSON(closeCode: webSocket.close?.code) }
        if outcome == .requestFailed {
            rows.append(HARStreamMessage.webSocketErrorJSON(at: endedAt, error: error?.description ?? "unknown error"))
        }
        return [("_resourceType", "websocket"), ("_webSocket", .object(summary)), ("_webSocketMessages", .array(rows))]
    }

    /// When the exchange ended: its start plus its duration.
    private var endedAt: Date {
        startedAt.addingTimeInterval(Double(timings.total) / 1_000_000)
    }
}
