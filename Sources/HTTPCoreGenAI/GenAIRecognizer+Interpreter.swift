import Foundation
import HTTPCore
import HTTPCoreObservation

extension GenAIRecognizer: HTTPExchangeInterpreter {
    /// Begins reading `request` when it is an LLM call: its terminal event then carries the
    /// call's facts (`event.genAI`).
    ///
    /// - Parameter request: The request as it goes out.
    /// - Returns: The reading of the call, or `nil` for a request that is none.
    public func reading(for request: HTTPRequest) -> (any HTTPExchangeReading)? {
        recognize(request).map(GenAIReading.init)
    }

    /// The text one message of an LLM stream adds to its answer, in the providers' shapes:
    ///
    /// | Shape | Text read |
    /// |---|---|
    /// | OpenAI chat completions | `choices[0].delta.content` |
    /// | OpenAI Responses | `delta` of `response.output_text.delta` events |
    /// | Anthropic Messages | `delta.text` of `content_block_delta` events |
    /// | Gemini | `candidates[0].content.parts[].text` |
    /// | Hugging Face TGI | `token.text` of tokens that are not special |
    /// | Ollama | `message.content` (chat) or `response` (generate) |
    ///
    /// OpenAI's `data: [DONE]` and a provider's error event are in their shape and add no text,
    /// so that they are not taken for lines of data of the answer.
    ///
    /// - Parameters:
    ///   - eventType: The server-sent event's type, if any.
    ///   - data: The message's data.
    /// - Returns: The shape's name and the text, or `nil` for a message in none of these
    ///   shapes.
    public func streamAnswerText(eventType: String?, data: Data) -> (shape: String, text: String)? {
        if data.elementsEqual(Self.openAIEndOfStream) { return LLMPayload.Shape.openAIChat.streamAnswerShape.map { ($0, "") } }
        guard let payload = LLMPayload.read(eventType: eventType, data: data), let shape = payload.shape.streamAnswerShape else { return nil }
        return (shape, payload.errorCode == nil ? payload.text : "")
    }

    /// The data of the last event of an OpenAI chat stream.
    private static let openAIEndOfStream = Data("[DONE]".utf8)

    /// The most bytes of a body read for an LLM call's facts: a request body, or a response's
    /// body, buffered or streamed (a JSON answer read through the streaming API). A longer one
    /// is not read, and the facts it holds are left out, so that reading costs bounded time:
    /// 4 MiB. A streamed one is kept by the reading, beside what the caller reads, until it
    /// ends or passes this bound.
    package static let maximumBodyBytes = 4 << 20

    /// The most bytes of one message of a streamed LLM response read for the call's facts
    /// (``/HTTPCoreObservation/HTTPExchangeReadingLimits/maximumMessageBytes``). A longer message still counts as a
    /// message (``GenAIResponse/messageCount``) but its facts are left out.
    package static let maximumMessageBytes = HTTPExchangeReadingLimits.maximumMessageBytes
}

extension HTTPExchangeInterpreter where Self == GenAIRecognizer {
    /// The GenAI facts of LLM calls to the well-known providers
    /// (``GenAIRecognizer/init(additionalRoutes:)`` without rows of your own):
    /// `HTTPCorePolicy.default.interpreting(.genAI)`.
    public static var genAI: GenAIRecognizer { .standard }
}
