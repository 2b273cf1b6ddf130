import HTTPCore
/// Who serves an LLM call: the value of OpenTelemetry's `gen_ai.provider.name`.
///
/// The static members are the convention's well-known values, which must be used where they
/// apply; any other provider gets a lowercase name of its own (``ollama``,
/// ``huggingFace``, or one you give a gateway).
public struct GenAIProvider: Sendable, Hashable, CustomStringConvertible {
    /// The name as reported, for example `"openai"` or `"gcp.gemini"`.
    public let name: String

    /// A provider of this name.
    public init(_ name: String) {
        self.name = name
    }

    /// The name.
    public var description: String { name }

    /// OpenAI (`api.openai.com`).
    public static let openAI = GenAIProvider("openai")
    /// Anthropic (`api.anthropic.com`).
    public static let anthropic = GenAIProvider("anthropic")
    /// Gemini through the AI Studio API (`generativelanguage.googleapis.com`).
    public static let gcpGemini = GenAIProvider("gcp.gemini")
    /// Vertex AI (`aiplatform.googleapis.com`).
    public static let gcpVertexAI = GenAIProvider("gcp.vertex_ai")
    /// Azure OpenAI (`*.openai.azure.com`).
    public static let azureOpenAI = GenAIProvider("azure.ai.openai")
    /// AWS Bedrock (`bedrock-runtime.*.amazonaws.com`).
    public static let awsBedrock = GenAIProvider("aws.bedrock")
    /// Groq.
    public static let groq = GenAIProvider("groq")
    /// DeepSeek.
    public static let deepSeek = GenAIProvider("deepseek")
    /// Mistral AI.
    public static let mistralAI = GenAIProvider("mistral_ai")
    /// xAI.
    public static let xAI = GenAIProvider("x_ai")
    /// Perplexity.
    public static let perplexity = GenAIProvider("perplexity")
    /// Ollama: not a well-known value of the convention, so a name of this package's choosing.
    public static let ollama = GenAIProvider("ollama")
    /// Hugging Face (Text Generation Inference, Inference Endpoints): not a well-known value
    /// of the convention, so a name of this package's choosing.
    public static let huggingFace = GenAIProvider("hugging_face")
}
