import Foundation
import HTTPCore
import HTTPCoreText

extension LokiLineBuilder {
    /// The most bytes of a stream's answer on its exchange's line.
    static let maximumAnswerBytes = 4 * 1024

    /// The line of an event ``LokiObserver`` queued: an exchange's or a retried attempt's,
    /// or a streamed message's; `nil` for any other event. Reads the event's redacted views
    /// (redacting them, once per event), so it runs on the logger's worker, never in
    /// `handle(_:)`.
    func entry(for event: HTTPEvent) -> LokiEntry? {
        if event.name == .responseMessage { return messageEntry(for: event) }
        guard event.name.isTerminal || event.name == .requestRetried else { return nil }
        let (level, statusClass) = Self.outcome(of: event)
        let own = OwnRedaction(event: event, redactor: redactor)
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
                let shipped = min(event.streamMessageCount - event.droppedStreamMessageCount, max(0, maxMessageLinesPerExchange))
                fields.append(("stream_messages", String(event.streamMessageCount)))
                fields.append(("unlogged_stream_messages", String(event.streamMessageCount - shipped)))
            }
            if let answer = own.streamAnswer {
                // What the stream carried, on the exchange's line; its start when long.
                fields.append(("answer_shape", answer.shape.rawValue))
                fields.append(("answer", UTF8Text.cut(answer.text, toBytes: Self.maximumAnswerBytes)))
            }
        }
        if let call = own.genAI { fields += Self.genAIFields(call) }
        if let error = event.error {
            fields.append(("error_type", error.typeName))
            fields.append(("error", own.text(error.description)))
        }
        appendMetadata(own, to: &fields)
        return entry(
            level: level,
            kind: "http",
            extraLabels: [("method", event.finalMethod.rawValue), ("status_class", statusClass), ("host", event.host ?? "")],
            fields: fields,
            date: event.endedAt ?? event.timestamp
        )
    }

    /// The OpenTelemetry GenAI attributes an LLM call's line carries, under the convention's
    /// names: fields of the line, never labels, so a model or a token count makes no new stream.
    static let genAIFieldNames: Set<String> = [
        "gen_ai.provider.name", "gen_ai.operation.name", "gen_ai.request.model", "gen_ai.response.model",
        "gen_ai.response.finish_reasons", "gen_ai.response.time_to_first_chunk", "gen_ai.usage.input_tokens",
        "gen_ai.usage.output_tokens",
    ]

    /// The field of an LLM call's ``/HTTPCore/GenAIExchange/errorType`` (the convention's
    /// `error.type`): under the GenAI prefix, because LogQL's `| logfmt` turns dots into
    /// underscores, and `error.type` would then read as the HTTP failure's `error_type`.
    static let genAIErrorTypeField = "gen_ai.error.type"

    /// An LLM call's main facts, in the order of its ``/HTTPCore/GenAIExchange/attributes``:
    /// `gen_ai.provider.name=anthropic … gen_ai.response.finish_reasons=stop
    /// gen_ai.response.time_to_first_chunk=0.5 gen_ai.usage.input_tokens=3097 gen_ai.usage.output_tokens=15`,
    /// then `gen_ai.error.type=overloaded_error` when the call reported an error.
    /// Several finish reasons are joined with commas; a time is in seconds, as the convention gives it.
    static func genAIFields(_ call: GenAIExchange) -> [(key: String, value: String)] {
        var fields: [(key: String, value: String)] = call.attributes.compactMap { attribute in
            guard genAIFieldNames.contains(attribute.name) else { return nil }
            let text =
                switch attribute.value {
                case .string(let value): value
                case .int(let value): String(value)
                case .double(let value): String(value)
                case .bool(let value): String(value)
                case .stringArray(let values): values.joined(separator: ",")
                }
            return (attribute.name, text)
        }
        if let errorType = call.errorType { fields.append((genAIErrorTypeField, errorType)) }
        return fields
    }

    /// The line of one server-sent event or JSON line. ``LokiObserver`` queues only the
    /// messages within ``LokiConfiguration/maxMessageLinesPerExchange``.
    private func messageEntry(for event: HTTPEvent) -> LokiEntry? {
        guard let message = event.message else { return nil }
        let (_, statusClass) = Self.outcome(of: event)
        let own = OwnRedaction(event: event, redactor: redactor)
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
        appendMetadata(own, to: &fields)
        return entry(
            level: .info,
            kind: "http_message",
            extraLabels: [("method", event.method.rawValue), ("status_class", statusClass), ("host", event.host ?? "")],
            fields: fields,
            date: event.timestamp
        )
    }

    /// The request's metadata, keys sorted, after the fields of the line (whose keys win).
    private func appendMetadata(_ own: OwnRedaction, to fields: inout [(key: String, value: String)]) {
        let reserved = Set(fields.map(\.key))
        for (key, value) in own.metadata.sorted(by: { $0.key < $1.key }) where !reserved.contains(key) {
            fields.append((key, value))
        }
    }

    /// A line's level and its stream's `status_class`.
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
            // An LLM call whose response reported an error (a 200 stream that ended with an
            // error event) failed as a 4xx does: at least a warning, whatever its status.
            guard event.genAI?.errorType != nil, level == .info else { return (level, kind.label) }
            return (.warning, kind.label)
        }
    }
}
