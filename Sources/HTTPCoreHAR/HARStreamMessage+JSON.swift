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

    /// Seconds since 1970 to the millisecond.
    private var time: JSONValue {
        .thousandths(Int((receivedAt.timeIntervalSince1970 * 1000).rounded()))
    }
}
