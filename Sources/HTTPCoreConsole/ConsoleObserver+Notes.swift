import HTTPCore

/// Everything the console prints of an exchange's GenAI facts, in one place: what an
/// interpreter of the exchange derived, read here and nowhere else in the console.
extension ConsoleObserver {
    /// Whether the answer reported an error under a success status: an LLM call whose
    /// response carried the provider's error (a 200 stream that ended with an error event).
    static func reportsErrorUnderSuccess(_ event: HTTPEvent) -> Bool {
        event.genAI?.errorType != nil
    }

    /// What ends an exchange's line: ` [LLM: <summary>]` for an LLM call, else nothing.
    static func lineNote(for event: HTTPEvent) -> String {
        event.genAI.map { " [LLM: \($0.summary)]" } ?? ""
    }

    /// What ends an exchange's blocks: `[LLM] <summary>` for an LLM call, else nothing.
    static func blockNote(for event: HTTPEvent) -> String? {
        event.genAI.map { "[LLM] \($0.summary)" }
    }

    /// The answer a streamed response carried, before the events it came in, as indented
    /// lines under its shape and message count; none for a response that is no stream.
    static func answerLines(for event: HTTPEvent, response: HTTPEvent.Response) -> [String] {
        guard event.isStreamed, let data = response.body,
            let answer = StreamAnswer(
                body: data, contentType: response.headers["Content-Type"], isBodyTruncated: response.isBodyTruncated,
                redactedBy: [event.redactor]
            )
        else { return [] }
        let label = answer.shape == .data ? "data" : answer.shape.rawValue
        return ["  answer (\(label), \(answer.messageCount) messages)\(answer.isTruncated ? ", cut" : ""):"]
            + answer.text.split(separator: "\n", omittingEmptySubsequences: false).map { "    \($0)" }
    }
}
