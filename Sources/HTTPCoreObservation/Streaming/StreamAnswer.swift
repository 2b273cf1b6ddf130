import Foundation
import HTTPCoreText

/// The answer a streamed response carried, read from its server-sent events or JSON lines:
/// what a reader of the stream saw, as one text.
///
/// When an interpreter of the policy knows the messages' shape
/// (``HTTPExchangeInterpreter/streamAnswerText(eventType:data:)``: HTTPCoreGenAI knows the LLM
/// providers'), it is the text they add, joined: the generated text of an LLM stream. A
/// message in such a stream that no interpreter reads (a plain `data:` line among OpenAI
/// chunks) is part of the answer too, in its place, on a line of its own. The shape is decided
/// by what the messages carry (``shape``); for any other stream the answer is the messages'
/// data, one per line. When nothing could be assembled, ``isEmpty`` says so. Sinks show it first, before the
/// messages themselves: the dev-see log, HAR (`_streamAnswer`), Loki (`answer`), the console.
/// It is read from the captured body as the policy exposed it, so each message is masked, and
/// it holds at most ``maximumBytes``.
///
/// Joined text is also masked as one text: a key, a JWT or `DB_PASSWORD=hunter2` split over
/// two messages is masked in neither, and readers take the joined answer as the truth. The
/// joined text goes through the text rules (``/HTTPCoreRedaction/Redactor/redactedText(_:)``)
/// of the redactor given (the sinks give the event's policy's); a secret a message's own masking cut
/// at the message's end (or start) is masked with the part the next (or previous) one carries,
/// so no tail of it shows. The messages' data of another stream is masked per message only,
/// as the messages themselves are shown.
package struct StreamAnswer: Sendable, Hashable {
    /// The shape of a stream whose answer is its messages' data, one per line.
    package static let dataShape = "data"

    /// The most bytes of text kept; a longer answer is cut and ``isTruncated``.
    package static let maximumBytes = 64 * 1024

    /// The shape read, as the interpreter that read it names it (`OpenAI chat`), or
    /// ``dataShape``.
    package var shape: String
    /// The answer: the text the messages add, or their data.
    package var text: String
    /// How many messages the body held (complete ones).
    package var messageCount: Int
    /// Whether the text was cut at ``maximumBytes``, or the body it was read from was cut.
    package var isTruncated: Bool

    /// Reads the answer of a streamed body of `contentType` (`text/event-stream`, NDJSON or
    /// JSON Lines); `nil` for another type or a body without a complete message.
    ///
    /// - Parameters:
    ///   - body: The captured body, masked message by message as the policy exposed it.
    ///   - contentType: The response's `Content-Type`.
    ///   - isBodyTruncated: Whether the body was cut at the capture cap; its last, incomplete
    ///     message is then left out.
    ///   - redactor: The redactor whose text rules mask the joined text: the event's
    ///     policy's, for a sink. ``/HTTPCoreRedaction/Redactor/none`` leaves it as joined.
    ///   - interpreters: The interpreters that may know the messages' shape, the event's
    ///     policy's (``HTTPCorePolicy/interpreters``); the first that reads a message decides.
    package init?(
        body: Data, contentType: String?, isBodyTruncated: Bool = false, redactedBy redactor: Redactor,
        readBy interpreters: [any HTTPExchangeInterpreter] = []
    ) {
        guard var parser = StreamMessageParser(contentType: contentType, maxBytes: Self.maximumBytes) else { return nil }
        var messages: [StreamMessageParser.Message] = []
        parser.feed([UInt8](body)[...]) { messages.append($0) }
        if !isBodyTruncated { parser.finish { messages.append($0) } }
        guard !messages.isEmpty else { return nil }
        let readings = messages.map { Self.delta(of: $0, readBy: interpreters) }
        let shape = Self.shape(of: readings)
        var text: String
        var isCut: Bool
        if shape != nil {
            var answer = ""
            var endsWithALine = false
            for (message, reading) in zip(messages, readings) {
                if let delta = reading?.text {
                    // The text after a line of data starts a line of its own.
                    if endsWithALine, !delta.isEmpty { answer += "\n" }
                    endsWithALine = endsWithALine && delta.isEmpty
                    Self.append(delta, to: &answer)
                } else {
                    Self.appendLine(String(decoding: message.data, as: UTF8.self), to: &answer)
                    endsWithALine = true
                }
            }
            isCut = answer.utf8.count > Self.maximumBytes
            text = isCut ? Self.wholeWords(answer, maxBytes: Self.maximumBytes) : answer
            text = redactor.redactedText(text)
            isCut = isCut || text.utf8.count > Self.maximumBytes
        } else {
            text = messages.map { String(decoding: $0.data, as: UTF8.self) }.joined(separator: "\n")
            isCut = text.utf8.count > Self.maximumBytes
        }
        if isCut { text = UTF8Text.prefix(text, maxBytes: Self.maximumBytes) }
        self.shape = shape ?? Self.dataShape
        self.text = text
        self.messageCount = messages.count
        self.isTruncated = isCut || isBodyTruncated
    }

    /// Whether no text could be assembled from the messages: those of the ``shape`` read
    /// added none (a stream of tool calls, or of markers only), or the data was empty. Sinks
    /// say so in words rather than show an empty answer.
    package var isEmpty: Bool { text.isEmpty }

    /// The shape the stream is in, decided by what its messages carry rather than by the first
    /// message an interpreter claims: the shape of the first message that adds text; when none
    /// adds any, the shape read, provided every message was read in a shape (a stream of markers
    /// and tool calls, whose answer is empty); `nil` for a stream of data, whose answer is its
    /// messages' data.
    private static func shape(of readings: [(shape: String, text: String)?]) -> String? {
        let read = readings.compactMap { $0 }
        if let carrying = read.first(where: { !$0.text.isEmpty }) { return carrying.shape }
        guard read.count == readings.count else { return nil }
        return read.first?.shape
    }

    /// Appends the data of a message no interpreter read, in a stream in a known shape, as a
    /// line of its own: it belongs to the answer where it came, between the texts around it.
    private static func appendLine(_ line: String, to answer: inout String) {
        if !answer.isEmpty, !answer.hasSuffix("\n") { answer += "\n" }
        answer += line
    }

    /// Appends a delta to the answer so far. Where one side of the join is a mask that reached
    /// its delta's edge, the characters of a credential the other side continues it with
    /// (letters, digits, `-_.+/=~%`) are left out: they are the rest of the masked secret. A
    /// `.`, `-` or `/` that ends that run is prose's (the sentence's full stop) and is kept.
    private static func append(_ delta: String, to answer: inout String) {
        var delta = Substring(delta)
        if answer.hasSuffix(Redactor.mask) {
            var rest = delta.drop(while: continuesASecret)
            while rest.startIndex > delta.startIndex, ".-/".contains(delta[delta.index(before: rest.startIndex)]) {
                rest = delta[delta.index(before: rest.startIndex)...]
            }
            delta = rest
        }
        if delta.hasPrefix(Redactor.mask), !answer.hasSuffix(Redactor.mask) {
            while let last = answer.last, continuesASecret(last), last != "=" { answer.removeLast() }
        }
        answer += delta
    }

    /// Whether a character can stand inside a credential: base64, base64url, hex, and the
    /// separators provider formats use.
    private static func continuesASecret(_ character: Character) -> Bool {
        guard let ascii = character.asciiValue else { return false }
        switch ascii {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        default:
            return "-_.+/=~%".utf8.contains(ascii)
        }
    }

    /// The first `maxBytes` bytes of `text` without the word the cut falls in, so that no
    /// secret is kept in part; a text that is one word is cut as it falls.
    private static func wholeWords(_ text: String, maxBytes: Int) -> String {
        let kept = UTF8Text.prefix(text, maxBytes: maxBytes)
        guard let next = text.utf8.dropFirst(kept.utf8.count).first, !UTF8Text.isSpace(next) else { return kept }
        guard let space = kept.utf8.lastIndex(where: UTF8Text.isSpace) else { return kept }
        return String(kept[..<space])
    }

    /// The shape a message is in and the text it adds, as the first of `interpreters` that
    /// knows its shape reads it; `nil` when none does.
    private static func delta(
        of message: StreamMessageParser.Message, readBy interpreters: [any HTTPExchangeInterpreter]
    ) -> (shape: String, text: String)? {
        for interpreter in interpreters {
            if let read = interpreter.streamAnswerText(eventType: message.eventType, data: message.data) { return read }
        }
        return nil
    }
}
