import HTTPCore
/// The HTTP API a provider speaks: its LLM endpoints (method, path, operation) and the body
/// formats their requests and responses come in.
///
/// A ``GenAIRoute`` pairs one with a provider and the host it answers on. Paths are matched
/// exactly, after the base path; the query string is ignored.
public struct GenAIAPI: Sendable, Hashable {
    let endpoints: [GenAIEndpoint]

    private init(basePath: String, _ endpoints: [GenAIEndpoint]) {
        let base = basePath.hasSuffix("/") ? String(basePath.dropLast()) : basePath
        self.endpoints = endpoints.map { endpoint in
            guard !base.isEmpty else { return endpoint }
            return GenAIEndpoint(
                base + endpoint.path.template, endpoint.operation, endpoint.format, streamsByPath: endpoint.streamsByPath
            )
        }
    }

    /// The OpenAI API and the many servers that copy it (gateways, vLLM, LiteLLM, LM Studio,
    /// Groq, Mistral, DeepSeek): `POST {basePath}/chat/completions` and `/responses`
    /// (`chat`), `/completions` (`text_completion`), `/embeddings` (`embeddings`).
    ///
    /// - Parameter basePath: The path the endpoints are under; `"/v1"` by default.
    /// - Returns: The API.
    public static func openAICompatible(basePath: String = "/v1") -> GenAIAPI {
        GenAIAPI(basePath: basePath, openAIEndpoints)
    }

    private static let openAIEndpoints = [
        GenAIEndpoint("/chat/completions", .chat, .openAIChat),
        GenAIEndpoint("/responses", .chat, .openAIResponses),
        GenAIEndpoint("/completions", .textCompletion, .openAICompletions),
        GenAIEndpoint("/embeddings", .embeddings, .openAIEmbeddings),
    ]

    /// Anthropic's Messages API: `POST {basePath}/messages` (`chat`).
    ///
    /// - Parameter basePath: The path the endpoints are under; `"/v1"` by default.
    /// - Returns: The API.
    public static func anthropicMessages(basePath: String = "/v1") -> GenAIAPI {
        GenAIAPI(basePath: basePath, [GenAIEndpoint("/messages", .chat, .anthropicMessages)])
    }

    /// Google's Gemini API, on AI Studio (`/{version}/models/{model}:generateContent`) and on
    /// Vertex AI (`/{version}/projects/…/publishers/…/models/{model}:generateContent`):
    /// `generateContent` and `streamGenerateContent` (`generate_content`), `embedContent`
    /// (`embeddings`), and AI Studio's OpenAI-compatible endpoints under `/{version}/openai`.
    /// The model is read from the path.
    public static let gemini = GenAIAPI(basePath: "", geminiEndpoints(prefix: "/*/models/") + geminiEndpoints(
        prefix: "/*/projects/*/locations/*/publishers/*/models/"
    ) + openAIEndpoints.map { GenAIEndpoint("/*/openai" + $0.path.template, $0.operation, $0.format) })

    private static func geminiEndpoints(prefix: String) -> [GenAIEndpoint] {
        [
            GenAIEndpoint(prefix + "{model}:generateContent", .generateContent, .geminiGenerateContent),
            GenAIEndpoint(prefix + "{model}:streamGenerateContent", .generateContent, .geminiGenerateContent, streamsByPath: true),
            GenAIEndpoint(prefix + "{model}:embedContent", .embeddings, .geminiEmbedContent),
        ]
    }

    /// Azure OpenAI: deployments (`/openai/deployments/{deployment}/chat/completions`,
    /// `/completions`, `/embeddings`, the deployment standing for the model) and the v1 API
    /// (`/openai/v1/…`, the model in the body).
    public static let azureOpenAI = GenAIAPI(basePath: "", [
        GenAIEndpoint("/openai/deployments/{model}/chat/completions", .chat, .openAIChat),
        GenAIEndpoint("/openai/deployments/{model}/completions", .textCompletion, .openAICompletions),
        GenAIEndpoint("/openai/deployments/{model}/embeddings", .embeddings, .openAIEmbeddings),
        GenAIEndpoint("/openai/responses", .chat, .openAIResponses),
    ] + openAIEndpoints.map { GenAIEndpoint("/openai/v1" + $0.path.template, $0.operation, $0.format) })

    /// The AWS Bedrock runtime: `/model/{modelId}/converse` and `/converse-stream` (`chat`),
    /// `/invoke` and `/invoke-with-response-stream` (`chat`, in the model's own body format).
    /// The model id is read from the path, percent-decoded.
    public static let bedrockRuntime = GenAIAPI(basePath: "", [
        GenAIEndpoint("/model/{model}/converse", .chat, .bedrockConverse),
        GenAIEndpoint("/model/{model}/converse-stream", .chat, .bedrockConverse, streamsByPath: true),
        GenAIEndpoint("/model/{model}/invoke", .chat, .bedrockInvoke),
        GenAIEndpoint("/model/{model}/invoke-with-response-stream", .chat, .bedrockInvoke, streamsByPath: true),
    ])

    /// Hugging Face Text Generation Inference: `{basePath}/generate` and `/generate_stream`
    /// (`text_completion`), and its OpenAI-compatible `/v1/chat/completions` (`chat`).
    ///
    /// - Parameter basePath: The path the endpoints are under; none by default.
    /// - Returns: The API.
    public static func textGenerationInference(basePath: String = "") -> GenAIAPI {
        GenAIAPI(basePath: basePath, [
            GenAIEndpoint("/generate", .textCompletion, .textGenerationInference),
            GenAIEndpoint("/generate_stream", .textCompletion, .textGenerationInference, streamsByPath: true),
            GenAIEndpoint("/v1/chat/completions", .chat, .openAIChat),
            GenAIEndpoint("/v1/completions", .textCompletion, .openAICompletions),
        ])
    }

    /// Ollama: `{basePath}/api/chat` (`chat`), `/api/generate` (`text_completion`),
    /// `/api/embed` and `/api/embeddings` (`embeddings`), and its OpenAI-compatible `/v1/…`.
    ///
    /// - Parameter basePath: The path the endpoints are under; none by default.
    /// - Returns: The API.
    public static func ollama(basePath: String = "") -> GenAIAPI {
        GenAIAPI(basePath: basePath, [
            GenAIEndpoint("/api/chat", .chat, .ollamaChat),
            GenAIEndpoint("/api/generate", .textCompletion, .ollamaGenerate),
            GenAIEndpoint("/api/embed", .embeddings, .ollamaEmbed),
            GenAIEndpoint("/api/embeddings", .embeddings, .ollamaEmbed),
        ] + openAIEndpoints.map { GenAIEndpoint("/v1" + $0.path.template, $0.operation, $0.format) })
    }
}
