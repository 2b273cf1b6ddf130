import Foundation
import HTTPCore
import HTTPCoreText

extension HARStreamMessage {
    /// A server-sent event as Chrome DevTools keeps one (the protocol's
    /// `Network.eventSourceMessageReceived`): `time` in seconds since 1970, `eventName`
    /// (`message` when the event named none), `eventId` (empty when none) and `data`; then
    /// `_truncated` when the data was cut at the client's policy cap.
    var eventSourceJSON: JSONValue {
        var members: [(key: String, value: JSONValue)] = [
            ("time", time),
            ("eventName", .string(message.eventType ?? "message")),
            ("eventId", .string(message.eventID ?? "")),
            ("data", .string(message.data)),
        ]
        if message.isTruncated { members.append(("_truncated", true)) }
        return .object(members)
    }

    /// A JSON line: `time` and `data` as for a server-sent event, and `_truncated`.
    var jsonLineJSON: JSONValue {
        var members: [(key: String, value: JSONValue)] = [("time", time), ("data", .string(message.data))]
        if message.isTruncated { members.append(("_truncated", true)) }
        return .object(members)
    }

    /// A WebSocket message as Chrome DevTools writes one in `_webSocketMessages`: `type`
    /// (`send` or `receive`), `time` in seconds since 1970, `opcode` (1 text, 2 binary, 8
    /// close, 9 ping, 10 pong) and `data` as the DevTools protocol's `payloadData` has it, a
    /// text message's text and any other payload in base64; then `_truncated` when the payload
    /// was cut at the client's policy cap.
    ///
    /// A close frame's payload is its status code, two bytes big-endian, then its reason, as
    /// on the wire: `closeCode` is the code of the connection's close, which this frame is;
    /// `nil` or 1005 (no code) leaves the reason alone.
    func webSocketJSON(closeCode: Int?) -> JSONValue {
        var members: [(key: String, value: JSONValue)] = [
            ("type", .string(message.direction == .sent ? "send" : "receive")),
            ("time", time),
            ("opcode", .integer(Int(message.opcode?.rawValue ?? 1))),
            ("data", .string(webSocketData(closeCode: closeCode))),
        ]
        if message.isTruncated { members.append(("_truncated", true)) }
        return .object(members)
    }

    /// The `error` row Chrome DevTools writes when a connection fails (`Network.webSocketFrameError`):
    /// `type` `error`, `time` of the failure, `opcode` -1 and the error's text as `data`.
    static func webSocketErrorJSON(at date: Date, error: String) -> JSONValue {
        .object([("type", "error"), ("time", secondsSince1970(date)), ("opcode", -1), ("data", .string(error))])
    }

    /// The payload as `payloadData`: the core gives a binary message's in base64 already and
    /// every other message's as text.
    private func webSocketData(closeCode: Int?) -> String {
        switch message.opcode {
        case .text?, .binary?, nil:
            return message.data
        case .close?:
            guard let closeCode, closeCode != 1005 else { return Data(message.data.utf8).base64EncodedString() }
            let code = [UInt8(truncatingIfNeeded: closeCode >> 8), UInt8(truncatingIfNeeded: closeCode)]
            return Data(code + Array(message.data.utf8)).base64EncodedString()
        case .ping?, .pong?:
            return Data(message.data.utf8).base64EncodedString()
        }
    }

    /// Seconds since 1970 to the millisecond.
    private var time: JSONValue { Self.secondsSince1970(receivedAt) }

    private static func secondsSince1970(_ date: Date) -> JSONValue {
        .thousandths(Int((date.timeIntervalSince1970 * 1000).rounded()))
    }
}
