import Foundation
import HTTPCore
import HTTPCoreObservation

/// What the console shows of what interpreters derived from an exchange
/// (``/HTTPCoreObservation/HTTPEvent/attachments``), in one place: their notes, as the policy's redactor
/// left them, and the answer a stream carried.
///
/// Making a note derives what its attachment holds (an LLM call's facts are parsed from its
/// bodies), so notes are made once per event, by the writer on the console's queue, and
/// passed to what renders and rates the event; ``ConsoleObserver/handle(_:)`` never makes one.
extension ConsoleObserver {
    /// The notes of the event's attachments; none without attachments, at no cost.
    static func notes(of event: HTTPEvent) -> [HTTPExchangeNote] {
        event.attachments.isEmpty ? [] : event.notes(redactedBy: .none)
    }

    /// What ends an exchange's line: ` [<name>: <summary>]` for each note.
    static func lineNote(_ notes: [HTTPExchangeNote]) -> String {
        notes.map { " [\($0.name): \($0.summary)]" }.joined()
    }

    /// What ends an exchange's blocks: `[<name>] <summary>` for each note, or `nil`.
    static func blockNote(_ notes: [HTTPExchangeNote]) -> String? {
        notes.isEmpty ? nil : notes.map { "[\($0.name)] \($0.summary)" }.joined(separator: "\n")
    }

    /// The answer a streamed response carried, before the events it came in, as indented
    /// lines under its shape and message count; none for a response that is no stream.
    static func answerLines(for event: HTTPEvent) -> [String] {
        guard let answer = event.streamAnswer else { return [] }
        let heading = "  answer (\(answer.shape), \(answer.messageCount) messages)\(answer.isTruncated ? ", cut" : "")"
        // Said in words rather than an empty block under the heading.
        guard !answer.isEmpty else { return [heading + ": none, no answer text could be assembled from them"] }
        return [heading + ":"]
            + answer.text.split(separator: "\n", omittingEmptySubsequences: false).map { "    \($0)" }
    }
}
