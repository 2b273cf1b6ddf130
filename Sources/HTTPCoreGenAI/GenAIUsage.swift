import HTTPCore
/// The tokens an LLM call used, in the convention's terms, as far as the provider reported
/// them: a count it did not send stays `nil`, never 0.
package struct GenAIUsage: Sendable, Hashable {
    /// `gen_ai.usage.input_tokens`: all input tokens, cached ones included (Anthropic and
    /// Bedrock report the cached ones apart; they are added here, as the convention says).
    package var inputTokens: Int?
    /// `gen_ai.usage.output_tokens`: all output tokens, reasoning included (Gemini reports
    /// `thoughtsTokenCount` apart; it is added here).
    package var outputTokens: Int?
    /// `gen_ai.usage.cache_read.input_tokens`: input tokens served from the provider's cache
    /// (OpenAI `cached_tokens`, Anthropic `cache_read_input_tokens`, Gemini
    /// `cachedContentTokenCount`, Bedrock `cacheReadInputTokens`).
    package var cacheReadInputTokens: Int?
    /// `gen_ai.usage.cache_creation.input_tokens`: input tokens written to the provider's
    /// cache (Anthropic `cache_creation_input_tokens`, Bedrock `cacheWriteInputTokens`).
    package var cacheCreationInputTokens: Int?
    /// `gen_ai.usage.reasoning.output_tokens`: output tokens spent reasoning (OpenAI
    /// `reasoning_tokens`, Gemini `thoughtsTokenCount`).
    package var reasoningOutputTokens: Int?

    /// Usage of these counts.
    package init(
        inputTokens: Int? = nil, outputTokens: Int? = nil, cacheReadInputTokens: Int? = nil,
        cacheCreationInputTokens: Int? = nil, reasoningOutputTokens: Int? = nil
    ) {
        self.inputTokens = inputTokens
        self.outputTokens = outputTokens
        self.cacheReadInputTokens = cacheReadInputTokens
        self.cacheCreationInputTokens = cacheCreationInputTokens
        self.reasoningOutputTokens = reasoningOutputTokens
    }
}
