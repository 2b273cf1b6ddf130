import HTTPCore
/// Who serves an LLM call: the value of OpenTelemetry's `gen_ai.provider.name`.
///
/// The well-known providers are reported under the convention's values (`openai`,
/// `anthropic`, `gcp.gemini`, `gcp.vertex_ai`, `azure.ai.openai`, `aws.bedrock`, `groq`,
/// `deepseek`, `mistral_ai`, `x_ai`, `perplexity`), Ollama as `ollama` and Hugging Face as
/// `hugging_face`. A row of your own names its provider: the convention's value where one
/// applies, else a lowercase name of your own.
public struct GenAIProvider: Sendable, Hashable {
    /// The name as reported, for example `"openai"` or `"gcp.gemini"`.
    public let name: String

    /// A provider of this name.
    ///
    /// - Parameter name: The value of `gen_ai.provider.name`.
    public init(_ name: String) {
        self.name = name
    }

    /// OpenAI (`api.openai.com`).
    package static let openAI = GenAIProvider("openai")
    /// Anthropic (`api.anthropic.com`).
    package static let anthropic = GenAIProvider("anthropic")
    /// Gemini through the AI Studio API (`generativelanguage.googleapis.com`).
    package static let gcpGemini = GenAIProvider("gcp.gemini")
    /// Vertex AI (`aiplatform.googleapis.com`).
    package static let gcpVertexAI = GenAIProvider("gcp.vertex_ai")
    /// Azure OpenAI (`*.openai.azure.com`).
    package static let azureOpenAI = GenAIProvider("azure.ai.openai")
    /// AWS Bedrock (`bedrock-runtime.*.amazonaws.com`).
    package static let awsBedrock = GenAIProvider("aws.bedrock")
    /// Groq.
    package static let groq = GenAIProvider("groq")
    /// DeepSeek.
    package static let deepSeek = GenAIProvider("deepseek")
    /// Mistral AI.
    package static let mistralAI = GenAIProvider("mistral_ai")
    /// xAI.
    package static let xAI = GenAIProvider("x_ai")
    /// Perplexity.
    package static let perplexity = GenAIProvider("perplexity")
    /// Ollama: not a well-known value of the convention, so a name of this package's choosing.
    package static let ollama = GenAIProvider("ollama")
    /// Hugging Face (Text Generation Inference, Inference Endpoints): not a well-known value
    /// of the convention, so a name of this package's choosing.
    package static let huggingFace = GenAIProvider("hugging_face")
}

extension GenAIProvider: CustomStringConvertible {
    /// The name.
    public var description: String { name }
}
