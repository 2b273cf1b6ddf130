import HTTPCore
/// What an LLM call's response said, read by ``GenAIResponseReader`` from its body or its
/// stream: only what arrived, so a stream cut short gives what it carried until then.
package struct GenAIResponse: Sendable, Hashable {
    /// `gen_ai.response.id`: OpenAI's `id`, Anthropic's message id, Gemini's `responseId`;
    /// Ollama, TGI and Bedrock send none.
    package var id: String?
    /// `gen_ai.response.model`: the model that answered, as the provider named it (Gemini's
    /// `modelVersion`).
    package var model: String?
    /// `gen_ai.response.finish_reasons`, one per choice that finished (the last it gave, in
    /// the order of the choices' indexes), in the convention's
    /// words: `stop`, `length`, `content_filter`, `tool_call`, `error`. A reason with no
    /// counterpart stays as sent (Anthropic's `pause_turn`, Gemini's `OTHER`).
    package var finishReasons: [String]
    /// The finish reasons as the provider spelled them (`end_turn`, `MAX_TOKENS`, …).
    package var providerFinishReasons: [String]
    /// The tokens used; `nil` when the provider sent no count (an OpenAI stream without
    /// `stream_options.include_usage`, a stream cut before its usage).
    package var usage: GenAIUsage?
    /// The provider's error code or type, from an error body or an error event: OpenAI
    /// `error.code` (else `error.type`), Anthropic `error.type` (`overloaded_error`,
    /// `rate_limit_error`), Gemini `error.status` (`RESOURCE_EXHAUSTED`), TGI `error_type`,
    /// Bedrock's `x-amzn-ErrorType` header. `nil` when none named one.
    package var errorCode: String?
    /// Whether the provider said the call failed, with a code or without one: an error body
    /// or error event (Ollama's `{"error":"…"}`, a Responses `error` or `response.failed`
    /// event, a chat-completions stream's `{"error":{"message":…}}`), or Bedrock's error
    /// header. A stream answered with status 200 can end this way.
    package var hasProviderError: Bool { errorCode != nil || reportsErrorWithoutCode }
    /// Whether an error body or event named no code.
    var reportsErrorWithoutCode: Bool
    /// Whether the response was read from stream messages rather than one body: whether any
    /// message was read.
    package var isStream: Bool { messageCount > 0 }
    /// The stream messages read.
    package var messageCount: Int
    /// `gen_ai.response.time_to_first_chunk`: seconds from the request to the first message
    /// that carried generated output; `nil` for a body, or a stream that carried none.
    package var timeToFirstChunk: Double?
    /// The messages that carried generated output (text, reasoning, refusal or tool-call
    /// arguments).
    package var outputChunkCount: Int
    /// Seconds between each output chunk and the one before, in order: the values of
    /// `gen_ai.client.operation.time_per_output_chunk`. Kept for the first
    /// ``GenAIResponseReader/maximumChunkIntervals`` chunks.
    package var outputChunkIntervals: [Double]

    /// A response of these facts, for tests and for callers that know them; an `errorCode`
    /// implies ``hasProviderError``.
    package init(
        id: String? = nil, model: String? = nil, finishReasons: [String] = [], providerFinishReasons: [String] = [],
        usage: GenAIUsage? = nil, errorCode: String? = nil, hasProviderError: Bool = false, messageCount: Int = 0,
        timeToFirstChunk: Double? = nil, outputChunkCount: Int = 0, outputChunkIntervals: [Double] = []
    ) {
        self.id = id
        self.model = model
        self.finishReasons = finishReasons
        self.providerFinishReasons = providerFinishReasons
        self.usage = usage
        self.errorCode = errorCode
        reportsErrorWithoutCode = hasProviderError && errorCode == nil
        self.messageCount = messageCount
        self.timeToFirstChunk = timeToFirstChunk
        self.outputChunkCount = outputChunkCount
        self.outputChunkIntervals = outputChunkIntervals
    }
}
