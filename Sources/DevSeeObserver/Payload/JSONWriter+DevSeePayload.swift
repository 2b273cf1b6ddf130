import HTTPCore
import HTTPCoreText

/// The members of a dev-see payload, written with the package's ``JSONWriter``.
extension JSONWriter {
    /// Writes a `"name": "value"` member.
    mutating func string(_ name: String, _ value: String) {
        key(name)
        string(value)
    }

    /// Writes a `"name": value` member with an integer value.
    mutating func integer(_ name: String, _ value: Int) {
        key(name)
        integer(value)
    }

    /// Writes a `"name": value` member with a number value.
    mutating func number(_ name: String, _ value: Double) {
        key(name)
        number(value)
    }

    /// Header fields as an object of strings: names that differ only in case are merged,
    /// keeping the first spelling, and repeated values are joined. Names and values are cut,
    /// reserved keys are left out, and fields stop before the object's byte budget.
    mutating func headers(_ name: String, _ headers: HTTPHeaders) {
        key(name)
        beginObject()
        var seen = Set<String>()
        var used = 2
        for field in headers where seen.insert(field.name.lowercased()).inserted {
            guard seen.count <= PayloadBuilder.maximumHeaderCount else { break }
            let fieldName = UTF8Text.cut(field.name, toBytes: PayloadBuilder.maximumHeaderNameBytes)
            guard !PayloadBuilder.reservedKeys.contains(fieldName) else { continue }
            let value = UTF8Text.cut(headers[field.name] ?? "", toBytes: PayloadBuilder.maximumHeaderValueBytes)
            let cost = JSONString.escapedLength(fieldName) + JSONString.escapedLength(value) + 6
            guard used + cost <= PayloadBuilder.maximumHeadersBytes else { break }
            used += cost
            string(fieldName, value)
        }
        endObject()
    }

    /// Metadata as an object of strings, sorted by key: at most
    /// ``PayloadBuilder/maximumMetadataCount`` entries, keys and values cut, reserved keys
    /// left out.
    mutating func metadata(_ name: String, _ metadata: [String: String]) {
        key(name)
        beginObject()
        var seen = Set<String>()
        for key in metadata.keys.sorted().prefix(PayloadBuilder.maximumMetadataCount) {
            let cutKey = UTF8Text.cut(key, toBytes: PayloadBuilder.maximumMetadataKeyBytes)
            guard !PayloadBuilder.reservedKeys.contains(cutKey), seen.insert(cutKey).inserted else { continue }
            string(cutKey, UTF8Text.cut(metadata[key] ?? "", toBytes: PayloadBuilder.maximumMetadataValueBytes))
        }
        endObject()
    }

    /// A message log's `streamMessage` object: `index`, `kind` (`sse`, `jsonl` or `websocket`,
    /// with a WebSocket message's `direction` and `opcode`), and for a server-sent event its `event` and `eventId` when present (cut), then `byteCount`, the
    /// message's bytes on the wire.
    mutating func streamMessage(_ message: LogEntry.StreamMessageLog) {
        key("streamMessage")
        beginObject()
        integer("index", message.index)
        string("kind", message.kind == .serverSentEvent ? "sse" : message.kind == .webSocket ? "websocket" : "jsonl")
        if let webSocket = message.webSocket {
            string("direction", webSocket.direction == .sent ? "sent" : "received")
            if let opcode = webSocket.opcode { string("opcode", opcode.name) }
        }
        if let type = message.eventType { string("event", UTF8Text.cut(type, toBytes: 256)) }
        if let id = message.eventID { string("eventId", UTF8Text.cut(id, toBytes: 256)) }
        integer("byteCount", message.byteCount)
        endObject()
    }
}
