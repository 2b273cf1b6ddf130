import HTTPCore
import HTTPCoreObservation
/// The facts of one LLM call, as the GenAI interpreter derived them from its HTTP exchange:
/// read on the exchange's terminal event as `event.genAI`.
///
/// ```swift
/// guard let call = event.genAI else { return }
/// print(call.provider, call.operation, call.model ?? "?", call.inputTokens ?? 0, call.outputTokens ?? 0)
/// for attribute in call.attributes { print(attribute.name, attribute.value.text) } // gen_ai.provider.name openai, …
/// ```
///
/// The typed members are the facts most readers need; ``attributes`` holds every fact the
/// OpenTelemetry GenAI conventions name, under their names. Sinks show it through its note
/// (``note(redactedBy:)``), as they show any attachment.
public struct GenAIExchange: Sendable, Hashable {
    /// `gen_ai.provider.name`, `gen_ai.operation.name`, `server.address`, `server.port`.
    package var recognition: GenAIRecognition
    /// The `gen_ai.request.*` attributes.
    package var request: GenAIRequestParameters
    /// The `gen_ai.response.*` and `gen_ai.usage.*` attributes.
    package var response: GenAIResponse
    /// `error.type`, when the call failed: the provider's error code (`rate_limit_exceeded`,
    /// `overloaded_error`, `RESOURCE_EXHAUSTED`, `ThrottlingException`, …), else the way the
    /// exchange ended (`timeout`, `cancelled`, `connection_lost`, …), else the status of a
    /// response of 400 or more (`"503"`), else `_OTHER` for a provider's error without a code
    /// (a stream answered with 200 that ends with an error event); `nil` when it succeeded.
    public package(set) var errorType: String?

    /// `_OTHER`: the convention's `error.type` for an error it has no better name for.
    package static let otherErrorType = "_OTHER"

    /// The call `recognition` describes, which asked for `request` and got `response`.
    package init(recognition: GenAIRecognition, request: GenAIRequestParameters, response: GenAIResponse) {
        self.recognition = recognition
        self.request = request
        self.response = response
        errorType = response.errorCode ?? (response.hasProviderError ? Self.otherErrorType : nil)
    }

    /// Who served the call (`gen_ai.provider.name`): the row's provider that recognised it.
    public var provider: GenAIProvider { recognition.provider }

    /// What the call did (`gen_ai.operation.name`).
    public var operation: GenAIOperation { recognition.operation }

    /// The model that answered (`gen_ai.response.model`), else the one asked for
    /// (`gen_ai.request.model`, from the body or the path); `nil` when neither is known.
    /// ``attributes`` holds each apart.
    public var model: String? { response.model ?? request.model }

    /// `gen_ai.usage.input_tokens`: all input tokens, cached ones included, as the provider
    /// reported them; `nil` when it sent no count (a count is never guessed).
    /// ``attributes`` also holds the cached and reasoning counts the provider sent.
    public var inputTokens: Int? { response.usage?.inputTokens }

    /// `gen_ai.usage.output_tokens`: all output tokens, reasoning included, as the provider
    /// reported them; `nil` when it sent no count.
    public var outputTokens: Int? { response.usage?.outputTokens }

    /// `gen_ai.response.finish_reasons`: one per choice that finished, in the convention's
    /// words (`stop`, `length`, `content_filter`, `tool_call`, `error`), so they compare across
    /// providers; a reason with no counterpart stays as the provider sent it.
    public var finishReasons: [String] { response.finishReasons }

    /// Whether the call streamed: the body asked for it, the path did, or the response came
    /// as stream messages.
    public var isStreaming: Bool {
        request.stream == true || recognition.isStreamingEndpoint || response.isStream
    }

    /// The seconds between each output chunk of a stream and the one before, in order: the
    /// values of `gen_ai.client.operation.time_per_output_chunk`, which is a metric and no
    /// attribute. Empty for a call that did not stream; kept for the first 8,192 chunks.
    public var outputChunkIntervals: [Double] { response.outputChunkIntervals }

    /// The span name the convention gives the call: `{gen_ai.operation.name} {gen_ai.request.model}`,
    /// or the operation alone when the model is unknown.
    package var spanName: String {
        request.model.map { "\(recognition.operation.name) \($0)" } ?? recognition.operation.name
    }

    /// The call's attributes under the OpenTelemetry GenAI conventions' names, in a fixed
    /// order, each present only when known: `gen_ai.provider.name`, `gen_ai.operation.name`,
    /// `gen_ai.request.*` (`model`, `max_tokens`, `temperature`, `top_p`, `top_k`,
    /// `stop_sequences`, `seed`, `frequency_penalty`, `presence_penalty`, `choice.count`,
    /// `stream`), `gen_ai.response.*` (`id`, `model`, `finish_reasons`,
    /// `time_to_first_chunk`, in seconds), `gen_ai.usage.*` (`input_tokens`, `output_tokens`,
    /// `cache_read.input_tokens`, `cache_creation.input_tokens`, `reasoning.output_tokens`),
    /// `server.address`, `server.port` and `error.type`.
    ///
    /// `gen_ai.request.choice.count` is left out when it is 1, and `gen_ai.request.stream` and
    /// `gen_ai.response.time_to_first_chunk` when the call did not stream, as the convention
    /// asks. Its texts were masked by the client policy's redactor as the facts were derived;
    /// for a redactor of your own on top, read ``note(redactedBy:)``'s attributes.
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
