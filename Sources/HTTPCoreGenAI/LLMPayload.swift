import Foundation
import HTTPCore
import HTTPCoreObservation

/// What one message of an LLM stream, or one whole LLM response body, says: the one place
/// that knows the providers' response shapes, read by the stream answer (``GenAIRecognizer/streamAnswerText(eventType:data:)``) and by
/// ``GenAIResponseReader`` (ids, finish reasons, usage, errors and which messages carry output).
///
/// | Shape | Recognised by | Text | Other output | Usage |
/// |---|---|---|---|---|
/// | OpenAI chat (and completions, embeddings) | `choices`, or `object: "list"` | `delta.content`, `message.content`, `text` | `tool_calls`, `refusal`, `reasoning_content` | `usage` |
/// | OpenAI responses | `type: "response.…"` or `object: "response"` | `response.output_text.delta` | function-call arguments, reasoning and refusal deltas | `response.usage` |
/// | Anthropic | the message event types, or `type: "message"` | `text_delta` | `input_json_delta`, `thinking_delta` | `message.usage`, `message_delta.usage` |
/// | Gemini | `candidates`, `usageMetadata` | `parts[].text` | `functionCall` parts | `usageMetadata` |
/// | Hugging Face TGI | a `token` object with a `text` string, or a `generated_text` string | `token.text` (not special) | | `details.generated_tokens` |
/// | Ollama | `done` with `model`, or `embeddings` | `message.content`, `response` | `tool_calls`, `thinking` | `prompt_eval_count`, `eval_count` |
/// | Bedrock converse | `output.message`, or the converse-stream event types | `delta.text` | `delta.toolUse` | `usage` |
struct LLMPayload: Sendable {
    /// The families of response shapes.
    enum Shape: Sendable {
        case openAIChat, openAIResponses, anthropic, gemini, textGenerationInference, ollama, bedrockConverse

        /// The shape the responses of an endpoint of `format` come in; `nil` for Bedrock's
        /// `invoke`, which answers in the model's own shape.
        init?(_ format: GenAIWireFormat) {
            switch format {
            case .openAIChat, .openAICompletions, .openAIEmbeddings: self = .openAIChat
            case .openAIResponses: self = .openAIResponses
            case .anthropicMessages: self = .anthropic
            case .geminiGenerateContent, .geminiEmbedContent: self = .gemini
            case .bedrockConverse: self = .bedrockConverse
            case .bedrockInvoke: return nil
            case .textGenerationInference: self = .textGenerationInference
            case .ollamaChat, .ollamaGenerate, .ollamaEmbed: self = .ollama
            }
        }

        /// The shape's name in a `StreamAnswer`; `nil` for Bedrock, whose stream
        /// framing the package does not parse.
        var streamAnswerShape: String? {
            switch self {
            case .openAIChat: "OpenAI chat"
            case .openAIResponses: "OpenAI responses"
            case .anthropic: "Anthropic"
            case .gemini: "Gemini"
            case .textGenerationInference: "TGI"
            case .ollama: "Ollama"
            case .bedrockConverse: nil
            }
        }
    }

    /// Token counts as the provider sent them; `nil` where it sent none.
    struct Usage: Sendable, Equatable {
        /// Input tokens; for Anthropic and Bedrock without the cached ones.
        var input: Int?
        /// Output tokens; for Gemini without the reasoning ones.
        var output: Int?
        var cacheRead: Int?
        var cacheCreation: Int?
        var reasoning: Int?

        var isEmpty: Bool { self == Usage() }

        /// Each count `later` carries replaces this one's: providers that repeat usage send
        /// running totals (Anthropic's `message_delta`, Gemini's every chunk).
        mutating func update(with later: Usage) {
            input = later.input ?? input
            output = later.output ?? output
            cacheRead = later.cacheRead ?? cacheRead
            cacheCreation = later.cacheCreation ?? cacheCreation
            reasoning = later.reasoning ?? reasoning
        }
    }

    var shape: Shape
    /// The answer text this payload adds.
    var text = ""
    /// Whether it carries generated output: text, reasoning, a refusal or tool-call
    /// arguments. Not a ping, a start or stop event, a role-only delta or a usage-only chunk.
    var carriesOutput = false
    var responseID: String?
    var responseModel: String?
    /// The finish reasons as the provider spelled them, by the index of the choice that
    /// finished (0 for shapes with one choice).
    var finishReasons: [Int: String] = [:]
    var usage = Usage()
    /// The provider's error code or type, when the payload is an error (`""` when it says
    /// it is one without a code).
    var errorCode: String?

    init(shape: Shape) {
        self.shape = shape
    }

    /// Reads a stream message: its JSON data and its server-sent event type, if any; `nil`
    /// when it is in none of the known shapes.
    static func read(eventType: String?, data: Data) -> LLMPayload? {
        guard let object = JSONObject(data: data) else { return nil }
        return read(object, eventType: eventType)
    }

    /// Reads one JSON object, a stream message's or a whole body's.
    static func read(_ object: JSONObject, eventType: String? = nil) -> LLMPayload? {
        let type = object.string("type") ?? eventType
        if let error = providerError(object, type: type) { return error }
        if object.has("choices") || object.string("object") == "list" { return openAIChat(object) }
        if let type {
            if type.hasPrefix("response.") { return openAIResponsesEvent(object, type: type) }
            if anthropicEventTypes.contains(type) { return anthropic(object, type: type) }
            if bedrockEventTypes.contains(type) { return bedrockConverseEvent(object, type: type) }
        }
        if object.string("object") == "response" { return openAIResponse(object) }
        if object.has("candidates") || object.has("usageMetadata") || object.has("promptFeedback") { return gemini(object) }
        if isTextGenerationInference(object) { return textGenerationInference(object) }
        if object.has("done") && object.has("model") || object.has("embeddings") && object.has("model") { return ollama(object) }
        if object.object(at: "output", "message") != nil || object.has("stopReason") { return bedrockConverse(object) }
        return nil
    }

    // MARK: Errors

    /// OpenAI `error.code`/`error.type`, Anthropic `error.type`, Gemini `error.status`, TGI
    /// `error_type`, OpenAI responses' `error` event and `response.failed`; Ollama's error is
    /// a bare message, which names no code.
    private static func providerError(_ object: JSONObject, type: String?) -> LLMPayload? {
        var payload = LLMPayload(shape: .openAIChat)
        if let error = object.object("error") {
            payload.shape = object.string("type") == "error" ? .anthropic : error.has("status") ? .gemini : .openAIChat
            payload.errorCode = error.string("status") ?? error.string("code") ?? error.string("type") ?? ""
        } else if object.string("error") != nil {
            payload.shape = object.has("error_type") ? .textGenerationInference : .ollama
            payload.errorCode = object.string("error_type") ?? ""
        } else if type == "error" {
            payload.shape = .openAIResponses
            payload.errorCode = object.string("code") ?? ""
        } else {
            return nil
        }
        return payload
    }

    // MARK: OpenAI

    private static func openAIChat(_ object: JSONObject) -> LLMPayload {
        var payload = LLMPayload(shape: .openAIChat)
        payload.responseID = object.string("id")
        payload.responseModel = object.string("model")
        for (position, choice) in (object.objects("choices") ?? []).enumerated() {
            if let reason = choice.string("finish_reason") { payload.finishReasons[choice.int("index") ?? position] = reason }
            let message = choice.object("delta") ?? choice.object("message")
            let text = message?.string("content") ?? choice.string("text") ?? ""
            payload.text += text
            let hasOtherOutput = ["tool_calls", "function_call", "refusal", "reasoning_content", "reasoning"].contains {
                message?.hasContent($0) == true
            }
            payload.carriesOutput = payload.carriesOutput || !text.isEmpty || hasOtherOutput
        }
        if let usage = object.object("usage") {
            payload.usage.input = usage.int("prompt_tokens")
            payload.usage.output = usage.int("completion_tokens")
            payload.usage.cacheRead = usage.object("prompt_tokens_details")?.int("cached_tokens")
            payload.usage.reasoning = usage.object("completion_tokens_details")?.int("reasoning_tokens")
        }
        return payload
    }

    private static func openAIResponsesEvent(_ object: JSONObject, type: String) -> LLMPayload {
        if let response = object.object("response") {
            // The text of a stream is its deltas; `response.completed` repeats it whole.
            var payload = openAIResponse(response)
            payload.text = ""
            return payload
        }
        var payload = LLMPayload(shape: .openAIResponses)
        if type.hasSuffix(".delta") {
            let delta = object.string("delta") ?? ""
            if type == "response.output_text.delta" { payload.text = delta }
            payload.carriesOutput = !delta.isEmpty
        }
        return payload
    }

    /// A whole response object: a body, or the one `response.created`, `.completed`,
    /// `.incomplete` and `.failed` carry.
    private static func openAIResponse(_ response: JSONObject) -> LLMPayload {
        var payload = LLMPayload(shape: .openAIResponses)
        payload.responseID = response.string("id")
        payload.responseModel = response.string("model")
        switch response.string("status") {
        case "completed":
            let callsATool = response.objects("output")?.contains { $0.string("type") == "function_call" } == true
            payload.finishReasons = [0: callsATool ? "function_call" : "completed"]
        case "incomplete":
            payload.finishReasons = [0: response.object("incomplete_details")?.string("reason") ?? "incomplete"]
        case "failed":
            payload.finishReasons = [0: "failed"]
            // A failed response is an error whether or not it names one.
            payload.errorCode = response.object("error")?.string("code") ?? ""
        default: break
        }
        for item in response.objects("output") ?? [] {
            for part in item.objects("content") ?? [] where part.string("type") == "output_text" {
                payload.text += part.string("text") ?? ""
            }
        }
        if let usage = response.object("usage") {
            payload.usage.input = usage.int("input_tokens")
            payload.usage.output = usage.int("output_tokens")
            payload.usage.cacheRead = usage.object("input_tokens_details")?.int("cached_tokens")
            payload.usage.reasoning = usage.object("output_tokens_details")?.int("reasoning_tokens")
        }
        return payload
    }

    // MARK: Anthropic

    private static let anthropicEventTypes: Set<String> = [
        "message", "message_start", "content_block_start", "content_block_delta", "content_block_stop", "message_delta",
        "message_stop", "ping",
    ]

    private static func anthropic(_ object: JSONObject, type: String) -> LLMPayload {
        var payload = LLMPayload(shape: .anthropic)
        let message = type == "message" ? object : object.object("message")
        if let message {
            payload.responseID = message.string("id")
            payload.responseModel = message.string("model")
            if let reason = message.string("stop_reason") { payload.finishReasons = [0: reason] }
            for block in message.objects("content") ?? [] where block.string("type") == "text" {
                payload.text += block.string("text") ?? ""
            }
            if let usage = message.object("usage") { payload.usage = anthropicUsage(usage) }
        }
        if type == "content_block_delta", let delta = object.object("delta") {
            let text = delta.string("text") ?? ""
            if delta.string("type") == "text_delta" { payload.text = text }
            let fragment = text + (delta.string("partial_json") ?? "") + (delta.string("thinking") ?? "")
            payload.carriesOutput = !fragment.isEmpty
        }
        if type == "message_delta" {
            if let reason = object.object("delta")?.string("stop_reason") { payload.finishReasons = [0: reason] }
            if let usage = object.object("usage") { payload.usage = anthropicUsage(usage) }
        }
        return payload
    }

    private static func anthropicUsage(_ usage: JSONObject) -> Usage {
        Usage(
            input: usage.int("input_tokens"), output: usage.int("output_tokens"),
            cacheRead: usage.int("cache_read_input_tokens"), cacheCreation: usage.int("cache_creation_input_tokens")
        )
    }

    // MARK: Gemini

    private static func gemini(_ object: JSONObject) -> LLMPayload {
        var payload = LLMPayload(shape: .gemini)
        payload.responseID = object.string("responseId")
        payload.responseModel = object.string("modelVersion")
        let candidates = object.objects("candidates") ?? []
        for (position, candidate) in candidates.enumerated() {
            for part in candidate.object("content")?.objects("parts") ?? [] {
                let text = part.string("text") ?? ""
                payload.text += text
                payload.carriesOutput = payload.carriesOutput || !text.isEmpty || part.has("functionCall")
            }
            if let reason = candidate.string("finishReason") { payload.finishReasons[candidate.int("index") ?? position] = reason }
        }
        // A blocked prompt has no candidates; its reason stands after any there are.
        if let reason = object.object("promptFeedback")?.string("blockReason") { payload.finishReasons[candidates.count] = reason }
        if let usage = object.object("usageMetadata") {
            payload.usage.input = usage.int("promptTokenCount")
            payload.usage.output = usage.int("candidatesTokenCount")
            payload.usage.cacheRead = usage.int("cachedContentTokenCount")
            payload.usage.reasoning = usage.int("thoughtsTokenCount")
        }
        return payload
    }

    // MARK: Hugging Face TGI

    /// Whether `object` is in TGI's structure, not merely named like it: a stream event's
    /// `token` is an object with a `text` string (`{"token":{"id":…,"text":"…","special":false}}`),
    /// a whole answer's `generated_text` a string. `{"token":"t0"}` is neither.
    private static func isTextGenerationInference(_ object: JSONObject) -> Bool {
        object.object("token")?.string("text") != nil || object.string("generated_text") != nil
    }

    private static func textGenerationInference(_ object: JSONObject) -> LLMPayload {
        var payload = LLMPayload(shape: .textGenerationInference)
        if let token = object.object("token") {
            let isSpecial = token.bool("special") == true
            payload.text = isSpecial ? "" : token.string("text") ?? ""
            payload.carriesOutput = !payload.text.isEmpty
        } else {
            payload.text = object.string("generated_text") ?? ""
        }
        if let details = object.object("details") {
            if let reason = details.string("finish_reason") { payload.finishReasons = [0: reason] }
            payload.usage.output = details.int("generated_tokens")
        }
        return payload
    }

    // MARK: Ollama

    private static func ollama(_ object: JSONObject) -> LLMPayload {
        var payload = LLMPayload(shape: .ollama)
        payload.responseModel = object.string("model")
        let message = object.object("message")
        payload.text = message?.string("content") ?? object.string("response") ?? ""
        let hasOtherOutput = message?.hasContent("tool_calls") == true || message?.hasContent("thinking") == true
            || object.hasContent("thinking")
        payload.carriesOutput = !payload.text.isEmpty || hasOtherOutput
        if object.bool("done") == true, let reason = object.string("done_reason") { payload.finishReasons = [0: reason] }
        payload.usage.input = object.int("prompt_eval_count")
        payload.usage.output = object.int("eval_count")
        return payload
    }

    // MARK: Bedrock

    /// The event types of a converse stream, as its `:event-type` header names them.
    private static let bedrockEventTypes: Set<String> = [
        "messageStart", "contentBlockStart", "contentBlockDelta", "contentBlockStop", "messageStop", "metadata",
    ]

    private static func bedrockConverse(_ object: JSONObject) -> LLMPayload {
        var payload = LLMPayload(shape: .bedrockConverse)
        for block in object.object(at: "output", "message")?.objects("content") ?? [] {
            payload.text += block.string("text") ?? ""
        }
        if let reason = object.string("stopReason") { payload.finishReasons = [0: reason] }
        if let usage = object.object("usage") { payload.usage = bedrockUsage(usage) }
        return payload
    }

    private static func bedrockConverseEvent(_ object: JSONObject, type: String) -> LLMPayload {
        var payload = LLMPayload(shape: .bedrockConverse)
        switch type {
        case "contentBlockDelta":
            let delta = object.object("delta")
            payload.text = delta?.string("text") ?? ""
            payload.carriesOutput = !payload.text.isEmpty || delta?.has("toolUse") == true || delta?.has("reasoningContent") == true
        case "messageStop":
            if let reason = object.string("stopReason") { payload.finishReasons = [0: reason] }
        case "metadata":
            if let usage = object.object("usage") { payload.usage = bedrockUsage(usage) }
        default: break
        }
        return payload
    }

    private static func bedrockUsage(_ usage: JSONObject) -> Usage {
        Usage(
            input: usage.int("inputTokens"), output: usage.int("outputTokens"),
            cacheRead: usage.int("cacheReadInputTokens"), cacheCreation: usage.int("cacheWriteInputTokens")
        )
    }
}
