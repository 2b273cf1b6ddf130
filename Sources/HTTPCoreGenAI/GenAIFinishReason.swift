import HTTPCore
/// The finish reasons of the convention's output messages (`stop`, `length`,
/// `content_filter`, `tool_call`, `error`), from each provider's own spelling.
enum GenAIFinishReason {
    /// The convention's reason for `reason` as a provider sent it; a reason with no
    /// counterpart is kept as sent.
    static func conventionName(of reason: String) -> String {
        mapping[reason] ?? reason
    }

    private static let mapping: [String: String] = [
        // OpenAI chat completions (and the servers that copy them, Ollama, TGI's chat).
        "stop": "stop", "length": "length", "content_filter": "content_filter", "tool_calls": "tool_call",
        "function_call": "tool_call",
        // OpenAI responses: the status, or why the response is incomplete.
        "completed": "stop", "max_output_tokens": "length", "failed": "error",
        // Anthropic and Bedrock.
        "end_turn": "stop", "stop_sequence": "stop", "max_tokens": "length", "tool_use": "tool_call", "refusal": "content_filter",
        "model_context_window_exceeded": "length", "guardrail_intervened": "content_filter", "content_filtered": "content_filter",
        // Gemini.
        "STOP": "stop", "MAX_TOKENS": "length", "SAFETY": "content_filter", "RECITATION": "content_filter",
        "BLOCKLIST": "content_filter", "PROHIBITED_CONTENT": "content_filter", "SPII": "content_filter",
        "IMAGE_SAFETY": "content_filter", "MALFORMED_FUNCTION_CALL": "error",
        // Hugging Face TGI.
        "eos_token": "stop",
    ]
}
