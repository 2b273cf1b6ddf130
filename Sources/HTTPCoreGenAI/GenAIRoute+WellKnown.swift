import HTTPCore
extension GenAIRoute {
    /// The providers recognised without configuration, one row each.
    ///
    /// Hugging Face TGI is recognised on Inference Endpoints only: a TGI server of your own is
    /// one row of ``GenAIRecognizer/init(additionalRoutes:includesWellKnownRoutes:)``, with
    /// ``GenAIAPI/textGenerationInference(basePath:)``.
    package static let wellKnown: [GenAIRoute] = [
        GenAIRoute(provider: .openAI, host: .host("api.openai.com"), api: .openAICompatible(basePath: "/v1")),
        GenAIRoute(provider: .anthropic, host: .host("api.anthropic.com"), api: .anthropicMessages(basePath: "/v1")),
        GenAIRoute(provider: .gcpGemini, host: .host("generativelanguage.googleapis.com"), api: .gemini),
        GenAIRoute(provider: .gcpVertexAI, host: .hosts(endingWith: "aiplatform.googleapis.com"), api: .gemini),
        GenAIRoute(provider: .azureOpenAI, host: .hosts(endingWith: ".openai.azure.com"), api: .azureOpenAI),
        GenAIRoute(provider: .awsBedrock, host: .hosts(startingWith: "bedrock-runtime.", endingWith: ".amazonaws.com"), api: .bedrockRuntime),
        GenAIRoute(provider: .groq, host: .host("api.groq.com"), api: .openAICompatible(basePath: "/openai/v1")),
        GenAIRoute(provider: .deepSeek, host: .host("api.deepseek.com"), api: .openAICompatible(basePath: "")),
        GenAIRoute(provider: .mistralAI, host: .host("api.mistral.ai"), api: .openAICompatible(basePath: "/v1")),
        GenAIRoute(provider: .xAI, host: .host("api.x.ai"), api: .openAICompatible(basePath: "/v1")),
        GenAIRoute(provider: .perplexity, host: .host("api.perplexity.ai"), api: .openAICompatible(basePath: "")),
        GenAIRoute(provider: .huggingFace, host: .hosts(endingWith: ".endpoints.huggingface.cloud"), api: .textGenerationInference()),
        GenAIRoute(provider: .ollama, host: .anyHost(port: 11434), api: .ollama()),
    ]
}
