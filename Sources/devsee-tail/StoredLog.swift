import Foundation
import HTTPCoreText

/// One log as the receiver stored it (the client's `api_log` payload with the server's `id`
/// and `timestamp`), read leniently: a field of the wrong type reads as absent.
struct StoredLog {
    let method: String
    let url: String
    let statusCode: Int
    let durationMilliseconds: Double
    /// The client's timestamp (milliseconds since 1970) or the server's arrival time.
    let date: Date?
    let error: String?
    let correlationID: String?
    let requestID: String?
    let attempt: Int?
    let requestHeaders: [(String, String)]
    let responseHeaders: [(String, String)]
    let requestBody: String?
    let responseBody: String?
    /// The message a message log shows (``DevSeeObserver`` logs each server-sent event or
    /// JSON line of a streamed response); `nil` for an exchange's log.
    let message: Message?
    /// For a streamed exchange's log: the bytes of its response body and how many messages
    /// it carried; `nil` otherwise.
    let stream: Stream?
    /// What interpreters noted about the exchange (an LLM call's `genAI` note first among
    /// them): each `[name] summary` line the logger put at the start of the response body
    /// whose name is also an object of the log, the note's attributes, in order.
    let notes: [Note]

    /// One interpreter's note: its name and its one-line summary.
    struct Note: Equatable {
        let name: String
        let summary: String
    }

    /// One server-sent event or JSON line, whose data is the log's `responseBody`; or one
    /// WebSocket message, whose data is the `requestBody` when it was sent.
    struct Message {
        let index: Int
        let eventType: String?
        let eventID: String?
        /// A WebSocket message's type (`text`, `binary`, `close`, `ping`, `pong`); `nil` for a
        /// response's message.
        var opcode: String? = nil
    }

    /// What a streamed exchange came to.
    struct Stream {
        let responseBodyBytes: Int?
        let messageCount: Int
        /// The answer the stream carried (its generated text, or its data), as the logger read it.
        let answer: String?
    }

    /// No response arrived: dev-see's 599 with an error, or the body the observer writes then.
    var isFailure: Bool {
        statusCode == 599 && (error != nil || responseBody?.hasPrefix("[no response]") == true)
    }

    /// Reads a stored entry; `nil` when it is not a JSON object.
    init?(json: Data) {
        guard let object = try? JSONValue.parse(json), case .object = object else { return nil }
        method = Self.string(object["method"]) ?? "?"
        url = Self.string(object["url"]) ?? "?"
        statusCode = Self.integer(object["statusCode"]) ?? 0
        durationMilliseconds = Self.number(object["duration"]) ?? 0
        if let milliseconds = Self.number(object["timestamp"]) {
            date = Date(timeIntervalSince1970: milliseconds / 1000)
        } else if let text = Self.string(object["timestamp"]) {
            let formatter = ISO8601DateFormatter()
            formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
            date = formatter.date(from: text)
        } else {
            date = nil
        }
        error = Self.string(object["error"])
        correlationID = Self.string(object["correlationId"])
        requestID = Self.string(object["requestId"])
        attempt = Self.integer(object["attempt"])
        requestHeaders = Self.headers(object["requestHeaders"])
        responseHeaders = Self.headers(object["responseHeaders"])
        requestBody = Self.text(object["requestBody"])
        responseBody = Self.text(object["responseBody"])
        if let message = object["streamMessage"], case .object = message, let index = Self.integer(message["index"]) {
            self.message = Message(
                index: index, eventType: Self.string(message["event"]), eventID: Self.string(message["eventId"]),
                opcode: Self.string(message["kind"]) == "websocket" ? Self.string(message["opcode"]) ?? "message" : nil
            )
        } else {
            message = nil
        }
        if object["streamed"] == true {
            stream = Stream(
                responseBodyBytes: Self.integer(object["responseBodyBytes"]),
                messageCount: Self.integer(object["streamMessageCount"]) ?? 0,
                answer: Self.string(object["streamAnswer"])
            )
        } else {
            stream = nil
        }
        // A JSON body's notes stand only in the `x-devsee-note-*` headers; a text body's lead
        // it as well: each is read once.
        let noteHeaders = responseHeaders.filter { $0.0.lowercased().hasPrefix("x-devsee-note-") }.map(\.1)
        var seen = Set<String>()
        let noteLines = (noteHeaders + Self.leadingLines(of: responseBody)).filter { seen.insert($0).inserted }
        notes = Self.notes(in: noteLines) { name in
            if case .object? = object[name] { true } else { false }
        }
    }

    private static func string(_ value: JSONValue?) -> String? {
        guard case .string(let text)? = value else { return nil }
        return text
    }

    private static func number(_ value: JSONValue?) -> Double? {
        guard case .number(let number, _)? = value, number.isFinite else { return nil }
        return number
    }

    /// A number's whole part, as a field that counts reads it.
    private static func integer(_ value: JSONValue?) -> Int? {
        number(value).flatMap { Int(exactly: $0.rounded(.towardZero)) }
    }

    /// The bracketed lines that start a body.
    private static func leadingLines(of body: String?) -> [String] {
        (body ?? "").split(separator: "\n", omittingEmptySubsequences: false).prefix { $0.hasPrefix("[") }.map(String.init)
    }

    /// The `[name] summary` lines among `lines` (note headers' values and the bracketed lines
    /// that start a body), for the names `isNote` accepts (the log's attributes objects): a
    /// line such as `[attempt 2, the last: …]` is no note.
    private static func notes(in lines: [String], isNote: (String) -> Bool) -> [Note] {
        lines.compactMap { line in
            guard let close = line.firstIndex(of: "]"), line[line.index(after: close)...].hasPrefix(" ") else { return nil }
            let name = String(line[line.index(after: line.startIndex)..<close])
            guard !name.isEmpty, !name.contains(" "), isNote(name) else { return nil }
            return Note(name: name, summary: String(line[line.index(close, offsetBy: 2)...]))
        }
    }

    /// Header pairs sorted by name; values that are not strings are shown as JSON would.
    private static func headers(_ value: JSONValue?) -> [(String, String)] {
        guard case .object(let members)? = value else { return [] }
        return members.map { ($0.key, string($0.value) ?? $0.value.serialized) }.sorted { $0.0.lowercased() < $1.0.lowercased() }
    }

    /// A body as text: strings as they are, other JSON values serialized.
    private static func text(_ value: JSONValue?) -> String? {
        switch value {
        case nil, .null?: nil
        case .string(let text)?: text
        case let other?: other.serialized
        }
    }
}
