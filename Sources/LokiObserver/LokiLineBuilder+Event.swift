import Foundation
import HTTPCore
import HTTPCoreObservation
import HTTPCoreText

extension LokiLineBuilder {
    /// The most bytes of a stream's answer on its exchange's line.
    static let maximumAnswerBytes = 4 * 1024

    /// The line of an event ``LokiObserver`` queued: an exchange's or a retried attempt's,
    /// or a streamed message's; `nil` for any other event. Its fields are the event's redacted
    /// views, as the client's policy exposes them (the logger's redactor is for plain
    /// messages); reading them redacts them, once per event, so it runs on the logger's
    /// worker, never in `handle(_:)`.
    func entry(for event: HTTPEvent) -> LokiEntry? {
        if event.name == .responseMessage { return messageEntry(for: event) }
        guard event.name.isTerminal || event.name == .requestRetried else { return nil }
        // Made once: a note derives what its attachment holds, and rates the line too. The
        // policy's reading masked what it shows as it derived it.
        let notes = event.attachments.isEmpty ? [] : event.notes(redactedBy: .none)
        var (level, statusClass, outcome) = Self.outcome(of: event, notes: notes)
        if level == .info, Self.isAbnormal(event.webSocket?.close) { level = .warning }
        var fields: [(key: String, value: String)] = [
            ("method", event.finalMethod.rawValue),
            ("url", event.finalURL),
            ("status", String(event.statusCode ?? 0)),
            ("outcome", outcome),
            ("duration_ms", event.durationMilliseconds.map { String(format: "%.1f", $0) } ?? "0"),
            ("http_request_id", event.requestID.description),
            ("attempt", String(event.attempt)),
        ]
        if let correlation = event.correlationID { fields.append(("correlation_id", correlation)) }
        if let redirection = event.response?.redirection {
            // The request the exchange started with, and the redirects that led to `url`.
            fields.append(("redirected_from", "\(event.method) \(event.requestURL)"))
            fields.append(("redirects", redirection.statusCodes.isEmpty ? "unknown" : redirection.statusCodes.map(String.init).joined(separator: ",")))
        }
        fields.append(("request_bytes", String(event.requestBodyByteCount)))
        if let bytes = event.responseBodyByteCount { fields.append(("response_bytes", String(bytes))) }
        if let webSocket = event.webSocket {
            fields += webSocketFields(webSocket, of: event)
        } else if event.isStreamed {
            fields.append(("streamed", "true"))
            if event.streamMessageCount > 0 {
                let shipped = min(event.streamMessageCount - event.droppedStreamMessageCount, max(0, maxMessageLinesPerExchange))
                fields.append(("stream_messages", String(event.streamMessageCount)))
                fields.append(("unlogged_stream_messages", String(event.streamMessageCount - shipped)))
            }
            if let answer = event.streamAnswer {
                // What the stream carried, on the exchange's line; its start when long.
                fields.append(("answer_shape", answer.shape))
                fields.append(("answer", UTF8Text.cut(answer.text, toBytes: Self.maximumAnswerBytes)))
            }
        }
        if !notes.isEmpty {
            // The line's own keys, the error's that follow included.
            let reserved = Set(fields.map(\.key)).union(["error_type", "error"])
            for note in notes { fields += Self.noteFields(note, besides: reserved) }
        }
        if let error = event.error {
            fields.append(("error_type", error.typeName))
            fields.append(("error", error.description))
        }
        appendMetadata(event.metadata, to: &fields)
        return entry(
            level: level,
            kind: "http",
            extraLabels: [("method", event.finalMethod.rawValue), ("status_class", statusClass), ("host", event.host ?? "")],
            fields: fields,
            date: event.endedAt ?? event.timestamp
        )
    }

    /// The fields a note's attributes make on the exchange's line, under their own names, in
    /// their order: `gen_ai.provider.name=anthropic … gen_ai.usage.output_tokens=15`. Fields,
    /// never labels, so a model or a token count makes no new stream. A list is joined with
    /// commas. An attribute that LogQL's `| logfmt` (which turns dots into underscores) would
    /// read as one of the line's own `reserved` fields (`error.type` as `error_type`) is written under the
    /// note's name, in snake case: `gen_ai.error.type`.
    static func noteFields(_ note: HTTPExchangeNote, besides reserved: Set<String>) -> [(key: String, value: String)] {
        note.attributes.map { attribute in
            let flattened = attribute.name.replacingOccurrences(of: ".", with: "_")
            let key = reserved.contains(flattened) ? "\(snakeCased(note.name)).\(attribute.name)" : attribute.name
            return (key, attribute.value.text)
        }
    }

    /// `genAI` as `gen_ai`: a lowercase letter followed by an uppercase one gets an underscore
    /// between, and the whole is lowercased.
    static func snakeCased(_ name: String) -> String {
        var result = ""
        var previousIsLower = false
        for character in name {
            if character.isUppercase, previousIsLower { result.append("_") }
            previousIsLower = character.isLowercase
            result += character.lowercased()
        }
        return result
    }

    /// The line of one server-sent event, JSON line or WebSocket message. ``LokiObserver`` queues only the
    /// messages within ``LokiConfiguration/maxMessageLinesPerExchange``.
    private func messageEntry(for event: HTTPEvent) -> LokiEntry? {
        guard let message = event.message else { return nil }
        let (_, statusClass, _) = Self.outcome(of: event, notes: [])
        var fields: [(key: String, value: String)] = [
            ("method", event.method.rawValue),
            ("url", event.requestURL),
            ("status", String(event.statusCode ?? 0)),
            ("http_request_id", event.requestID.description),
            ("attempt", String(event.attempt)),
        ]
        if let correlation = event.correlationID { fields.append(("correlation_id", correlation)) }
        fields.append(("index", String(message.index)))
        fields.append(("message_kind", message.kind == .serverSentEvent ? "sse" : message.kind == .webSocket ? "websocket" : "jsonl"))
        if message.kind == .webSocket { fields += Self.webSocketMessageFields(message) }
        if let type = message.eventType { fields.append(("event", type)) }
        if let id = message.eventID { fields.append(("event_id", id)) }
        fields.append(("message_bytes", String(message.byteCount)))
        if message.isTruncated { fields.append(("truncated", "true")) }
        fields.append(("data", message.data))
        // The request's metadata (trace and span ids) on every line, as on the exchange's.
        appendMetadata(event.metadata, to: &fields)
        return entry(
            level: .info,
            kind: "http_message",
            extraLabels: [("method", event.method.rawValue), ("status_class", statusClass), ("host", event.host ?? "")],
            fields: fields,
            date: event.timestamp
        )
    }

    /// The request's metadata, as the policy exposed it, keys sorted, after the fields of the
    /// line: `request_id` (a server's incoming request id) lands as `request_id`.
    private func appendMetadata(_ metadata: [String: String], to fields: inout [(key: String, value: String)]) {
        Self.appendMetadata(metadata.sorted(by: { $0.key < $1.key }), to: &fields)
    }

    /// Appends `metadata` to a line's `fields` under its own keys, except a key that is one of
    /// the line's fields, or that LogQL's `| logfmt` would read as one (dots become
    /// underscores: `duration.ms` is `duration_ms`): that one is written as `metadata.<key>`
    /// (`metadata.url=…`), never dropped, never overwriting the line's own.
    static func appendMetadata(_ metadata: [(key: String, value: String)], to fields: inout [(key: String, value: String)]) {
        guard !metadata.isEmpty else { return }
        var taken = Set(fields.map { flattened($0.key) })
        for (key, value) in metadata {
            var name = key
            while taken.contains(flattened(name)) { name = "metadata." + name }
            taken.insert(flattened(name))
            fields.append((name, value))
        }
    }

    /// A key as LogQL's `| logfmt` names it: dots become underscores.
    private static func flattened(_ key: String) -> String {
        key.replacingOccurrences(of: ".", with: "_")
    }

    /// A line's level, its stream's `status_class` and its `outcome` field (the step the event
    /// ends with: `succeeded`, `failed`, `cancelled`, `retried`); `notes` are the notes of the
    /// event's attachments (a message event has none).
    static func outcome(of event: HTTPEvent, notes: [HTTPExchangeNote]) -> (level: LokiLevel, statusClass: String, outcome: String) {
        let step = String(event.name.rawValue.split(separator: ".").last ?? "")
        switch event.name {
        case .requestCancelled:
            return (.info, "cancelled", step)
        case .requestRetried:
            // An attempt that another followed: a warning, whatever it got, and `retried` even
            // when it got no status (a reset connection), so that it reads as one attempt of many.
            return (.warning, event.statusCode.map { HTTPResponse.Status.Kind(code: $0).label } ?? "failed", step)
        case .requestFailed:
            // A failure after a status (a body cut short) is a failure all the same: `{level="error"}`
            // and `{status_class="failed"}` find it; the line keeps the status that came first.
            return (.error, "failed", step)
        default:
            let kind = HTTPResponse.Status.Kind(code: event.statusCode ?? 0)
            let level: LokiLevel = kind == .serverError ? .error : kind == .clientError ? .warning : .info
            // An exchange whose note reports a failure its status does not show (an LLM call
            // whose 200 stream ended with an error event) failed after its status, as a body
            // cut short did: `outcome=failed`, `{level="error"}`, `{status_class="failed"}`, as
            // dev-see's row and the HAR entry read it. A 4xx or 5xx already says so.
            guard level == .info, notes.contains(where: \.reportsFailure) else {
                return (level, kind.label, step)
            }
            return (.error, "failed", "failed")
        }
    }
}
