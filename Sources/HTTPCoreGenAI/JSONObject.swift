import Foundation
import HTTPCore
import HTTPCoreText

/// A JSON object read by key: the one place the GenAI readers turn parsed JSON
/// (``JSONValue``) into typed values, `nil` for a key that is absent, `null` or of another type.
struct JSONObject: Sendable {
    private let members: [(key: String, value: JSONValue)]

    /// The deepest nesting read: LLM bodies nest a few levels, and the readers run on the
    /// client's threads, so the bound is tighter than ``JSONValue/defaultMaximumDepth``.
    static let maximumDepth = 64

    /// The object in `data`; `nil` when `data` is not a JSON object (an array's first
    /// element is taken when `takesFirstOfArray`, for bodies such as TGI's `[{…}]`).
    init?(data: Data, takesFirstOfArray: Bool = false) {
        guard let first = data.first(where: { !Self.isWhitespace($0) }),
            first == UInt8(ascii: "{") || (takesFirstOfArray && first == UInt8(ascii: "[")),
            let value = try? JSONValue.parse(data, maximumDepth: Self.maximumDepth, keepingMembersNamed: Self.readKeys)
        else { return nil }
        switch value {
        case .object(let fields): self.members = fields
        case .array(let elements) where takesFirstOfArray:
            guard case .object(let fields) = elements.first else { return nil }
            self.members = fields
        default: return nil
        }
    }

    init?(_ value: JSONValue?) {
        guard case .object(let fields) = value else { return nil }
        self.members = fields
    }

    /// The value of `key`; the last one when a key repeats, as in a dictionary.
    private subscript(_ key: String) -> JSONValue? {
        assert(Self.readKeys.contains(key), "\(key) is read but not in JSONObject.readKeys, so it is never parsed")
        return members.last { $0.key == key }?.value
    }

    /// Whether `key` holds a value other than `null`.
    func has(_ key: String) -> Bool {
        switch self[key] {
        case nil, .null: false
        default: true
        }
    }

    /// Whether `key` holds content: a non-empty string, array or object. Servers that copy
    /// OpenAI send `"tool_calls": []` or `"content": ""` on deltas that carry nothing.
    func hasContent(_ key: String) -> Bool {
        switch self[key] {
        case .string(let text): !text.isEmpty
        case .array(let elements): !elements.isEmpty
        case .object(let members): !members.isEmpty
        default: false
        }
    }

    func object(_ key: String) -> JSONObject? { JSONObject(self[key]) }

    func objects(_ key: String) -> [JSONObject]? {
        guard case .array(let elements) = self[key] else { return nil }
        return elements.compactMap(JSONObject.init)
    }

    func string(_ key: String) -> String? {
        guard case .string(let text) = self[key] else { return nil }
        return text
    }

    func bool(_ key: String) -> Bool? {
        guard case .bool(let flag) = self[key] else { return nil }
        return flag
    }

    /// An integral number; `nil` for one with a fraction.
    func int(_ key: String) -> Int? {
        guard case .number(let number, _) = self[key], number.rounded() == number, abs(number) < 9e15 else { return nil }
        return Int(number)
    }

    func double(_ key: String) -> Double? {
        guard case .number(let number, _) = self[key] else { return nil }
        return number
    }

    /// A list of strings, or one string as a list of one (`stop` may be either).
    func strings(_ key: String) -> [String]? {
        switch self[key] {
        case .string(let one): [one]
        case .array(let elements):
            elements.compactMap {
                guard case .string(let text) = $0 else { return nil }
                return text
            }
        default: nil
        }
    }

    /// The object at a path of object keys, e.g. `output`, `message`.
    func object(at path: String...) -> JSONObject? {
        var current: JSONObject? = self
        for key in path { current = current?.object(key) }
        return current
    }

    /// Every key the GenAI readers (``LLMPayload``, ``GenAIRequestParameters``) read, at any
    /// depth: members named otherwise (`messages`, `tools`, `logprobs`, a prompt) are checked
    /// as JSON but not built. Reading a key missing here fails an assertion in debug builds.
    static let readKeys: Set<String> = [
        // Responses: ids, shapes, errors, finish reasons.
        "id", "model", "modelVersion", "responseId", "object", "type", "status", "error", "error_type", "code", "done",
        "done_reason", "choices", "index", "finish_reason", "finishReason", "stop_reason", "stopReason", "reason",
        "incomplete_details", "promptFeedback", "blockReason", "candidates", "response", "output", "details", "token",
        "special", "generated_text", "embeddings",
        // Responses: output.
        "message", "delta", "content", "parts", "text", "partial_json", "thinking", "functionCall", "toolUse",
        "reasoningContent", "tool_calls", "function_call", "refusal", "reasoning_content", "reasoning",
        // Responses: usage.
        "usage", "usageMetadata", "prompt_tokens", "completion_tokens", "prompt_tokens_details", "completion_tokens_details",
        "cached_tokens", "reasoning_tokens", "input_tokens", "output_tokens", "input_tokens_details", "output_tokens_details",
        "cache_read_input_tokens", "cache_creation_input_tokens", "promptTokenCount", "candidatesTokenCount",
        "cachedContentTokenCount", "thoughtsTokenCount", "generated_tokens", "prompt_eval_count", "eval_count", "inputTokens",
        "outputTokens", "cacheReadInputTokens", "cacheWriteInputTokens",
        // Requests.
        "stream", "max_completion_tokens", "max_tokens", "max_output_tokens", "max_gen_len", "max_tokens_to_sample",
        "max_new_tokens", "num_predict", "maxOutputTokens", "maxTokens", "temperature", "top_p", "topP", "top_k", "topK",
        "stop", "stop_sequences", "stopSequences", "seed", "frequency_penalty", "frequencyPenalty", "presence_penalty",
        "presencePenalty", "n", "candidateCount", "generationConfig", "inferenceConfig", "additionalModelRequestFields",
        "parameters", "options",
    ]

    private static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09
    }
}
