import Foundation
import HTTPCore
import HTTPCoreText
import HTTPCoreConcurrency

/// Ships one Loki line per HTTP exchange: subscribe it to a dispatcher, and every request of
/// every client on that dispatcher is logged.
///
/// ```swift
/// let loki = LokiLogger(configuration: LokiConfiguration(url: lokiURL, app: "checkout"))
/// dispatcher.subscribe(LokiObserver(logger: loki))
/// ```
///
/// Each exchange's terminal event becomes one line, stamped with its end time:
/// `method`, `url` (of the request that got the status, redacted by the dispatcher's policy; after redirects
/// `redirected_from` names the first request and `redirects` the statuses followed), `status`, `outcome`,
/// `duration_ms`, `request_id`, `attempt`, `correlation_id`, body sizes, `error_type` and
/// `error` when it failed, then the request's metadata (trace ids, for instance). Its
/// stream adds the labels `method`, `status_class` (`2xx` … `5xx`, `failed`, `cancelled`) and
/// `host` to the logger's own; its `level` is `info` for 1xx–3xx and cancellations, `warning`
/// for 4xx and `error` for 5xx and failures.
///
/// A streamed exchange (``/HTTPCore/HTTPClient/send(_:body:receive:isolation:)``) is one line too, at
/// its end, with the body sizes that really went through and `streamed=true`; when its
/// response carried server-sent events or JSON lines, `stream_messages` (all that arrived)
/// and `unlogged_stream_messages` (those without a line of their own) follow. Each message
/// becomes a line as it arrives, stamped with its arrival time, in a stream whose `kind` is
/// `http_message` (labels `method`, `status_class` and `host` as the exchange's; `level`
/// `info`): `method`, `url`, `status`, `request_id`, `attempt`, `correlation_id`, `index`
/// (from 0), `message_kind` (`sse` or `jsonl`), `event` and `event_id` when the event has
/// them, `message_bytes` (on the wire), `truncated=true` when the policy cut it, and `data`
/// (redacted by the policy), so `{kind="http_message"} | logfmt | request_id="42"` lists one
/// exchange's messages in order. At most ``LokiConfiguration/maxMessageLinesPerExchange``
/// per exchange, after the policy's own bound.
///
/// When the dispatcher drops events because this observer is behind, the lines of the
/// exchanges whose terminal event was among them are never made: the observer counts them
/// in ``missedLineCount`` and says so in one line to the logger's
/// ``LokiConfiguration/diagnostics`` per gap, never one per event.
public struct LokiObserver: HTTPObserver {
    /// The logger lines go to.
    public let logger: LokiLogger
    /// Queues the line of one server-sent event or JSON line, unless the exchange already had
    /// ``LokiConfiguration/maxMessageLinesPerExchange``.
    private func handleMessage(_ event: HTTPEvent) {
        guard let message = event.message, message.index < logger.configuration.maxMessageLinesPerExchange else { return }
        let (_, statusClass) = Self.outcome(of: event)
        let own = OwnRedaction(event: event, redactor: logger.configuration.redactor)
        var fields: [(key: String, value: String)] = [
            ("method", event.method.rawValue),
            ("url", own.url),
            ("status", String(event.statusCode ?? 0)),
            ("request_id", event.requestID.description),
            ("attempt", String(event.attempt)),
        ]
        if let correlation = own.correlationID { fields.append(("correlation_id", correlation)) }
        fields.append(("index", String(message.index)))
        fields.append(("message_kind", message.kind == .serverSentEvent ? "sse" : "jsonl"))
        if let type = message.eventType { fields.append(("event", own.text(type))) }
        if let id = message.eventID { fields.append(("event_id", own.text(id))) }
        fields.append(("message_bytes", String(message.byteCount)))
        if message.isTruncated { fields.append(("truncated", "true")) }
        fields.append(("data", own.messageData(message)))
        // The request's metadata (trace and span ids) on every line, as on the exchange's.
        let reserved = Set(fields.map(\.key))
        for (key, value) in own.metadata.sorted(by: { $0.key < $1.key }) where !reserved.contains(key) {
            fields.append((key, value))
        }
        logger.enqueue(
            level: .info,
            kind: "http_message",
            extraLabels: [("method", event.method.rawValue), ("status_class", statusClass), ("host", event.host ?? "")],
            fields: fields,
            date: event.timestamp
        )
    }

    /// The most bytes of a stream's answer on its exchange's line.
    static let maximumAnswerBytes = 4 * 1024

    /// Lines never made because their events were dropped; shared by copies of the observer.
    private let missedLines = Locked(0)

    /// Creates an observer shipping to `logger`.
    public init(logger: LokiLogger) {
        self.logger = logger
    }

    /// Terminal, retried and message events: the only ones that make a line.
    public var handledEventNames: Set<HTTPEvent.Name>? {
        HTTPEvent.Name.terminal.union([.responseMessage, .requestRetried])
    }

    /// Queues the line of a terminal event, of a retried attempt or of a streamed message;
    /// other events are ignored.
    public func handle(_ event: HTTPEvent) {
        if event.name == .responseMessage {
            handleMessage(event)
            return
        }
        // An exchange's line, and one per attempt that another followed.
        guard event.name.isTerminal || event.name == .requestRetried else { return }
        let (level, statusClass) = Self.outcome(of: event)
        let own = OwnRedaction(event: event, redactor: logger.configuration.redactor)
        var fields: [(key: String, value: String)] = [
            ("method", event.finalMethod.rawValue),
            ("url", own.finalURL),
            ("status", String(event.statusCode ?? 0)),
            ("outcome", String(event.name.rawValue.split(separator: ".").last ?? "")),
            ("duration_ms", event.durationMilliseconds.map { String(format: "%.1f", $0) } ?? "0"),
            ("request_id", event.requestID.description),
            ("attempt", String(event.attempt)),
        ]
        if let correlation = own.correlationID { fields.append(("correlation_id", correlation)) }
        if let redirection = event.response?.redirection {
            // The request the exchange started with, and the redirects that led to `url`.
            fields.append(("redirected_from", "\(event.method) \(own.url)"))
            fields.append(("redirects", redirection.statusCodes.isEmpty ? "unknown" : redirection.statusCodes.map(String.init).joined(separator: ",")))
        }
        fields.append(("request_bytes", String(event.requestBodyByteCount)))
        if let bytes = event.responseBodyByteCount { fields.append(("response_bytes", String(bytes))) }
        if event.isStreamed {
            fields.append(("streamed", "true"))
            if event.streamMessageCount > 0 {
                let shipped = min(event.streamMessageCount - event.droppedStreamMessageCount, max(0, logger.configuration.maxMessageLinesPerExchange))
                fields.append(("stream_messages", String(event.streamMessageCount)))
                fields.append(("unlogged_stream_messages", String(event.streamMessageCount - shipped)))
            }
            if let answer = own.streamAnswer {
                // What the stream carried, on the exchange's line; its start when long.
                let cut = answer.text.utf8.count > Self.maximumAnswerBytes
                fields.append(("answer_shape", answer.shape.rawValue))
                fields.append(("answer", cut ? UTF8Text.prefix(answer.text, maxBytes: Self.maximumAnswerBytes) + "…" : answer.text))
            }
        }
        if let error = event.error {
            fields.append(("error_type", error.typeName))
            fields.append(("error", own.text(error.description)))
        }
        let reserved = Set(fields.map(\.key))
        for (key, value) in own.metadata.sorted(by: { $0.key < $1.key }) where !reserved.contains(key) {
            fields.append((key, value))
        }
        logger.enqueue(
            level: level,
            kind: "http",
            extraLabels: [("method", event.finalMethod.rawValue), ("status_class", statusClass), ("host", event.host ?? "")],
            fields: fields,
            date: event.endedAt ?? event.timestamp
        )
    }

    /// Lines never made because the dispatcher dropped the terminal events of their
    /// exchanges, or streamed message events, while this observer was behind. The logger's
    /// ``LokiLogger/statistics`` count only the lines it accepted.
    public var missedLineCount: Int { missedLines.withLock { $0 } }

    static func outcome(of event: HTTPEvent) -> (level: LokiLevel, statusClass: String) {
        switch event.name {
        case .requestCancelled:
            return (.info, "cancelled")
        case .requestRetried:
            // An attempt that another followed: a warning, whatever it got.
            return (.warning, event.statusCode.map { HTTPResponse.Status.Kind(code: $0).label } ?? "failed")
        case .requestFailed:
            // A failure after a status (a body cut short) is a failure all the same: `{level="error"}`
            // and `{status_class="failed"}` find it; the line keeps the status that came first.
            return (.error, "failed")
        default:
            let kind = HTTPResponse.Status.Kind(code: event.statusCode ?? 0)
            let level: LokiLevel = kind == .serverError ? .error : kind == .clientError ? .warning : .info
            return (level, kind.label)
        }
    }
}
