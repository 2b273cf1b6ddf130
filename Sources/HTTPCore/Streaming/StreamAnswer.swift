import Foundation
import HTTPCoreText

/// The answer a streamed response carried, read from its server-sent events or JSON lines:
/// what a reader of the stream saw, as one text.
///
/// For the common LLM stream shapes it is the generated text, the deltas joined:
///
/// | Shape | Delta read |
/// |---|---|
/// | OpenAI chat completions | `choices[0].delta.content` |
/// | OpenAI Responses | `delta` of `response.output_text.delta` events |
/// | Anthropic Messages | `delta.text` of `content_block_delta` events |
/// | Gemini | `candidates[0].content.parts[].text` |
/// | Hugging Face TGI | `token.text` of tokens that are not special |
/// | Ollama | `message.content` (chat) or `response` (generate) |
///
/// For any other stream it is the messages' data, one per line. Sinks show it first, before
/// the messages themselves: the dev-see log, HAR (`_streamAnswer`), Loki (`answer`), the
/// console. It is read from the captured body as the policy exposed it, so it is masked, and
/// it holds at most ``maximumBytes``.
public struct StreamAnswer: Sendable, Hashable {
    /// Whose stream shape the answer was read by.
    public enum Shape: String, Sendable, Hashable {
        case openAIChat = "OpenAI chat"
        case openAIResponses = "OpenAI responses"
        case anthropic = "Anthropic"
        case gemini = "Gemini"
        case textGenerationInference = "TGI"
        case ollama = "Ollama"
        /// No known shape: the messages' data, one per line.
        case data = "data"
    }

    /// The most bytes of text kept; a longer answer is cut and ``isTruncated``.
    public static let maximumBytes = 64 * 1024

    /// The shape read.
    public var shape: Shape
    /// The answer: the generated text, or the messages' data.
    public var text: String
    /// How many messages the body held (complete ones).
    public var messageCount: Int
    /// Whether the text was cut at ``maximumBytes``, or the body it was read from was cut.
    public var isTruncated: Bool

    /// Reads the answer of a streamed body of `contentType` (`text/event-stream`, NDJSON or
    /// JSON Lines); `nil` for another type or a body without a complete message.
    public init?(body: Data, contentType: String?, isBodyTruncated: Bool = false) {
        guard var parser = StreamMessageParser(contentType: contentType, maxBytes: Self.maximumBytes) else { return nil }
        var messages: [StreamMessageParser.Message] = []
        parser.feed([UInt8](body)[...]) { messages.append($0) }
        if !isBodyTruncated { parser.finish { messages.append($0) } }
        guard !messages.isEmpty else { return nil }
        var shape: Shape?
        var deltas = ""
        for message in messages {
            guard let (found, delta) = Self.delta(of: message) else { continue }
            shape = shape ?? found
            deltas += delta
        }
        var text = shape == nil ? messages.map { String(decoding: $0.data, as: UTF8.self) }.joined(separator: "\n") : deltas
        let isCut = text.utf8.count > Self.maximumBytes
        if isCut { text = UTF8Text.prefix(text, maxBytes: Self.maximumBytes) }
        self.shape = shape ?? .data
        self.text = text
        self.messageCount = messages.count
        self.isTruncated = isCut || isBodyTruncated
    }

    /// The shape a message is in and the text it adds, as ``LLMPayload`` reads it; `nil` when
    /// it is in none of the known shapes, or is an error (which names a shape but adds no text).
    private static func delta(of message: StreamMessageParser.Message) -> (Shape, String)? {
        guard let payload = LLMPayload.read(eventType: message.eventType, data: message.data), payload.errorCode == nil,
            let shape = payload.shape.streamAnswerShape
        else { return nil }
        return (shape, payload.text)
    }
}
