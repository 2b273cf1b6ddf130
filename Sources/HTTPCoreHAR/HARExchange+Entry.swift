import Foundation
import HTTPCore
import HTTPCoreObservation
import HTTPCoreText

extension HARExchange {
    /// Transports do not report the protocol version; HAR requires one, so entries say
    /// HTTP/1.1, the version of the header fields they list.
    static let httpVersion = "HTTP/1.1"

    /// The HAR 1.2 `entry` object, members in the specification's order, then the custom
    /// `_` fields: `_requestId`, `_attempt`, `_outcome`, and `_correlationId` and
    /// `_metadata` when there are some; for a redirected exchange, whose `request` is the one
    /// that got the final status, `_redirectedFrom` (`method`, `url`, `statusCodes`: the request
    /// it started with and the redirects followed); for a streamed exchange `_streamed`, `_streamAnswer`
    /// (`shape`, `text`: the answer its stream carried, see `StreamAnswer`), and when its
    /// response carried messages `_streamMessageCount`, `_droppedStreamMessages` (those not
    /// in the file) and the messages: `_eventSourceMessages` for server-sent events, as
    /// Chrome DevTools' event-stream view and HAR tools that keep them write them (`time` in
    /// seconds since 1970, `eventName`, `eventId`, `data`), `_jsonLines` for JSON lines
    /// (`time`, `data`); `_truncated` marks a message cut at the policy's cap. A WebSocket
    /// connection is `_resourceType` `websocket` with its summary in `_webSocket` and its
    /// messages in `_webSocketMessages`, as Chrome DevTools writes them (see
    /// `webSocketMembers`), and no `_streamed`. Each note of
    /// what interpreters derived (``/HTTPCoreObservation/HTTPExchangeNote``) is a member `_<name>` (an LLM
    /// call's `_genAI`): its `summary` and its `attributes`, an object of their names to their
    /// values. A success whose note reports a failure its status does not show (an LLM stream
    /// the provider's error event ended, under a 200; not under a 4xx or 5xx) reads as an
    /// exchange that failed after its status: `_outcome` `failed`, the note in the `comment`,
    /// in `response.statusText` (`(failed) <name>: <summary>`) and in `response._error`, and
    /// the note's name in `response._errorType`. How failures read is the HAR article's table.
    func entry(dates: Date.ISO8601FormatStyle) -> JSONValue {
        var members: [(key: String, value: JSONValue)] = [
            ("startedDateTime", .string(dates.format(startedAt))),
            ("time", .thousandths(timings.total)),
            ("request", requestJSON),
            ("response", responseJSON(dates: dates)),
            ("cache", [:]),
            ("timings", timings.json),
        ]
        if let comment { members.append(("comment", .string(comment))) }
        members += [("_requestId", .string(requestID.description)), ("_attempt", .integer(attempt)), ("_outcome", .string(outcomeName))]
        if let correlationID { members.append(("_correlationId", .string(correlationID))) }
        if !request.metadata.isEmpty {
            members.append(("_metadata", .object(request.metadata.sorted { $0.key < $1.key }.map { ($0.key, .string($0.value)) })))
        }
        if let originalRequest, let redirection {
            members.append(("_redirectedFrom", .object([
                ("method", .string(originalRequest.method.rawValue)),
                ("url", .string(originalRequest.url)),
                ("statusCodes", .array(redirection.statusCodes.map { .integer($0) })),
            ])))
        }
        if webSocket != nil {
            members += webSocketMembers
        } else if isStreamed {
            members.append(("_streamed", true))
        }
        if isStreamed, let response, let body = response.body,
            let answer = StreamAnswer(
                body: body, contentType: response.headers["Content-Type"], isBodyTruncated: response.isBodyTruncated, redactedBy: redactor,
                readBy: interpreters
            )
        {
            // The answer the stream carried, read from the captured (masked) body and masked as one text.
            var fields: [(key: String, value: JSONValue)] = [("shape", .string(answer.shape)), ("text", .string(answer.text))]
            if answer.isTruncated { fields.append(("_truncated", true)) }
            members.append(("_streamAnswer", .object(fields)))
        }
        if streamMessageCount > 0 {
            members.append(("_streamMessageCount", .integer(streamMessageCount)))
            members.append(("_droppedStreamMessages", .integer(streamMessageCount - messages.count)))
            let events = messages.filter { $0.message.kind == .serverSentEvent }
            let lines = messages.filter { $0.message.kind == .jsonLine }
            if !events.isEmpty { members.append(("_eventSourceMessages", .array(events.map(\.eventSourceJSON)))) }
            if !lines.isEmpty { members.append(("_jsonLines", .array(lines.map(\.jsonLineJSON)))) }
        }
        for note in notes {
            members.append(("_\(note.name)", .object([("summary", .string(note.summary)), ("attributes", JSONValue(writtenBy: note.writeAttributes))])))
        }
        return .object(members)
    }

    /// The first note that reports a failure under a success status, which makes the entry
    /// read as failed; `nil` for any other outcome or an error status, which say themselves
    /// how the exchange ended.
    private var failingNote: HTTPExchangeNote? {
        guard outcome == .requestSucceeded, let response, !HTTPResponse.Status.Kind(code: response.statusCode).isError else { return nil }
        return notes.first(where: \.reportsFailure)
    }

    /// What failed, as `response._error` and the `comment` say it: the error, or the note that
    /// reports a failure, `<name>: <summary>`.
    private var failure: String {
        failingNote.map { "\($0.name): \($0.summary)" } ?? error?.description ?? "unknown error"
    }

    private var outcomeName: String {
        switch outcome {
        case .requestSucceeded: failingNote == nil ? "succeeded" : "failed"
        case .requestFailed: "failed"
        case .requestCancelled: "cancelled"
        case .requestRetried: "retried"
        default: outcome.rawValue
        }
    }

    private var comment: String? {
        let redirected = originalRequest.flatMap { original in
            redirection.map { "redirected: " + $0.route(from: original.method.rawValue, original.url, to: request.url) }
        }
        let outcomeNote: String? =
            switch outcome {
            case .requestFailed:
                response.map { "failed after status \($0.statusCode): \(failure)" } ?? "failed without a response: \(failure)"
            case .requestSucceeded where failingNote != nil:
                response.map { "failed after status \($0.statusCode): \(failure)" }
            case .requestCancelled: "cancelled before a complete response"
            case .requestRetried: "attempt \(attempt), followed by another attempt"
            default: nil
            }
        let notes = [redirected, outcomeNote].compactMap { $0 }
        return notes.isEmpty ? nil : notes.joined(separator: "; ")
    }

    // MARK: Request

    private var requestJSON: JSONValue {
        var members: [(key: String, value: JSONValue)] = [
            ("method", .string(request.method.rawValue)),
            ("url", .string(String(request.url.prefix { $0 != "#" }))),
            ("httpVersion", .string(Self.httpVersion)),
            ("cookies", .array(HARCookies.requestCookies(in: request.headers))),
            ("headers", Self.headersJSON(request.headers)),
            ("queryString", .array(URLEncodedPairs.query(of: request.url).map { .nameValue($0.name, $0.value) })),
        ]
        if let postData { members.append(("postData", postData)) }
        members += [("headersSize", -1), ("bodySize", .integer(requestBodyByteCount))]
        return .object(members)
    }

    /// The body sent, when there was one: `text` as captured (base64 with `_encoding` when it
    /// is not UTF-8 text), and `params` for a form.
    private var postData: JSONValue? {
        guard requestBodyByteCount > 0 || request.body != nil else { return nil }
        let mimeType = request.headers["Content-Type"] ?? ""
        var members: [(key: String, value: JSONValue)] = [("mimeType", .string(mimeType))]
        let body = request.body.map { Self.text(of: $0, isTruncated: request.isBodyTruncated) }
        if let body, !body.isBase64, mimeType.lowercased().hasPrefix("application/x-www-form-urlencoded") {
            let pairs = URLEncodedPairs.decode(Substring(body.text), plusIsSpace: true)
            members.append(("params", .array(pairs.map { .nameValue($0.name, $0.value) })))
        }
        members.append(("text", .string(body?.text ?? "")))
        if body?.isBase64 == true { members.append(("_encoding", "base64")) }
        members += Self.captureNotes(captured: request.body != nil, isTruncated: request.isBodyTruncated, size: requestBodyByteCount)
        return .object(members)
    }

    // MARK: Response

    private func responseJSON(dates: Date.ISO8601FormatStyle) -> JSONValue {
        guard let response else { return failedResponseJSON }
        let size = responseBodyByteCount ?? 0
        let encoding = response.headers["Content-Encoding"]?.lowercased()
        // URLSession and most transports decode compressed bodies: the size on the wire is unknown.
        let bodySize = encoding == nil || encoding == "identity" ? size : -1
        var members: [(key: String, value: JSONValue)] = [
            ("status", .integer(response.statusCode)),
            ("statusText", .string(statusText)),
            ("httpVersion", .string(Self.httpVersion)),
            ("cookies", .array(HARCookies.responseCookies(in: response.headers, dates: dates))),
            ("headers", Self.headersJSON(response.headers)),
            ("content", contentJSON(response, size: size)),
            ("redirectURL", .string(response.headers["Location"] ?? "")),
            ("headersSize", -1),
            ("bodySize", .integer(bodySize)),
        ]
        if outcome == .requestFailed {
            // The status came, then the exchange failed (a body cut short): the entry says so
            // where a failed one without a response does.
            members += [("_error", .string(failure)), ("_errorType", .string(error?.typeName ?? "unknown"))]
        } else if outcome == .requestCancelled {
            // Chrome writes the error of a request cancelled after its head too.
            members += [("_error", .string(error?.description ?? "cancelled")), ("_errorType", .string(error?.typeName ?? "cancelled"))]
        } else if let failingNote {
            // The answer under the status reported the failure: the note says what, and whose.
            members += [("_error", .string(failure)), ("_errorType", .string(failingNote.name))]
        }
        return .object(members)
    }

    /// The most UTF-8 bytes of a `statusText` that says why the exchange failed, its `…` included.
    static let maximumStatusTextBytes = 256

    /// The `statusText` of an entry whose response head came: empty for an exchange that ended
    /// well (transports do not report the reason phrase); for one that failed after its head
    /// (a body cut short, or a note that reports a failure) `(failed) ` and what failed, and
    /// `(cancelled)` for one cancelled after it, as Chrome DevTools labels such requests in its
    /// Network panel. Chrome keeps the status that came and adds `_error`; HAR viewers show
    /// `status` and `statusText` side by side, so the line reads `200 (failed) …`.
    private var statusText: String {
        switch outcome {
        case .requestFailed: failedStatusText
        case .requestSucceeded: failingNote == nil ? "" : failedStatusText
        case .requestCancelled: "(cancelled)"
        default: ""
        }
    }

    private var failedStatusText: String {
        UTF8Text.cut("(failed) " + failure, toBytes: Self.maximumStatusTextBytes - TruncationMarker.ellipsis.utf8.count)
    }

    /// The body received: `text` as captured, base64 with `encoding` when it is not UTF-8 text.
    private func contentJSON(_ response: HTTPEvent.ExposedResponse, size: Int) -> JSONValue {
        var members: [(key: String, value: JSONValue)] = [("size", .integer(size)), ("mimeType", .string(response.headers["Content-Type"] ?? ""))]
        let body = response.body.map { Self.text(of: $0, isTruncated: response.isBodyTruncated) }
        members.append(("text", .string(body?.text ?? "")))
        if body?.isBase64 == true { members.append(("encoding", "base64")) }
        members += Self.captureNotes(captured: response.body != nil, isTruncated: response.isBodyTruncated, size: size)
        return .object(members)
    }

    /// No response: status 0 and an empty `statusText`, as Chrome DevTools writes a request that
    /// failed or was cancelled before a response, and the error, scrubbed by the policy, in
    /// `_error` (its description, where Chrome writes its `net::ERR_…` text) and `_errorType`
    /// (``/HTTPCore/HTTPError/typeName``).
    private var failedResponseJSON: JSONValue {
        [
            "status": 0,
            "statusText": "",
            "httpVersion": "",
            "cookies": [],
            "headers": [],
            "content": ["size": 0, "mimeType": "", "text": ""],
            "redirectURL": "",
            "headersSize": -1,
            "bodySize": -1,
            "_error": .string(error?.description ?? "unknown error"),
            "_errorType": .string(error?.typeName ?? "unknown"),
        ]
    }

    // MARK: Shared

    private static func headersJSON(_ headers: HTTPHeaders) -> JSONValue {
        .array(headers.map { .nameValue($0.name, $0.value) })
    }

    /// A body as HAR text: UTF-8 text as it is (a cut body may lose a character split by the
    /// cut), anything else (or text with NUL bytes) in base64.
    private static func text(of body: Data, isTruncated: Bool) -> (text: String, isBase64: Bool) {
        if let text = UTF8Text.decode(body, isCut: isTruncated), !text.contains("\0") { return (text, false) }
        return (body.base64EncodedString(), true)
    }

    /// A `comment` (and `_truncated`) saying when the text is not the whole body.
    private static func captureNotes(captured: Bool, isTruncated: Bool, size: Int) -> [(key: String, value: JSONValue)] {
        if !captured, size > 0 {
            return [("comment", .string("body of \(size) bytes not captured: the client's HTTPCorePolicy omits bodies"))]
        }
        guard isTruncated else { return [] }
        return [
            ("comment", .string("body of \(size) bytes cut at the client's HTTPCorePolicy capture limit: text is its beginning")),
            ("_truncated", true),
        ]
    }
}
