import Foundation
import HTTPCore

/// The model and generation parameters an LLM call's request body asked for: only those
/// the body carries, each `nil` when absent.
///
/// Read per endpoint: OpenAI's `max_tokens` or `max_completion_tokens` (and responses'
/// `max_output_tokens`), Anthropic's `max_tokens` and `stop_sequences`, Gemini's
/// `generationConfig` (`maxOutputTokens`, `candidateCount`, …), Bedrock converse's
/// `inferenceConfig`, TGI's `parameters` (`max_new_tokens`), Ollama's `options`
/// (`num_predict`). The model comes from the body, else from the path
/// (``GenAIRecognition/modelInPath``).
package struct GenAIRequestParameters: Sendable, Hashable {
    /// `gen_ai.request.model`.
    package var model: String?
    /// `gen_ai.request.max_tokens`.
    package var maxTokens: Int?
    /// `gen_ai.request.temperature`.
    package var temperature: Double?
    /// `gen_ai.request.top_p`.
    package var topP: Double?
    /// `gen_ai.request.top_k`.
    package var topK: Double?
    /// `gen_ai.request.stop_sequences`; one `stop` string reads as a list of one.
    package var stopSequences: [String]?
    /// `gen_ai.request.seed`.
    package var seed: Int?
    /// `gen_ai.request.frequency_penalty`.
    package var frequencyPenalty: Double?
    /// `gen_ai.request.presence_penalty`.
    package var presencePenalty: Double?
    /// `gen_ai.request.choice.count`: OpenAI's `n`, Gemini's `candidateCount`.
    package var choiceCount: Int?
    /// The body's `stream` flag; `nil` when it has none (the path may still ask for a stream,
    /// and Ollama streams unless told not to).
    package var stream: Bool?

    /// Parameters set one by one, for tests and for callers that know them.
    package init(
        model: String? = nil, maxTokens: Int? = nil, temperature: Double? = nil, topP: Double? = nil, topK: Double? = nil,
        stopSequences: [String]? = nil, seed: Int? = nil, frequencyPenalty: Double? = nil, presencePenalty: Double? = nil,
        choiceCount: Int? = nil, stream: Bool? = nil
    ) {
        self.model = model
        self.maxTokens = maxTokens
        self.temperature = temperature
        self.topP = topP
        self.topK = topK
        self.stopSequences = stopSequences
        self.seed = seed
        self.frequencyPenalty = frequencyPenalty
        self.presencePenalty = presencePenalty
        self.choiceCount = choiceCount
        self.stream = stream
    }

    /// The parameters of `body`, the request body of the call `recognition` describes; only
    /// the model from the path when the body is not a JSON object.
    package init(body: Data?, for recognition: GenAIRecognition) {
        self.init(model: recognition.modelInPath)
        guard let body, let object = JSONObject(data: body) else { return }
        read(object, format: recognition.format)
    }

    private mutating func read(_ body: JSONObject, format: GenAIWireFormat) {
        model = body.string("model") ?? model
        stream = body.bool("stream")
        switch format {
        case .openAIChat, .openAICompletions:
            readSampling(body, maxTokens: ["max_completion_tokens", "max_tokens"], stop: "stop")
            seed = body.int("seed")
            frequencyPenalty = body.double("frequency_penalty")
            presencePenalty = body.double("presence_penalty")
            choiceCount = body.int("n")
        case .openAIResponses:
            readSampling(body, maxTokens: ["max_output_tokens"], stop: nil)
        case .anthropicMessages, .bedrockInvoke:
            readSampling(body, maxTokens: ["max_tokens", "max_gen_len", "max_tokens_to_sample"], stop: "stop_sequences")
        case .geminiGenerateContent:
            guard let config = body.object("generationConfig") else { return }
            maxTokens = config.int("maxOutputTokens")
            temperature = config.double("temperature")
            topP = config.double("topP")
            topK = config.double("topK")
            stopSequences = config.strings("stopSequences")
            seed = config.int("seed")
            frequencyPenalty = config.double("frequencyPenalty")
            presencePenalty = config.double("presencePenalty")
            choiceCount = config.int("candidateCount")
        case .bedrockConverse:
            if let config = body.object("inferenceConfig") {
                maxTokens = config.int("maxTokens")
                temperature = config.double("temperature")
                topP = config.double("topP")
                stopSequences = config.strings("stopSequences")
            }
            topK = body.object("additionalModelRequestFields")?.double("top_k")
        case .textGenerationInference:
            guard let parameters = body.object("parameters") else { return }
            readSampling(parameters, maxTokens: ["max_new_tokens"], stop: "stop")
            seed = parameters.int("seed")
            frequencyPenalty = parameters.double("frequency_penalty")
        case .ollamaChat, .ollamaGenerate:
            guard let options = body.object("options") else { return }
            readSampling(options, maxTokens: ["num_predict"], stop: "stop")
            seed = options.int("seed")
            frequencyPenalty = options.double("frequency_penalty")
            presencePenalty = options.double("presence_penalty")
        case .openAIEmbeddings, .geminiEmbedContent, .ollamaEmbed:
            break
        }
    }

    /// The fields most bodies spell alike: `temperature`, `top_p`, `top_k`, the first of
    /// `maxTokens` present, and the stop sequences under `stop`.
    private mutating func readSampling(_ object: JSONObject, maxTokens keys: [String], stop: String?) {
        maxTokens = keys.lazy.compactMap { object.int($0) }.first
        temperature = object.double("temperature")
        topP = object.double("top_p")
        topK = object.double("top_k")
        if let stop { stopSequences = object.strings(stop) }
    }
}
