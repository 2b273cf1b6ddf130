import Foundation

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
    /// For an LLM call's log (one with a `genAI` object): its summary, the `[genAI] ` line the
    /// logger put at the start of the response body (model, tokens in and out, time to the
    /// first chunk, finish); `nil` otherwise.
    let genAISummary: String?

    /// One server-sent event or JSON line; its data is the log's `responseBody`.
    struct Message {
        let index: Int
        let eventType: String?
        let eventID: String?
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
        guard let object = try? JSONSerialization.jsonObject(with: json) as? [String: Any] else { return nil }
        method = object["method"] as? String ?? "?"
        url = object["url"] as? String ?? "?"
        statusCode = (object["statusCode"] as? NSNumber)?.intValue ?? 0
        durationMilliseconds = (object["duration"] as? NSNumber)?.doubleValue ?? 0
        if let milliseconds = (object["timestamp"] as? NSNumber)?.doubleValue {
            date = Date(timeIntervalSince1970: milliseconds / 1000)
        } else if let text = object["timestamp"] as? String {
            let formatter = ISO8601DateFormatter()
            formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
            date = formatter.date(from: text)
        } else {
            date = nil
        }
        error = object["error"] as? String
        correlationID = object["correlationId"] as? String
        requestID = object["requestId"] as? String
        attempt = (object["attempt"] as? NSNumber)?.intValue
        requestHeaders = Self.headers(object["requestHeaders"])
        responseHeaders = Self.headers(object["responseHeaders"])
        requestBody = Self.text(object["requestBody"])
        responseBody = Self.text(object["responseBody"])
        if let message = object["streamMessage"] as? [String: Any], let index = (message["index"] as? NSNumber)?.intValue {
            self.message = Message(index: index, eventType: message["event"] as? String, eventID: message["eventId"] as? String)
        } else {
            message = nil
        }
        if object["streamed"] as? Bool == true {
            stream = Stream(
                responseBodyBytes: (object["responseBodyBytes"] as? NSNumber)?.intValue,
                messageCount: (object["streamMessageCount"] as? NSNumber)?.intValue ?? 0,
                answer: object["streamAnswer"] as? String
            )
        } else {
            stream = nil
        }
        genAISummary = object["genAI"] is [String: Any] ? Self.genAISummary(in: responseBody) : nil
    }

    /// The summary on the `[genAI] ` line among the notes (lines in brackets) that start a body.
    private static func genAISummary(in body: String?) -> String? {
        let notes = (body ?? "").split(separator: "\n", omittingEmptySubsequences: false).prefix { $0.hasPrefix("[") }
        return notes.first { $0.hasPrefix("[genAI] ") }.map { String($0.dropFirst("[genAI] ".count)) }
    }

    /// Header pairs sorted by name; values that are not strings are shown as JSON would.
    private static func headers(_ value: Any?) -> [(String, String)] {
        guard let object = value as? [String: Any] else { return [] }
        return object.map { ($0.key, $0.value as? String ?? "\($0.value)") }.sorted { $0.0.lowercased() < $1.0.lowercased() }
    }

    /// A body as text: strings as they are, other JSON values serialized.
    private static func text(_ value: Any?) -> String? {
        switch value {
        case nil, is NSNull: nil
        case let string as String: string
        case let other?:
            (try? JSONSerialization.data(withJSONObject: other, options: [.fragmentsAllowed, .sortedKeys]))
                .map { String(decoding: $0, as: UTF8.self) }
        }
    }
}
