import HTTPCore
/// What an LLM call does: the value of OpenTelemetry's `gen_ai.operation.name`.
///
/// Each endpoint of a ``GenAIAPI`` does one of the static members' operations.
public struct GenAIOperation: Sendable, Hashable {
    /// The name as reported, for example `"chat"`.
    public let name: String

    /// An operation of this name.
    package init(_ name: String) {
        self.name = name
    }

    /// A chat completion: OpenAI chat completions and responses, Anthropic messages, Bedrock
    /// converse, Ollama `/api/chat`.
    public static let chat = GenAIOperation("chat")
    /// Multimodal content generation: Gemini `generateContent` and `streamGenerateContent`.
    public static let generateContent = GenAIOperation("generate_content")
    /// A text completion from a prompt: OpenAI's legacy completions, TGI `/generate`,
    /// Ollama `/api/generate`.
    public static let textCompletion = GenAIOperation("text_completion")
    /// Embeddings of the input.
    public static let embeddings = GenAIOperation("embeddings")
}

extension GenAIOperation: CustomStringConvertible {
    /// The name.
    public var description: String { name }
}
