import HTTPCoreObservation
import HTTPCoreText

/// How a WebSocket connection's rows read in the dev-see viewer, which shows only the method,
/// URL, status, duration, headers and bodies: method `WS`, its `ws`/`wss` URL, status 101, and
/// a note `x-devsee-note-websocket` that also leads the body.
extension PayloadBuilder {
    /// The connection's note: `[websocket] open: a closing row with its messages follows when
    /// it ends`, or `[websocket] closed 1000 "bye" by the server after 2.0 s · ↑ 2 messages,
    /// 40 bytes · ↓ 3 messages, 18 bytes`, with the messages its row does not list.
    static func webSocketNote(_ entry: LogEntry) -> String? {
        guard let log = entry.webSocket else { return nil }
        guard let summary = log.summary else {
            return "[websocket] open: messages flow; a closing row with its messages follows when the connection ends"
        }
        var note = "[websocket] "
        if let close = summary.close {
            let reason = close.reason.isEmpty ? "" : " \"\(UTF8Text.cut(close.reason, toBytes: 123))\""
            note += "closed \(close.code)\(reason) by the \(close.initiator == .client ? "client" : "server")"
        } else if entry.statusCode == 101 {
            note += entry.error == "cancelled" ? "cancelled without a close handshake" : "ended without a close handshake"
        } else {
            note += "never opened"
        }
        if entry.statusCode == 101 { note += " after \(DurationText.format(milliseconds: entry.durationMilliseconds ?? 0))" }
        note += " · ↑ \(count(summary.sentMessageCount, "message")), \(count(summary.sentByteCount, "byte"))"
        note += " · ↓ \(count(summary.receivedMessageCount, "message")), \(count(summary.receivedByteCount, "byte"))"
        if log.unlistedMessageCount > 0 { note += " · \(count(log.unlistedMessageCount, "message")) not listed" }
        return note
    }

    /// The `websocket` object of a connection's row, stored and not shown by the viewer (its
    /// note is): for `devsee-tail` and tools.
    static func writeWebSocket(_ log: LogEntry.WebSocketLog, to writer: inout JSONWriter) {
        writer.key("websocket")
        writer.beginObject()
        guard let summary = log.summary else {
            writer.string("state", "open")
            writer.endObject()
            return
        }
        writer.string("state", summary.close == nil ? "failed" : "closed")
        writer.integer("sentMessages", summary.sentMessageCount)
        writer.integer("sentBytes", summary.sentByteCount)
        writer.integer("receivedMessages", summary.receivedMessageCount)
        writer.integer("receivedBytes", summary.receivedByteCount)
        writer.integer("unlistedMessages", log.unlistedMessageCount)
        if let close = summary.close {
            writer.integer("closeCode", close.code)
            writer.string("closeReason", UTF8Text.cut(close.reason, toBytes: 256))
            writer.string("closedBy", close.initiator == .client ? "client" : "server")
        }
        writer.endObject()
    }

    private static func count(_ value: Int, _ noun: String) -> String {
        "\(value) \(noun)\(value == 1 ? "" : "s")"
    }
}
