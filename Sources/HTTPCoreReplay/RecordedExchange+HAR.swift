import Foundation
import HTTPCore
import HTTPCoreText

extension RecordedExchange {
    /// The entries of a HAR 1.2 document, in the file's order: those this package writes and
    /// those Chrome's DevTools exports (a failed request there is status 0 with a `net::ERR_…`
    /// `_error`).
    ///
    /// - Parameters:
    ///   - data: The HAR file's bytes.
    ///   - name: The file's name, for errors.
    /// - Throws: `invalid_fixture` naming the field and the rule.
    static func entries(in data: Data, name: String) throws(HTTPError) -> [RecordedExchange] {
        let document: JSONValue
        do {
            document = try JSONValue.parse(data)
        } catch {
            throw HARField.failure(in: name, "", "is not JSON: \(error)")
        }
        let entries = try HARField(document, path: "", file: name).member("log").member("entries").elements()
        return try entries.enumerated().map { index, entry throws(HTTPError) in try RecordedExchange(index: index, entry: entry) }
    }

    private init(index: Int, entry: HARField) throws(HTTPError) {
        let request = try entry.member("request")
        let response = try entry.member("response")
        let timings = entry.optionalMember("timings")
        let headDelay = ["blocked", "dns", "connect", "send", "wait"].reduce(0.0) { sum, phase in
            sum + max(0, timings?.optionalMember(phase)?.number ?? 0) / 1000
        }
        let status = try response.member("status").integer()
        let errorText = response.optionalMember("_error")?.string ?? entry.optionalMember("_error")?.string
        let errorType = response.optionalMember("_errorType")?.string
        let recordedOutcome = entry.optionalMember("_outcome")?.string
        let failure = errorText != nil || recordedOutcome == "cancelled" || recordedOutcome == "failed"
            ? Self.error(type: errorType, text: errorText, outcome: recordedOutcome) : nil
        let recordedRequest = Request(
            method: try request.member("method").text(), url: try request.member("url").text(), headers: try request.member("headers").headers(),
            body: try request.optionalMember("postData").flatMap { postData throws(HTTPError) in try postData.bodyText(encodingKey: "_encoding") }
        )
        let outcome: Outcome
        if status > 0 {
            let startedAt = entry.optionalMember("startedDateTime")?.string.flatMap { try? Date($0, strategy: .iso8601) }
            let headAt = startedAt.map { $0.timeIntervalSince1970 + headDelay }
            let head = Response(
                statusCode: status, headers: try response.member("headers").headers(),
                pieces: try Self.pieces(of: entry, content: try response.member("content"), headAt: headAt)
            )
            outcome = failure.map { .failedAfterHead(head, $0) } ?? .response(head)
        } else {
            outcome = .failed(failure ?? Self.error(type: nil, text: nil, outcome: "failed"))
        }
        self.init(index: index, request: recordedRequest, outcome: outcome, headDelay: headDelay)
    }

    /// The body's pieces: each recorded server-sent event (written again as the stream had
    /// it) or JSON line with the time since the one before, else the content's text, whole.
    private static func pieces(of entry: HARField, content: HARField, headAt: Double?) throws(HTTPError) -> [Piece] {
        if let events = entry.optionalMember("_eventSourceMessages") {
            return try timed(events.elements(), headAt: headAt) { event throws(HTTPError) in
                var text = ""
                if let name = event.optionalMember("eventName")?.string, name != "message" { text += "event: \(name)\n" }
                if let id = event.optionalMember("eventId")?.string, !id.isEmpty { text += "id: \(id)\n" }
                for line in try event.member("data").text().split(separator: "\n", omittingEmptySubsequences: false) { text += "data: \(line)\n" }
                return text + "\n"
            }
        }
        if let lines = entry.optionalMember("_jsonLines") {
            return try timed(lines.elements(), headAt: headAt) { line throws(HTTPError) in try line.member("data").text() + "\n" }
        }
        let body = try content.bodyText(encodingKey: "encoding") ?? Data()
        return [Piece(bytes: Array(body), delay: 0)]
    }

    /// `messages` as pieces, each delayed by the time since the previous one (the first, since
    /// the head), as their `time` members say; without times, no delay.
    private static func timed(_ messages: [HARField], headAt: Double?, text: (HARField) throws(HTTPError) -> String) throws(HTTPError) -> [Piece] {
        var previous = headAt
        var pieces: [Piece] = []
        for message in messages {
            let time = message.optionalMember("time")?.number
            let delay = time.flatMap { time in previous.map { max(0, time - $0) } } ?? 0
            previous = time ?? previous
            pieces.append(Piece(bytes: Array(try text(message).utf8), delay: delay))
        }
        return pieces
    }

    /// The recorded error: this package's `_errorType` (an ``/HTTPCore/HTTPError/Code`` name)
    /// with its `_error` text, or Chrome's `net::ERR_…` read as the code it means.
    private static func error(type: String?, text: String?, outcome: String?) -> HTTPError {
        if type == "cancelled" || (type == nil && outcome == "cancelled") { return .cancelled }
        let code = type.map(HTTPError.Code.init) ?? chromeCode(text ?? "")
        // An error without a message was written as its description alone ("timed out").
        if let bare = [HTTPError.timeout, .invalidResponse].first(where: { $0.code == code && $0.description == text }) { return bare }
        // This package writes an error's description, `transport error [code]: message`:
        // the message is what follows.
        let prefix = "transport error [\(code.rawValue)]: "
        let message = text.map { $0.hasPrefix(prefix) ? String($0.dropFirst(prefix.count)) : $0 }
        return .transport(code, message: message ?? "the recorded exchange failed")
    }

    /// The code a Chrome network error means (`net::ERR_CONNECTION_REFUSED`, …).
    private static func chromeCode(_ text: String) -> HTTPError.Code {
        let codes: [(String, HTTPError.Code)] = [
            ("ERR_CONNECTION_REFUSED", .cannotConnect), ("ERR_TIMED_OUT", .timeout), ("ERR_CONNECTION_TIMED_OUT", .timeout),
            ("ERR_NAME_NOT_RESOLVED", .cannotResolveHost), ("ERR_CONNECTION_RESET", .connectionLost),
            ("ERR_CONNECTION_CLOSED", .connectionLost), ("ERR_EMPTY_RESPONSE", .connectionLost), ("ERR_INTERNET_DISCONNECTED", .notConnected),
            ("ERR_CERT_", .secureConnectionFailed), ("ERR_SSL_", .secureConnectionFailed), ("ERR_ABORTED", .cancelled),
        ]
        return codes.first { text.contains($0.0) }?.1 ?? .other
    }
}
