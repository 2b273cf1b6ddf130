import Foundation
import HTTPCoreConcurrency

extension HTTPEvent {
    /// One message of a streamed response that observers see as it arrives: a server-sent
    /// event (`text/event-stream`) or a JSON line (`application/x-ndjson`,
    /// `application/jsonl`, `application/json-seq`); or one message of a WebSocket
    /// connection, either way (``direction``, ``opcode``).
    ///
    /// Carried by ``HTTPEvent/Name/responseMessage`` events, redacted by the client's policy
    /// when first read by ``/HTTPCoreRedaction/Redactor/redactedStreamData(_:isTruncated:eventType:)``: data that is JSON
    /// gets the JSON body rules, other data the text rules (a note of its size at `.strict`),
    /// and an event whose `event:` name is a secret's has its data masked.
/// Like `received`, they carry the attempt's start (``HTTPEvent/Attempt/startedAt``), so a
/// sink can place each message in time within the exchange.
    public struct StreamMessage: Sendable, Hashable {
        /// The framing a message came in.
        public enum Kind: Sendable, Hashable {
            /// A server-sent event: `data:` lines ended by a blank line.
            case serverSentEvent
            /// One line of newline-delimited JSON.
            case jsonLine
            /// One message of a WebSocket connection (``WebSocketObservation``), its fragments
            /// joined.
            case webSocket
        }

        /// Which way a message went.
        public enum Direction: Sendable, Hashable {
            /// From this process to the peer: a WebSocket message sent.
            case sent
            /// From the peer: every message of a streamed response, and a WebSocket message
            /// received.
            case received
        }

        /// A WebSocket message's type (RFC 6455, section 5.2), by its opcode.
        public enum Opcode: UInt8, Sendable, Hashable {
            /// A text message (1): UTF-8.
            case text = 1
            /// A binary message (2).
            case binary = 2
            /// A close frame (8): its data is the reason.
            case close = 8
            /// A ping (9).
            case ping = 9
            /// A pong (10).
            case pong = 10
        }

        /// The framing.
        public var kind: Kind
        /// Which way it went: ``Direction/received`` for every message of a response.
        public var direction: Direction = .received
        /// A WebSocket message's type; `nil` for a server-sent event or a JSON line.
        public var opcode: Opcode? = nil
        /// The message's position in the response, from 0.
        public var index: Int
        /// A server-sent event's `event:` field; `nil` when absent (the type is then "message").
        public var eventType: String?
        /// A server-sent event's `id:` field; `nil` when absent.
        public var eventID: String?
        /// The data: a server-sent event's `data:` lines joined by newlines, the JSON line, or
        /// a WebSocket message's payload (a binary message's in base64); redacted, and cut at
        /// the policy's ``HTTPCorePolicy/StreamMessageCapture/maxBytes`` (before base64).
        public var data: String
        /// The bytes of the message on the wire: with its framing for a response's message,
        /// the payload's for a WebSocket message.
        public var byteCount: Int
        /// Whether ``data`` was cut at the cap.
        public var isTruncated: Bool
        /// Milliseconds, on a monotonic clock, from the arrival of the previous message of the
        /// response (or connection, either way) to this one's (0 when they came in the same
        /// read); `nil` for the first,
        /// whose arrival ``HTTPEvent/timestamp`` and ``HTTPEvent/Attempt/startedAt`` place.
        public var millisecondsSincePrevious: Double?
    }
}

extension HTTPEvent.StreamMessage.Kind {
    /// The framing of the messages a body of `contentType` carries: server-sent events for
    /// `text/event-stream`, JSON lines for NDJSON, JSON Lines and JSON text sequences; `nil`
    /// for any other type, which carries no messages.
    package init?(contentType: String?) {
        guard let mediaType = contentType?.split(separator: ";").first?.trimmingCharacters(in: .whitespaces).lowercased() else {
            return nil
        }
        switch mediaType {
        case "text/event-stream": self = .serverSentEvent
        case "application/x-ndjson", "application/jsonl", "application/json-seq", "application/x-jsonlines": self = .jsonLine
        default: return nil
        }
    }
}

/// A message as it was read, and its policy-exposed form, computed once, on first read.
final class StreamMessageRecord: @unchecked Sendable {
    let raw: StreamMessageParser.Message
    let index: Int
    let millisecondsSincePrevious: Double?
    /// The client's policy, whose redactor makes the exposed form: one reference, where the
    /// redactor itself would be a retain and a release of each of its lists per message.
    let policy: SharedPolicy
    /// The exposed form once computed: read and written only under ``LockStripes``' lock for
    /// this record (which makes it `@unchecked Sendable`), so a record is one allocation.
    private var cache: HTTPEvent.StreamMessage?

    init(raw: StreamMessageParser.Message, index: Int, millisecondsSincePrevious: Double?, policy: SharedPolicy) {
        self.raw = raw
        self.index = index
        self.millisecondsSincePrevious = millisecondsSincePrevious
        self.policy = policy
    }

    var exposed: HTTPEvent.StreamMessage {
        LockStripes.field(\.cache, of: self) {
            let redactor = policy.policy.redactor
            return HTTPEvent.StreamMessage(
                kind: raw.kind, direction: raw.direction, opcode: raw.opcode, index: index,
                eventType: raw.eventType.map(redactor.redactedText), eventID: raw.eventID.map(redactor.redactedText),
                data: redactedData(by: redactor), byteCount: raw.byteCount, isTruncated: raw.isTruncated,
                millisecondsSincePrevious: millisecondsSincePrevious
            )
        }
    }

    /// The data by the stream rules; a WebSocket binary message's by the body rules for data
    /// of no declared type, in base64.
    private func redactedData(by redactor: Redactor) -> String {
        if raw.opcode == .binary {
            return redactor.redactedBody(raw.data, contentType: nil, isTruncated: raw.isTruncated).base64EncodedString()
        }
        return String(decoding: redactor.redactedStreamData(raw.data, isTruncated: raw.isTruncated, eventType: raw.eventType), as: UTF8.self)
    }
}
