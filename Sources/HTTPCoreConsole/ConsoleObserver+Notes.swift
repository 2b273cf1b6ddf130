import HTTPCore

/// What the console prints of what interpreters derived from an exchange
/// (``/HTTPCore/HTTPEvent/attachments``), in one place: their notes, as the policy's redactor
/// left them, and the answer a stream carried.
extension ConsoleObserver {
    /// The notes of the event's attachments.
    private static func notes(of event: HTTPEvent) -> [HTTPExchangeNote] {
        event.attachments.isEmpty ? [] : event.notes(redactedBy: .none)
    }

    /// Whether a note reports a failure the status does not show: an LLM call whose response
    /// carried the provider's error (a 200 stream that ended with an error event).
    static func reportsErrorUnderSuccess(_ event: HTTPEvent) -> Bool {
        notes(of: event).contains(where: \.reportsFailure)
    }

    /// What ends an exchange's line: ` [<name>: <summary>]` for each note.
    static func lineNote(for event: HTTPEvent) -> String {
        notes(of: event).map { " [\($0.name): \($0.summary)]" }.joined()
    }

    /// What ends an exchange's blocks: `[<name>] <summary>` for each note, or `nil`.
    static func blockNote(for event: HTTPEvent) -> String? {
        let notes = notes(of: event)
        return notes.isEmpty ? nil : notes.map { "[\($0.name)] \($0.summary)" }.joined(separator: "\n")
    }

    /// The answer a streamed response carried, before the events it came in, as indented
    /// lines under its shape and message count; none for a response that is no stream.
    static func answerLines(for event: HTTPEvent, response: HTTPEvent.Response) -> [String] {
        guard event.isStreamed, let data = response.body,
            let answer = StreamAnswer(
                body: data, contentType: response.headers["Content-Type"], isBodyTruncated: response.isBodyTruncated,
                redactedBy: [event.redactor], readBy: event.interpreters
            )
        else { return [] }
        return ["  answer (\(answer.shape), \(answer.messageCount) messages)\(answer.isTruncated ? ", cut" : ""):"]
            + answer.text.split(separator: "\n", omittingEmptySubsequences: false).map { "    \($0)" }
    }
}
