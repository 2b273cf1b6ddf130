import HTTPCore
/// An LLM call derived from an HTTP exchange: what was asked, what came back, and its
/// OpenTelemetry GenAI attributes.
///
/// ```swift
/// guard let call = GenAIRecognizer.standard.recognize(request) else { return }
/// var reader = GenAIResponseReader(call)
/// reader.read(body: responseBody)
/// let exchange = GenAIExchange(
///     recognition: call, request: GenAIRequestParameters(body: request.body, for: call), response: reader.response
/// )
/// span.setAttributes(exchange.attributes) // gen_ai.provider.name = openai, …
/// ```
public struct GenAIExchange: Sendable, Hashable {
    /// `gen_ai.provider.name`, `gen_ai.operation.name`, `server.address`, `server.port`.
    public var recognition: GenAIRecognition
    /// The `gen_ai.request.*` attributes.
    public var request: GenAIRequestParameters
    /// The `gen_ai.response.*` and `gen_ai.usage.*` attributes.
    public var response: GenAIResponse
    /// `error.type`: the provider's error code (``GenAIResponse/errorCode``), or
    /// ``otherErrorType`` when the provider reported an error without one
    /// (``GenAIResponse/hasProviderError``), unless set otherwise; a caller that knows more
    /// (an HTTP status without a provider code, a timeout, a cancellation) sets it.
    public var errorType: String?

    /// `_OTHER`: the convention's `error.type` for an error it has no better name for.
    public static let otherErrorType = "_OTHER"

    /// The call `recognition` describes, which asked for `request` and got `response`.
    public init(recognition: GenAIRecognition, request: GenAIRequestParameters, response: GenAIResponse) {
        self.recognition = recognition
        self.request = request
        self.response = response
        errorType = response.errorCode ?? (response.hasProviderError ? Self.otherErrorType : nil)
    }

    /// Whether the call streamed: the body asked for it, the path did, or the response came
    /// as stream messages.
    public var isStreaming: Bool {
        request.stream == true || recognition.isStreamingEndpoint || response.isStream
    }

    /// The span name the convention gives the call: `{gen_ai.operation.name} {gen_ai.request.model}`,
    /// or the operation alone when the model is unknown.
    public var spanName: String {
        request.model.map { "\(recognition.operation.name) \($0)" } ?? recognition.operation.name
    }

    /// The call's attributes under the convention's names, in a fixed order, each present
    /// only when known. `gen_ai.request.choice.count` is left out when it is 1 and
    /// `gen_ai.request.stream` and `gen_ai.response.time_to_first_chunk` when the call did
    /// not stream, as the convention asks.
    public var attributes: [HTTPExchangeNote.Attribute] {
        var attributes: [HTTPExchangeNote.Attribute] = [
            HTTPExchangeNote.Attribute("gen_ai.provider.name", .string(recognition.provider.name)),
            HTTPExchangeNote.Attribute("gen_ai.operation.name", .string(recognition.operation.name)),
        ]
        func add(_ name: String, _ value: HTTPExchangeNote.Value?) {
            if let value { attributes.append(HTTPExchangeNote.Attribute(name, value)) }
        }
        add("gen_ai.request.model", request.model.map(HTTPExchangeNote.Value.string))
        add("gen_ai.request.max_tokens", request.maxTokens.map(HTTPExchangeNote.Value.int))
        add("gen_ai.request.temperature", request.temperature.map(HTTPExchangeNote.Value.double))
        add("gen_ai.request.top_p", request.topP.map(HTTPExchangeNote.Value.double))
        add("gen_ai.request.top_k", request.topK.map(HTTPExchangeNote.Value.double))
        add("gen_ai.request.stop_sequences", request.stopSequences.map(HTTPExchangeNote.Value.stringArray))
        add("gen_ai.request.seed", request.seed.map(HTTPExchangeNote.Value.int))
        add("gen_ai.request.frequency_penalty", request.frequencyPenalty.map(HTTPExchangeNote.Value.double))
        add("gen_ai.request.presence_penalty", request.presencePenalty.map(HTTPExchangeNote.Value.double))
        add("gen_ai.request.choice.count", request.choiceCount.flatMap { $0 == 1 ? nil : .int($0) })
        add("gen_ai.request.stream", isStreaming ? .bool(true) : nil)
        add("gen_ai.response.id", response.id.map(HTTPExchangeNote.Value.string))
        add("gen_ai.response.model", response.model.map(HTTPExchangeNote.Value.string))
        add("gen_ai.response.finish_reasons", response.finishReasons.isEmpty ? nil : .stringArray(response.finishReasons))
        add("gen_ai.response.time_to_first_chunk", isStreaming ? response.timeToFirstChunk.map(HTTPExchangeNote.Value.double) : nil)
        let usage = response.usage
        add("gen_ai.usage.input_tokens", usage?.inputTokens.map(HTTPExchangeNote.Value.int))
        add("gen_ai.usage.output_tokens", usage?.outputTokens.map(HTTPExchangeNote.Value.int))
        add("gen_ai.usage.cache_read.input_tokens", usage?.cacheReadInputTokens.map(HTTPExchangeNote.Value.int))
        add("gen_ai.usage.cache_creation.input_tokens", usage?.cacheCreationInputTokens.map(HTTPExchangeNote.Value.int))
        add("gen_ai.usage.reasoning.output_tokens", usage?.reasoningOutputTokens.map(HTTPExchangeNote.Value.int))
        add("server.address", .string(recognition.serverAddress))
        add("server.port", recognition.serverPort.map(HTTPExchangeNote.Value.int))
        add("error.type", errorType.map(HTTPExchangeNote.Value.string))
        return attributes
    }
}
