import Foundation
import HTTPCore
import HTTPCoreText

/// Renders a stored log as `devsee-tail` prints it: one line per exchange, and with
/// `verbose` its headers and bodies below, indented.
///
///     10:42:07.118  GET     200   124 ms  https://api.example.com/users/42  corr 8F2C…
///     10:42:07.502  POST    failed  2.0 s  https://api.example.com/orders  (timed out)
///     10:42:07.731  GET     200    18 ms  https://api.example.com/feed  (decoding failed)
///
/// Each server-sent event or JSON line of a streamed response gets a line as it arrives:
/// `#` and its index in place of the status, the time since the request started, the event
/// type in brackets, the data on one line (newlines shown as `\n`, cut at
/// ``maximumMessageBytes`` unless verbose), and the request id that ties it to the
/// exchange's line, which ends the stream with its message count and body size:
///
///     10:42:08.204  POST    #0      312 ms  https://api.example.com/v1/chat  [token] {"t":"Hel"}  req 7
///     10:42:08.251  POST    #1      359 ms  https://api.example.com/v1/chat  [token] {"t":"lo"}  req 7
///     10:42:08.260  POST    200     368 ms  https://api.example.com/v1/chat  req 7  streamed 2 messages, 64 bytes
///
/// A WebSocket connection (method `WS`, status 101) shows as the line of its opening and the
/// line of its end, whose note gives its close and what went each way; with `verbose`, its
/// messages below, one a line. A message's own line, when the logger sends them, has its
/// direction in the method and its opcode in brackets:
///
///     10:42:09.001  WS      101       12 ms  wss://rt.example.com/live  websocket: open: messages flow; …
///     10:42:09.050  WS ↑    #0        49 ms  wss://rt.example.com/live  [text] {"type":"subscribe"}  req 9
///     10:42:39.120  WS      101     30.1 s  wss://rt.example.com/live  websocket: closed 1000 by the client after 30.1 s · ↑ 2 messages, 40 bytes · ↓ 3 messages, 18 bytes
///
/// What interpreters noted shows before the stream's counts and answer, each note as its name
/// and summary; an LLM call's: `genAI: claude-sonnet-4 · 3,097 in, 15 out tokens · first chunk 500 ms · stop`.
struct LogLineFormatter {
    let usesColor: Bool
    let isVerbose: Bool

    /// The most bytes of a message's data on its line, unless verbose.
    static let maximumMessageBytes = 512

    func format(_ log: StoredLog) -> String {
        if let message = log.message { return format(message, of: log) }
        var parts = [timeText(log.date), paint(pad(log.method, 6), .bold), statusText(log), pad(DurationText.format(milliseconds: log.durationMilliseconds), 8, left: true), log.url]
        if let error = log.error { parts.append(paint("(\(error))", .red)) }
        if log.stream != nil, let requestID = log.requestID { parts.append(paint("req \(requestID)", .dim)) }
        if let correlation = log.correlationID { parts.append(paint("corr \(correlation)", .dim)) }
        if let attempt = log.attempt { parts.append(paint("attempt \(attempt)", .dim)) }
        for note in log.notes { parts.append(paint("\(note.name): ", .cyan) + note.summary) }
        if let stream = log.stream {
            var note = "streamed"
            if stream.messageCount > 0 { note += " \(stream.messageCount) message\(stream.messageCount == 1 ? "" : "s")," }
            if let bytes = stream.responseBodyBytes { note += " \(bytes) bytes" }
            parts.append(paint(note, .dim))
            if let answer = stream.answer {
                // The answer on the exchange's line, one line, cut unless verbose.
                var text = answer.replacingOccurrences(of: "\r", with: "\\r").replacingOccurrences(of: "\n", with: "\\n")
                if !isVerbose { text = UTF8Text.cut(text, toBytes: Self.maximumMessageBytes) }
                parts.append(paint("answer: ", .cyan) + text)
            }
        }
        var lines = [parts.joined(separator: "  ")]
        if isVerbose {
            lines += block(log.requestHeaders, body: log.requestBody, marker: ">")
            lines += block(log.responseHeaders, body: log.isFailure ? nil : log.responseBody, marker: "<")
        }
        return lines.joined(separator: "\n")
    }

    /// One message's line.
    private func format(_ message: StoredLog.Message, of log: StoredLog) -> String {
        let suffix = "#message-\(message.index)"
        let url = log.url.hasSuffix(suffix) ? String(log.url.dropLast(suffix.count)) : log.url
        var data = (log.responseBody ?? log.requestBody ?? "").replacingOccurrences(of: "\r", with: "\\r").replacingOccurrences(of: "\n", with: "\\n")
        if !isVerbose { data = UTF8Text.cut(data, toBytes: Self.maximumMessageBytes) }
        if let type = message.eventType ?? message.opcode { data = paint("[\(type)]", .cyan) + " " + data }
        // The logger writes a message's method as `POST #3` for the viewer's list; the index has a column here.
        let indexSuffix = " #\(message.index)"
        let method = log.method.hasSuffix(indexSuffix) ? String(log.method.dropLast(indexSuffix.count)) : log.method
        var parts = [
            timeText(log.date), paint(pad(method, 6), .bold), paint(pad("#\(message.index)", 6), .dim),
            pad(DurationText.format(milliseconds: log.durationMilliseconds), 8, left: true), url, data,
        ]
        if let requestID = log.requestID { parts.append(paint("req \(requestID)", .dim)) }
        if let correlation = log.correlationID { parts.append(paint("corr \(correlation)", .dim)) }
        return parts.joined(separator: "  ")
    }

    private func block(_ headers: [(String, String)], body: String?, marker: String) -> [String] {
        var lines = headers.map { paint("    \(marker) ", .dim) + "\($0.0): \($0.1)" }
        if let body, !body.isEmpty {
            lines += body.split(separator: "\n", omittingEmptySubsequences: false).map { paint("    \(marker) ", .dim) + "  " + $0 }
        }
        return lines
    }

    private func statusText(_ log: StoredLog) -> String {
        guard !log.isFailure else { return paint(pad("failed", 6), .red) }
        let color: Color
        switch HTTPResponse.Status.Kind(code: log.statusCode) {
        case .successful: color = .green
        case .redirection, .informational: color = .cyan
        case .clientError: color = .yellow
        default: color = .red
        }
        return paint(pad(String(log.statusCode), 6), color)
    }

    private func timeText(_ date: Date?) -> String {
        guard let date else { return "--:--:--.---" }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = .current
        let parts = calendar.dateComponents([.hour, .minute, .second, .nanosecond], from: date)
        return String(
            format: "%02d:%02d:%02d.%03d", parts.hour ?? 0, parts.minute ?? 0, parts.second ?? 0, (parts.nanosecond ?? 0) / 1_000_000
        )
    }

    private func pad(_ text: String, _ width: Int, left: Bool = false) -> String {
        let padding = String(repeating: " ", count: max(0, width - text.count))
        return left ? padding + text : text + padding
    }

    private enum Color: String {
        case bold = "1", dim = "2", red = "31", green = "32", yellow = "33", cyan = "36"
    }

    private func paint(_ text: String, _ color: Color) -> String {
        usesColor ? "\u{1B}[\(color.rawValue)m\(text)\u{1B}[0m" : text
    }
}
