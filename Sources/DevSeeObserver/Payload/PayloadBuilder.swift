import Foundation
import HTTPCore
import HTTPCoreObservation
import HTTPCoreText

/// Turns a captured call into an `api_log` payload that the dev-see server accepts, always.
///
/// The server's rules (see the contract): `method` and `url` non-empty strings, `statusCode`
/// a number in 100...599, `duration` a number >= 0, headers objects of strings, `error` a
/// string or absent, no `id` field, and the whole body at most 1 MiB. Every payload is
/// redacted: an exchange's fields by its client's policy (the event exposed them so), a
/// manual log's by the configured ``/HTTPCoreRedaction/Redactor``. When its bodies would not
/// fit once escaped, they are cut further, so the limit holds for any `maxBodyBytes`.
///
/// Notes about an exchange (its attempt, redirect route, error, stream summary, and each note of
/// what interpreters derived, ``/HTTPCoreObservation/HTTPExchangeNote``, such as
/// `[genAI] gpt-4o-mini · 25 in, 15 out tokens · stop`) are response headers named
/// `x-devsee-note-<kind>`, listed first, and their lines also lead the body they speak of unless
/// it is JSON (`PayloadBuilder+Notes`). A note's attributes are stored under its name, an object
/// of names to values, which the viewer does not show. Their strings come from the bodies, so
/// both are bounded (`HTTPExchangeNote.boundedForDevSee`).
///
/// A redirected exchange's row reads `POST → GET` and `<called URL> → <final URL>`, so the
/// viewer's search (the URL and the method) finds it by either.
struct PayloadBuilder: Sendable {
    /// The largest payload produced: under the server's 1 MiB limit with room to spare.
    static let maximumPayloadBytes = 1_000_000
    static let maximumURLBytes = 16 * 1024
    static let maximumHeaderNameBytes = 256
    static let maximumHeaderValueBytes = 8 * 1024
    static let maximumHeaderCount = 100
    /// The most bytes, once escaped, of each headers object.
    static let maximumHeadersBytes = 128 * 1024
    /// Keys the server's JSON parser refuses or treats specially (prototype poisoning).
    static let reservedKeys: Set<String> = ["__proto__", "constructor", "prototype"]
    static let maximumErrorBytes = 4 * 1024
    static let maximumMetadataCount = 32
    static let maximumMetadataKeyBytes = 128
    static let maximumMetadataValueBytes = 1024
    /// The most UTF-8 bytes of a note's summary and of each of its string values (a model, a
    /// response id, each stop sequence and finish reason), the `…` that marks a cut included.
    static let maximumNoteStringBytes = 256
    /// The most values of each list of a note (stop sequences, finish reasons), the `…` that
    /// marks a cut included.
    static let maximumNoteListCount = 16

    let appId: String
    /// The logger's redactor, for what the manual API captured raw.
    let redactor: Redactor

    func payload(for captured: LogEntry) -> [UInt8] {
        // An event's fields are what its client's policy exposed, redacted there: the one place
        // exchanges are redacted. Only a manual log's fields pass the logger's redactor.
        let entry = captured.redactedBy == nil ? Self.redacted(captured, by: redactor) : captured
        // The policy's reading masked what an attachment shows as it derived it.
        let notes = entry.attachments.map { $0.note(redactedBy: .none).boundedForDevSee }
        let requestRendered = entry.requestBody.map(BodyRenderer.render)
        let responseText = entry.responseBody.map(BodyRenderer.render)
        // A streamed exchange's answer, read from its masked body and masked as one text by the
        // policy's redactor, comes first.
        let answer = entry.stream == nil ? nil : entry.responseBody.flatMap { body in
            StreamAnswer(
                body: body.data, contentType: body.contentType, isBodyTruncated: body.isTruncated,
                redactedBy: entry.redactedBy ?? .none, readBy: entry.interpreters
            )
        }
        // The dev-see viewer shows no `error` and no field of ours but headers and bodies: each
        // note is a response header of its own (see `PayloadBuilder+Notes`), and its line also
        // leads the body it speaks of unless that body is JSON, which the viewer pretty-prints
        // only when it parses whole. What interpreters derived comes after the attempt and the
        // error, above the answer (see `notesLine`).
        let redirectLine = redirectNote(entry)
        let attemptLine = attemptNote(entry)
        let errorLine = errorText(entry)
        let streamLines = streamNote(entry, answer: answer)
        let webSocketLine = Self.webSocketNote(entry)
        let responseLines = Self.joined(
            Self.joined(Self.joined(Self.joined(attemptLine, webSocketLine), errorLine), notesLine(notes)), streamLines
        )
        var noteLines: [NoteLine] = []
        if let attemptLine { noteLines.append(NoteLine(kind: "attempt", text: attemptLine)) }
        if let webSocketLine { noteLines.append(NoteLine(kind: "websocket", text: webSocketLine)) }
        if let redirectLine { noteLines.append(NoteLine(kind: "redirect", text: redirectLine)) }
        if let errorLine { noteLines.append(NoteLine(kind: "error", text: errorLine)) }
        noteLines += notes.map { NoteLine(kind: $0.name, text: "[\($0.name)] \($0.summary)") }
        if let streamLines { noteLines.append(NoteLine(streamNote: streamLines)) }
        let responseHeaders = Self.headers(entry.responseHeaders, ledBy: noteLines)
        let requestText = Self.body(requestRendered, ledBy: redirectLine)
        let responseLead = Self.leadLines(responseLines, above: responseText)
        let withoutBodies = encode(
            entry, responseHeaders: responseHeaders, requestBody: nil, responseBody: nil, answer: answer, notes: notes
        ).count
        // Room for both bodies once JSON-escaped, keys and quotes included.
        let room = max(0, Self.maximumPayloadBytes - withoutBodies - 64 - (responseLead.map(JSONString.escapedLength) ?? 0))
        let sizes = (requestText.map(JSONString.escapedLength) ?? 0, responseText.map(JSONString.escapedLength) ?? 0)
        guard sizes.0 + sizes.1 > room else {
            return encode(
                entry, responseHeaders: responseHeaders, requestBody: requestText, responseBody: Self.joined(responseLead, responseText),
                answer: answer, notes: notes
            )
        }
        let requestRoom = sizes.1 <= room / 2 ? room - sizes.1 : max(room / 2, room - sizes.1)
        let responseRoom = room - min(sizes.0, requestRoom)
        return encode(
            entry,
            responseHeaders: responseHeaders,
            requestBody: requestText.map { BodyRenderer.cut($0, toEscapedLength: requestRoom, totalByteCount: entry.requestBody?.totalByteCount ?? 0) },
            responseBody: Self.joined(
                responseLead,
                responseText.map { BodyRenderer.cut($0, toEscapedLength: responseRoom, totalByteCount: entry.responseBody?.totalByteCount ?? 0) }
            ),
            answer: answer, notes: notes
        )
    }

    /// The error line above a response body, or the body alone, or the line alone.
    static func joined(_ errorLine: String?, _ body: String?) -> String? {
        guard let errorLine else { return body }
        guard let body else { return errorLine }
        return errorLine + "\n" + body
    }

    /// The entry of a manual log, whose fields were captured raw, each passed through
    /// `redactor`: the URLs, the headers, the bodies, the error, the metadata, and a
    /// correlation id masked when `redactor` masks the header it came from.
    private static func redacted(_ captured: LogEntry, by redactor: Redactor) -> LogEntry {
        var entry = captured
        entry.url = captured.url.map { redactor.redactedURL(string: $0) }
        entry.responseURL = captured.responseURL.map { redactor.redactedURL(string: $0) }
        entry.requestHeaders = redactor.redactedHeaders(captured.requestHeaders)
        entry.responseHeaders = redactor.redactedHeaders(captured.responseHeaders)
        entry.requestBody = captured.requestBody.map { redacted($0, by: redactor) }
        entry.responseBody = captured.responseBody.map { redacted($0, by: redactor) }
        entry.error = captured.error.map { redactor.redactedText($0) }
        entry.metadata = redactor.redactedMetadata(captured.metadata)
        if let correlation = captured.correlation, let name = correlation.headerName,
            redactor.redactedHeaderValue(correlation.value, name: name) == Redactor.mask
        {
            entry.correlation = (name, Redactor.mask)
        }
        entry.redactedBy = redactor
        return entry
    }

    private static func redacted(_ body: CapturedBody, by redactor: Redactor) -> CapturedBody {
        CapturedBody(
            alreadyCaptured: redactor.redactedBody(body.data, contentType: body.contentType, isTruncated: body.isTruncated),
            totalByteCount: body.totalByteCount,
            contentType: body.contentType,
            isTruncated: body.isTruncated
        )
    }

    /// The payload of an entry whose fields are already redacted.
    private func encode(
        _ entry: LogEntry, responseHeaders: HTTPHeaders, requestBody: String?, responseBody: String?, answer: StreamAnswer?,
        notes: [HTTPExchangeNote]
    ) -> [UInt8] {
        var writer = JSONWriter()
        writer.beginObject()
        let shown = Self.shownOutcome(entry, notes: notes)
        let status = shown.reportedStatus ?? 599
        let validStatus = shown.isFailure ? 599 : (100...599).contains(status) ? status : 599
        writer.string("type", "api_log")
        writer.string("appId", UTF8Text.cut(appId, toBytes: 256))
        let method = nonEmpty(UTF8Text.cut(Self.shownMethod(entry), toBytes: 64 - shown.methodSuffix.utf8.count), else: "GET")
        writer.string("method", method + shown.methodSuffix)
        writer.string("url", Self.shownURL(entry))
        writer.integer("statusCode", validStatus)
        if validStatus != status { writer.integer("reportedStatusCode", status) }
        writer.number("duration", duration(entry))
        // A message's time is its arrival; an exchange's, its start.
        let time = entry.message == nil ? Self.milliseconds(since1970: entry.startedAt) : nil
        writer.integer("timestamp", time ?? Self.milliseconds(since1970: entry.endedAt) ?? 0)
        writer.string("requestId", entry.requestID)
        if let correlation = entry.correlation { writer.string("correlationId", UTF8Text.cut(correlation.value, toBytes: 256)) }
        if let attempt = entry.attempt { writer.integer("attempt", attempt) }
        if !entry.metadata.isEmpty { writer.metadata("metadata", entry.metadata) }
        if let message = entry.message { writer.streamMessage(message) }
        if let webSocket = entry.webSocket { Self.writeWebSocket(webSocket, to: &writer) }
        if let stream = entry.stream {
            writer.key("streamed")
            writer.bool(true)
            writer.integer("requestBodyBytes", stream.requestBodyByteCount)
            if let bytes = stream.responseBodyByteCount { writer.integer("responseBodyBytes", bytes) }
            if stream.messageCount > 0 {
                writer.integer("streamMessageCount", stream.messageCount)
                writer.integer("unloggedStreamMessageCount", stream.unloggedMessageCount)
            }
            if let answer {
                // Stored, not shown by the viewer (its body starts with it): for `devsee-tail` and tools.
                writer.string("streamAnswer", answer.text)
                writer.string("streamAnswerShape", answer.shape)
            }
        }
        for note in notes {
            // Stored, not shown by the viewer (the body's `[name]` line is): for tools.
            writer.key(note.name)
            note.writeAttributes(to: &writer)
        }
        writer.headers("requestHeaders", entry.requestHeaders)
        if let requestBody { writer.string("requestBody", requestBody) }
        writer.headers("responseHeaders", responseHeaders)
        if let responseBody { writer.string("responseBody", responseBody) }
        if let error = entry.error {
            writer.string("error", nonEmpty(UTF8Text.cut(error, toBytes: Self.maximumErrorBytes), else: "error"))
        }
        writer.endObject()
        return writer.bytes
    }

    /// How the viewer's list (method chip, status chip, URL) tells what happened:
    ///
    /// | What happened | `statusCode` (chip) | `method` |
    /// |---|---|---|
    /// | a response, read to its end | its status | `GET` |
    /// | a failure after a status (a body cut short) | 599, red | `GET failed after 200` |
    /// | a failure without a response | 599, red | `GET failed` |
    /// | cancelled | 599, red | `GET cancelled`, `GET cancelled after 200` |
    /// | a note that reports a failure under a 1xx–3xx status (an LLM error in a 200 stream) | 599, red | `GET failed after 200` |
    ///
    /// A request sent more than once adds its attempt: `GET attempt 1` (a 503 that was
    /// retried), `GET attempt 2`, `GET attempt 2 failed`. A status outside 100–599, which the
    /// server refuses, is sent as 599 and said in the method: `GET status 999` (a failure
    /// already says it: `GET failed after 999`).
    ///
    /// A server's own 599 keeps the plain method. The status that came is also sent as
    /// `reportedStatusCode`, and the error (or the note's summary) above the response body. A
    /// 4xx or 5xx is red already, and keeps its status whatever its notes say.
    static func shownOutcome(_ entry: LogEntry, notes: [HTTPExchangeNote]) -> (isFailure: Bool, reportedStatus: Int?, methodSuffix: String) {
        // A request sent more than once says which attempt each row is: `GET attempt 2`.
        let attempt = entry.message == nil ? entry.attempt.map { " attempt \($0)" } ?? "" : ""
        // A status the chip cannot show (it shows 599) is said in the method chip: `GET status 999`.
        let unshownStatus = entry.statusCode.map { (100...599).contains($0) ? "" : " status \($0)" } ?? ""
        guard entry.message == nil else { return (false, entry.statusCode, attempt + unshownStatus) }
        guard let error = entry.error else {
            // A failure its status does not show (a note reports it): red, as Loki and HAR read it.
            guard let status = entry.statusCode, status < 400, notes.contains(where: \.reportsFailure) else {
                return (false, entry.statusCode, attempt + unshownStatus)
            }
            return (true, status, attempt + " failed after \(status)")
        }
        let verb = error == "cancelled" ? " cancelled" : " failed"
        return (true, entry.statusCode, attempt + verb + (entry.statusCode.map { " after \($0)" } ?? ""))
    }

    /// The first line of a redirected exchange's request body, the final request's:
    /// `[redirected: POST https://a.example/submit → 303 → GET https://a.example/done]`.
    private func redirectNote(_ entry: LogEntry) -> String? {
        guard let origin = entry.redirectedFrom else { return nil }
        let route = origin.redirection.route(from: origin.method, origin.url, to: entry.url ?? entry.responseURL ?? "")
        return "[redirected: \(route)]"
    }

    /// The first line of an attempt's body, for a request sent more than once:
    /// `[attempt 1, retried]`, or `[attempt 2, the last: the exchange took 1.4 s in all]`.
    private func attemptNote(_ entry: LogEntry) -> String? {
        guard entry.message == nil, let attempt = entry.attempt else { return nil }
        if entry.isRetriedAttempt { return "[attempt \(attempt), retried]" }
        guard let total = entry.exchangeDurationMilliseconds else { return "[attempt \(attempt), the last]" }
        return "[attempt \(attempt), the last: the exchange took \(DurationText.format(milliseconds: total)) in all]"
    }

    /// Milliseconds since 1970 for a date within ±100,000 years of it; `nil` for dates no
    /// JSON reader would take (huge, infinite, NaN).
    static func milliseconds(since1970 date: Date?) -> Int? {
        guard let date else { return nil }
        let milliseconds = (date.timeIntervalSince1970 * 1000).rounded()
        guard milliseconds.isFinite, abs(milliseconds) < 3.2e18 / 1000 else { return nil }
        return Int(milliseconds)
    }

    private func duration(_ entry: LogEntry) -> Double {
        let milliseconds = entry.durationMilliseconds
            ?? entry.startedAt.map { entry.endedAt.timeIntervalSince($0) * 1000 }
            ?? 0
        guard milliseconds.isFinite, milliseconds > 0 else { return 0 }
        guard milliseconds < 1e15 else { return 1e15 }
        return (milliseconds * 1000).rounded() / 1000
    }

    /// What the viewer shows of an error: in place of a response that never came,
    /// `[no response] timed out after 2.0 s`; above a response that came with an error (a
    /// manual log given both), `[error] <reason> after 124 ms`. Without a known start, no
    /// duration. `nil` for a response without an error. The error is already redacted.
    private func errorText(_ entry: LogEntry) -> String? {
        let hasResponse = entry.statusCode != nil
        guard !hasResponse || entry.error != nil else { return nil }
        let reason = UTF8Text.cut(entry.error ?? "failed", toBytes: Self.maximumErrorBytes)
        let prefix = hasResponse ? "[error]" : "[no response]"
        guard entry.durationMilliseconds != nil || entry.startedAt != nil else { return "\(prefix) \(reason)" }
        return "\(prefix) \(reason) after \(DurationText.format(milliseconds: duration(entry)))"
    }

    /// The lines of the exchange's notes in the viewer, which shows no other field: each
    /// note's name and summary, `[genAI] claude-sonnet-4 · 3,097 in, 15 out tokens · first chunk 500 ms · stop`.
    private func notesLine(_ notes: [HTTPExchangeNote]) -> String? {
        notes.isEmpty ? nil : notes.map { "[\($0.name)] \($0.summary)" }.joined(separator: "\n")
    }

    /// The start of a streamed response's body in the viewer, which shows no other field: how
    /// many messages it carried (and how many have no log of their own, when messages get
    /// logs), then the answer they carried (`StreamAnswer`), then `[events]`
    /// above the masked events themselves. When no answer could be assembled from them, the
    /// note says so in words (`no answer text could be assembled from them (TGI)`) instead of
    /// announcing an empty answer.
    private func streamNote(_ entry: LogEntry, answer: StreamAnswer?) -> String? {
        guard let stream = entry.stream, stream.messageCount > 0 else { return nil }
        let count = stream.messageCount
        var note = "[stream] \(count) message\(count == 1 ? "" : "s") in \(stream.responseBodyByteCount ?? 0) bytes"
        if stream.unloggedMessageCount > 0, stream.unloggedMessageCount < count {
            note += ", \(stream.unloggedMessageCount) without a log of their own"
        }
        guard let answer else { return note }
        guard !answer.isEmpty else {
            let remarks = [answer.shape == StreamAnswer.dataShape ? nil : answer.shape, answer.isTruncated ? "cut" : nil].compactMap { $0 }
            let aside = remarks.isEmpty ? "" : " (\(remarks.joined(separator: ", ")))"
            return note + ", no answer text could be assembled from them\(aside)\n\n[events]"
        }
        let label = answer.shape == StreamAnswer.dataShape ? "their data" : "the \(answer.shape) answer"
        return note + ", \(label)\(answer.isTruncated ? " (cut)" : ""):\n" + answer.text + "\n\n[events]"
    }

    private func nonEmpty(_ value: String?, else fallback: String) -> String {
        guard let value, !value.isEmpty else { return fallback }
        return value
    }

}
