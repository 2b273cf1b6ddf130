import Foundation
import HTTPCoreText

#if canImport(os)
import os
#endif

/// An ``HTTPObserver`` that prints readable, redacted exchanges.
///
/// ```swift
/// dispatcher.subscribe(ConsoleObserver(minimumLevel: .info, format: .blocks, body: .prettyJSON))
/// ```
///
/// Output goes to standard error on Linux and, on Apple platforms, when standard error is a
/// terminal (command-line tools, servers); otherwise to `os.Logger` (subsystem `HTTPCore`,
/// category `http`) with `.private` privacy, so URLs and bodies do not show in the unified
/// log outside debugging. A `write` closure replaces all of this. What it prints is what
/// the client's ``HTTPCorePolicy`` exposes: headers, URLs and bodies arrive redacted.
///
/// Nothing is formatted or written on the request's task: ``handle(_:)`` keeps the event in a
/// buffer of at most ``bufferLimit`` events and ``bufferByteLimit`` bytes (what the events
/// keep alive: their requests and captured bodies), and one serial dispatch queue makes the
/// text and writes it, in order (`write` runs there too). When output cannot keep up, the
/// oldest waiting events are dropped, and each overflow is reported once to
/// ``HTTPDiagnostics`` with the count. ``flush()`` (and so ``HTTPEventDispatcher/flush()``)
/// returns once what was handled before it is written, even while events keep coming;
/// copies of an observer share one buffer.
///
/// Flush before exit: a tool that exits with lines still buffered loses them, and the last
/// ones are often the failure. ``shutdown()`` writes them without `await`, for a `defer` in
/// a synchronous `main`:
///
/// ```swift
/// let console = ConsoleObserver()
/// dispatcher.subscribe(console)
/// defer { console.shutdown() }
/// ```
public struct ConsoleObserver: HTTPObserver {
    /// How important an event is; events below the observer's minimum are not printed.
    public enum Level: Int, Sendable, Hashable, Comparable, CaseIterable {
        /// Every lifecycle event.
        case debug
        /// Every completed exchange.
        case info
        /// Exchanges answered with 4xx or 5xx, LLM calls whose response reported an error
        /// (``GenAIExchange/errorType``, even under a 200 status), cancelled or failed exchanges.
        case warning
        /// Failed exchanges only.
        case error

        /// Orders levels by importance.
        public static func < (lhs: Level, rhs: Level) -> Bool { lhs.rawValue < rhs.rawValue }
    }

    /// How an exchange is laid out.
    public enum Format: Sendable, Hashable {
        /// One line per exchange: method, URL, status, duration, sizes, and for an LLM call
        /// its ``GenAIExchange/summary`` in brackets: `[LLM: gpt-4o-mini · 25 in, 15 out tokens · stop]`.
        case line
        /// `[REQUEST]` and `[RESPONSE]` blocks with headers and bodies, per exchange and per
        /// retried attempt; after redirects `[REDIRECTED]` with the route comes first, and an
        /// outcome other than the response itself comes last: `[FAILED] after status 200: …`,
        /// `[CANCELLED] after status 200`, `[RETRIED] attempt 1, another followed`,
        /// `[ATTEMPT 2] the last`. An LLM call ends with `[LLM] ` and its
        /// ``GenAIExchange/summary``: model, tokens in and out, time to the first chunk, finish.
        case blocks
    }

    /// How bodies are shown in `.blocks`.
    public enum BodyRendering: Sendable, Hashable {
        /// Only the size.
        case sizeOnly
        /// As UTF-8 text (binary bodies by size).
        case text
        /// JSON pretty-printed, other text as is.
        case prettyJSON
    }

    /// The least important level printed.
    public let minimumLevel: Level
    /// The layout.
    public let format: Format
    /// How bodies are shown.
    public let body: BodyRendering
    /// The most events waiting to be written; beyond it the oldest are dropped and reported.
    public let bufferLimit: Int
    /// The most bytes the events waiting to be written may keep alive; beyond it the oldest
    /// are dropped and reported, and an event larger than all of it is dropped itself.
    public let bufferByteLimit: Int
    private let output: ConsoleOutput

    /// The default ``bufferLimit``: 1,000 events, each holding no more than the policy's body
    /// capture allows.
    public static let defaultBufferLimit = 1000

    /// The default ``bufferByteLimit``: 16 MiB, as the package's other sinks buffer.
    public static let defaultBufferByteLimit = 16 * 1024 * 1024

    /// Creates a console observer; `write` replaces the platform's output and is called on
    /// the observer's own serial queue, one text at a time.
    public init(
        minimumLevel: Level = .info,
        format: Format = .line,
        body: BodyRendering = .sizeOnly,
        bufferLimit: Int = ConsoleObserver.defaultBufferLimit,
        bufferByteLimit: Int = ConsoleObserver.defaultBufferByteLimit,
        write: (@Sendable (String) -> Void)? = nil
    ) {
        self.minimumLevel = minimumLevel
        self.format = format
        self.body = body
        self.bufferLimit = max(1, bufferLimit)
        self.bufferByteLimit = max(1, bufferByteLimit)
        output = ConsoleOutput(
            limit: self.bufferLimit,
            byteLimit: self.bufferByteLimit,
            render: { event in
                let isExchangeEnd = event.name.isTerminal || event.name == .requestRetried
                return format == .line || !isExchangeEnd ? Self.line(for: event) : Self.blocks(for: event, body: body)
            },
            write: write ?? Self.platformOutput
        )
    }

    /// Every event at `.debug`; otherwise terminal and retried events, the only ones printed.
    public var handledEventNames: Set<HTTPEvent.Name>? {
        minimumLevel == .debug ? nil : HTTPEvent.Name.terminal.union([.requestRetried])
    }

    /// Keeps the event to be printed when its level is at least ``minimumLevel``: terminal and
    /// retried events by their outcome, the others only at `.debug`.
    public func handle(_ event: HTTPEvent) {
        guard Self.level(of: event) >= minimumLevel else { return }
        guard event.name.isTerminal || event.name == .requestRetried || minimumLevel == .debug else { return }
        output.accept(event)
    }

    /// Returns once every event handled before the call is written (or dropped and
    /// reported); events handled meanwhile do not hold it.
    public func flush() async {
        await output.flush()
    }

    /// Writes what is buffered and reports drops not yet reported, before returning, then
    /// stops: events handled later are dropped, the first of them reported. Call it last,
    /// before the process exits; it blocks the calling thread while the lines are written.
    ///
    /// - Precondition: not called from the `write` closure, whose queue it waits for.
    public func shutdown() {
        output.shutdown()
    }

    /// The level of an event: terminal events by outcome, a retried attempt `.warning`,
    /// others `.debug`. An LLM call whose response reported an error (a 200 stream that ended
    /// with the provider's error event) is a `.warning`, as an error status is.
    public static func level(of event: HTTPEvent) -> Level {
        switch event.name {
        case .requestFailed: .error
        case .requestCancelled, .requestRetried: .warning
        case .requestSucceeded:
            HTTPResponse.Status.Kind(code: event.statusCode ?? 0).isError || notes(of: event).contains(where: \.reportsFailure)
                ? .warning : .info
        default: .debug
        }
    }

    /// One line: `GET https://host/path -> 200 (12.3 ms, 0 B up, 1.2 KB down)`, `-> failed: …`,
    /// `-> 200, then failed: …` when the body broke after the status, `-> 200, then cancelled`
    /// when the caller stopped reading it;
    /// `POST https://host/a → 303 → GET https://host/b -> 200 (…)` after redirects; for a streamed
    /// message, `GET https://host/path -> message 3 token: {"t":"lo"}` (data cut at 200 bytes);
    /// a line ends with the summaries of the exchange's notes (``HTTPEvent/attachments``),
    /// `[genAI: claude-sonnet-4 · 3,097 in, 15 out tokens · stop]`.
    public static func line(for event: HTTPEvent) -> String {
        let request = event.request
        let duration = event.durationMilliseconds.map { String(format: "%.1f ms", $0) }
        let outcome: String
        if let ended = event.outcome {
            outcome = event.name == .requestRetried ? "\(ended), attempt \(event.attempt) retried" : "\(ended)"
        } else if event.name == .responseMessage, let message = event.message {
            let type = message.eventType.map { " \($0)" } ?? ""
            return "\(request.method) \(request.url) -> message \(message.index)\(type): \(UTF8Text.prefix(message.data, maxBytes: 200))"
        } else {
            outcome = event.name.rawValue
        }
        var details = [duration, "\(byteCount(event.requestBodyByteCount)) up"].compactMap { $0 }
        if let received = event.responseBodyByteCount { details.append("\(byteCount(received)) down") }
        if event.name.isTerminal, event.attempt > 1 { details.append("\(event.attempt) attempts") }
        let route = event.redirectRoute ?? "\(request.method) \(request.url)"
        let notes = notes(of: event).map { " [\($0.name): \($0.summary)]" }.joined()
        return "\(route) -> \(outcome) (\(details.joined(separator: ", ")))\(notes)"
    }

    /// The notes of the event's attachments, as its policy's redactor left them.
    private static func notes(of event: HTTPEvent) -> [HTTPExchangeNote] {
        event.attachments.isEmpty ? [] : event.notes(redactedBy: .none)
    }

    private static func blocks(for event: HTTPEvent, body: BodyRendering) -> String {
        // After redirects, the request shown is the one that got the status.
        let request = event.finalRequest
        var lines = event.redirectRoute.map { ["[REDIRECTED] \($0)"] } ?? []
        lines.append("[REQUEST] \(request.method) \(request.url)")
        lines += request.headers.map { "  \($0.name): \($0.value)" }
        lines += bodyLines(request.body, total: event.finalRequestBodyByteCount, type: request.headers["Content-Type"], rendering: body)
        if let response = event.response {
            let duration = event.durationMilliseconds.map { String(format: " (%.1f ms)", $0) } ?? ""
            lines.append("[RESPONSE] \(response.statusCode) \(response.url)\(duration)")
            lines += response.headers.map { "  \($0.name): \($0.value)" }
            if event.isStreamed, body != .sizeOnly, let data = response.body,
                let answer = StreamAnswer(
                    body: data, contentType: response.headers["Content-Type"], isBodyTruncated: response.isBodyTruncated,
                    redactedBy: [event.redactor], readBy: event.interpreters
                )
            {
                // The answer the stream carried, before the events it came in.
                let label = answer.shape
                lines.append("  answer (\(label), \(answer.messageCount) messages)\(answer.isTruncated ? ", cut" : ""):")
                lines += answer.text.split(separator: "\n", omittingEmptySubsequences: false).map { "    \($0)" }
            }
            lines += bodyLines(response.body, total: event.responseBodyByteCount ?? 0, type: response.headers["Content-Type"], rendering: body)
            if let outcome = outcomeLine(for: event, status: response.statusCode) { lines.append(outcome) }
        } else {
            lines.append("[RESPONSE] none: \(event.error?.description ?? event.name.rawValue)")
        }
        lines += notes(of: event).map { "[\($0.name)] \($0.summary)" }
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

    private static let platformOutput: @Sendable (String) -> Void = {
        let standardError: @Sendable (String) -> Void = { text in FileHandle.standardError.write(Data((text + "\n").utf8)) }
        #if canImport(os)
        // A command-line tool or a server run from a terminal reads standard error; an app's
        // lines go to the unified log, where URLs and bodies stay private unless a debugger or
        // a logging profile reveals them.
        guard isatty(STDERR_FILENO) != 1 else { return standardError }
        let logger = Logger(subsystem: "HTTPCore", category: "http")
        return { text in logger.log("\(text, privacy: .private)") }
        #else
        return standardError
        #endif
    }()
}
