import HTTPCore

extension HTTPError.Code {
    /// An LLM provider answered with an error: an error status, or an error event inside its
    /// stream (Anthropic's `overloaded_error`, OpenAI's `error` event). The message names the
    /// provider's code when it sent one. Thrown by ``GenAITextDeltas``.
    public static let providerError = HTTPError.Code("provider_error")
}
