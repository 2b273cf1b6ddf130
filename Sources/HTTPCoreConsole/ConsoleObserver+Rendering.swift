import Foundation
import HTTPCore
import HTTPCoreObservation
import HTTPCoreText

extension ConsoleObserver {
    /// One line: `GET https://host/path -> 200 (12.3 ms, 0 B up, 1.2 KB down)`, `-> failed: …`,
    /// `-> 200, then failed: …` when the body broke after the status, `-> 200, then cancelled`
    /// when the caller stopped reading it;
    /// `POST https://host/a → 303 → GET https://host/b -> 200 (…)` after redirects; for a streamed
    /// message, `GET https://host/path -> message 3 token: {"t":"lo"}` (data cut at 200 bytes);
    /// for a WebSocket connection, `WS wss://host/path -> 101 open`, a line per message
    /// (`WS wss://host/path → text 29 B: {"type":"subscribe"}`) and, at its end,
    /// `WS wss://host/path -> closed 1000 by client (8.2 s, sent 3 messages 120 B, received 41 messages 9.5 KB)`;
    /// an exchange's line ends with each note of what interpreters derived, its name and
    /// summary in brackets (an LLM call's `[genAI: claude-sonnet-4 · 3,097 in, 15 out tokens · stop]`).
    /// Making the notes derives what the attachments hold: call it off the request's task.
    ///
    /// - Parameter event: The event to render, as redacted as it arrived.
    /// - Returns: The line, without a line break.
    public static func line(for event: HTTPEvent) -> String {
        line(for: event, notes: notes(of: event))
    }

    /// The line of `event`, ended by `notes`, the notes of its attachments.
    static func line(for event: HTTPEvent, notes: [HTTPExchangeNote]) -> String {
        if let line = webSocketLine(for: event) { return line + lineNote(notes) }
        let request = event.request
        let duration = event.durationMilliseconds.map { String(format: "%.1f ms", $0) }
        let outcome: String
        if let ended = event.outcome {
            outcome = event.name == .requestRetried ? "\(ended), attempt \(event.attempt) retried" : "\(ended)"
        } else if event.name == .responseMessage, let message = event.message {
            let type = message.eventType.map { " \($0)" } ?? ""
            return "\(request.method) \(request.url) -> message \(message.index)\(type): \(UTF8Text.prefix(message.data, maxBytes: maximumMessageDataBytes))"
        } else {
            outcome = event.name.rawValue
        }
        var details = [duration, "\(byteCount(event.requestBodyByteCount)) up"].compactMap { $0 }
        if let received = event.responseBodyByteCount { details.append("\(byteCount(received)) down") }
        if event.name.isTerminal, event.attempt > 1 { details.append("\(event.attempt) attempts") }
        let route = event.redirectRoute ?? "\(request.method) \(request.url)"
        return "\(route) -> \(outcome) (\(details.joined(separator: ", ")))\(lineNote(notes))"
    }

    /// The text `format` makes of `event`: an exchange's end in `.blocks` as blocks, every
    /// other event as its line; `notes` are the notes of its attachments.
    static func text(for event: HTTPEvent, format: Format, body: BodyRendering, notes: [HTTPExchangeNote]) -> String {
        let isExchangeEnd = event.name.isTerminal || event.name == .requestRetried
        return format == .line || !isExchangeEnd ? line(for: event, notes: notes) : blocks(for: event, body: body, notes: notes)
    }

    private static func blocks(for event: HTTPEvent, body: BodyRendering, notes: [HTTPExchangeNote]) -> String {
        // After redirects, the request shown is the one that got the status.
        let request = event.finalRequest
        var lines = event.redirectRoute.map { ["[REDIRECTED] \($0)"] } ?? []
        lines.append("[REQUEST] \(request.method) \(request.url)")
        lines += request.headers.map { "  \($0.name): \($0.value)" }
        // A WebSocket connection's messages are no body: its summary line counts them.
        let webSocket = webSocketSummary(of: event)
        if webSocket == nil {
            lines += bodyLines(request.body, total: event.finalRequestBodyByteCount, type: request.headers["Content-Type"], rendering: body)
        }
        if let response = event.response {
            let duration = event.durationMilliseconds.map { String(format: " (%.1f ms)", $0) } ?? ""
            lines.append("[RESPONSE] \(response.statusCode) \(response.url)\(duration)")
            lines += response.headers.map { "  \($0.name): \($0.value)" }
            if let webSocket {
                lines.append("[WEBSOCKET] \(webSocket.outcome); \(webSocket.counts)")
            } else {
                if body != .sizeOnly { lines += answerLines(for: event) }
                lines += bodyLines(response.body, total: event.responseBodyByteCount ?? 0, type: response.headers["Content-Type"], rendering: body)
                if let outcome = outcomeLine(for: event, status: response.statusCode) { lines.append(outcome) }
            }
        } else {
            lines.append("[RESPONSE] none: \(event.error?.description ?? event.name.rawValue)")
            if let webSocket { lines.append("[WEBSOCKET] \(webSocket.counts)") }
        }
        if let note = blockNote(notes) { lines.append(note) }
        return lines.joined(separator: "\n")
    }

    /// The last line of a block whose exchange did not simply end with its response: a failure
    /// or cancellation after the status, or an attempt that another followed or ended.
    private static func outcomeLine(for event: HTTPEvent, status: Int) -> String? {
        switch event.name {
        case .requestFailed: "[FAILED] after status \(status): \(event.error?.description ?? "unknown error")"
        case .requestCancelled: "[CANCELLED] after status \(status)"
        case .requestRetried: "[RETRIED] attempt \(event.attempt), another followed"
        case .requestSucceeded where event.attempt > 1: "[ATTEMPT \(event.attempt)] the last"
        default: nil
        }
    }

    private static func bodyLines(_ data: Data?, total: Int, type: String?, rendering body: BodyRendering) -> [String] {
        guard total > 0 else { return [] }
        let size = "  body (\(byteCount(total)))"
        guard body != .sizeOnly, let data, let text = String(data: data, encoding: .utf8) else { return [size] }
        if body == .prettyJSON, type?.lowercased().contains("json") ?? text.hasPrefix("{"),
            let object = try? JSONSerialization.jsonObject(with: data),
            let pretty = try? JSONSerialization.data(withJSONObject: object, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])
        {
            return [size + ":"] + String(decoding: pretty, as: UTF8.self).split(separator: "\n").map { "    \($0)" }
        }
        return [size + ":", "    \(text)"]
    }

    static func byteCount(_ count: Int) -> String {
        switch count {
        case ..<1024: "\(count) B"
        case ..<(1024 * 1024): String(format: "%.1f KB", Double(count) / 1024)
        default: String(format: "%.1f MB", Double(count) / 1_048_576)
        }
    }
}
