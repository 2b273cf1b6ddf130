import Foundation
import HTTPCore
@testable import HTTPCoreGenAI
import XCTest

/// Which requests are LLM calls, by method, host and path, and what the table reads from
/// their URLs.
final class GenAIRecognizerTests: XCTestCase {
    private func recognize(_ url: String, method: HTTPMethod = .post, by recognizer: GenAIRecognizer = .standard) -> GenAIRecognition? {
        recognizer.recognize(method: method, url: URL(string: url)!)
    }

    func testEachWellKnownEndpointGivesItsProviderAndOperation() {
        let expected: [(String, String, String, String?)] = [
            ("https://api.openai.com/v1/chat/completions", "openai", "chat", nil),
            ("https://api.openai.com/v1/responses", "openai", "chat", nil),
            ("https://api.openai.com/v1/embeddings", "openai", "embeddings", nil),
            ("https://api.openai.com/v1/completions", "openai", "text_completion", nil),
            ("https://API.OpenAI.com/v1/chat/completions", "openai", "chat", nil),
            ("https://api.anthropic.com/v1/messages", "anthropic", "chat", nil),
            ("https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:generateContent", "gcp.gemini", "generate_content", "gemini-2.5-flash"),
            ("https://generativelanguage.googleapis.com/v1/models/gemini-2.0-flash:streamGenerateContent?alt=sse", "gcp.gemini", "generate_content", "gemini-2.0-flash"),
            ("https://generativelanguage.googleapis.com/v1beta/models/text-embedding-004:embedContent", "gcp.gemini", "embeddings", "text-embedding-004"),
            ("https://generativelanguage.googleapis.com/v1beta/openai/chat/completions", "gcp.gemini", "chat", nil),
            ("https://us-central1-aiplatform.googleapis.com/v1/projects/acme/locations/us-central1/publishers/google/models/gemini-2.5-pro:generateContent", "gcp.vertex_ai", "generate_content", "gemini-2.5-pro"),
            ("https://acme.openai.azure.com/openai/deployments/gpt4o-prod/chat/completions?api-version=2024-10-21", "azure.ai.openai", "chat", "gpt4o-prod"),
            ("https://acme.openai.azure.com/openai/deployments/embed-small/embeddings?api-version=2024-10-21", "azure.ai.openai", "embeddings", "embed-small"),
            ("https://acme.openai.azure.com/openai/v1/chat/completions", "azure.ai.openai", "chat", nil),
            ("https://bedrock-runtime.us-east-1.amazonaws.com/model/anthropic.claude-3-5-sonnet-20240620-v1%3A0/converse", "aws.bedrock", "chat", "anthropic.claude-3-5-sonnet-20240620-v1:0"),
            ("https://bedrock-runtime.eu-west-1.amazonaws.com/model/amazon.nova-pro-v1:0/converse-stream", "aws.bedrock", "chat", "amazon.nova-pro-v1:0"),
            ("https://bedrock-runtime.us-west-2.amazonaws.com/model/meta.llama3-70b-instruct-v1%3A0/invoke", "aws.bedrock", "chat", "meta.llama3-70b-instruct-v1:0"),
            ("https://api.groq.com/openai/v1/chat/completions", "groq", "chat", nil),
            ("https://api.deepseek.com/chat/completions", "deepseek", "chat", nil),
            ("https://api.mistral.ai/v1/embeddings", "mistral_ai", "embeddings", nil),
            ("https://api.x.ai/v1/chat/completions", "x_ai", "chat", nil),
            ("https://api.perplexity.ai/chat/completions", "perplexity", "chat", nil),
            ("https://my-endpoint.us-east-1.aws.endpoints.huggingface.cloud/generate_stream", "hugging_face", "text_completion", nil),
            ("http://localhost:11434/api/chat", "ollama", "chat", nil),
            ("http://localhost:11434/api/generate", "ollama", "text_completion", nil),
            ("http://10.0.0.7:11434/api/embed", "ollama", "embeddings", nil),
            ("http://localhost:11434/v1/chat/completions", "ollama", "chat", nil),
        ]
        for (url, provider, operation, model) in expected {
            let call = recognize(url)
            XCTAssertEqual(call?.provider.name, provider, url)
            XCTAssertEqual(call?.operation.name, operation, url)
            XCTAssertEqual(call?.modelInPath, model, url)
        }
    }

    func testStreamingPathsSayTheyStream() {
        XCTAssertEqual(recognize("https://generativelanguage.googleapis.com/v1beta/models/g:streamGenerateContent")?.isStreamingEndpoint, true)
        XCTAssertEqual(recognize("https://generativelanguage.googleapis.com/v1beta/models/g:generateContent")?.isStreamingEndpoint, false)
        XCTAssertEqual(recognize("https://bedrock-runtime.us-east-1.amazonaws.com/model/m/converse-stream")?.isStreamingEndpoint, true)
        XCTAssertEqual(recognize("https://api.openai.com/v1/chat/completions")?.isStreamingEndpoint, false, "the body says")
    }

    func testRequestsThatAreNotLLMCallsAreNotRecognised() {
        for url in [
            "https://api.example.com/v1/chat/completions",
            "https://api.github.com/graphql",
            "https://api.openai.com/v1/models",
            "https://api.openai.com/v1/chat/completions/extra",
            "https://api.anthropic.com/v1/messages/count_tokens",
            "https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:countTokens",
            "https://notapi.openai.com.evil.example/v1/chat/completions",
            "https://bedrock.us-east-1.amazonaws.com/foundation-models",
            "http://localhost:8000/v1/chat/completions",
            "http://localhost:11434/api/tags",
        ] {
            XCTAssertNil(recognize(url), url)
        }
        XCTAssertNil(recognize("https://api.openai.com/v1/chat/completions", method: .get), "only POST generates")
    }

    func testAHostIsReadAsFoundationReadsItWhateverTheURLAroundIt() {
        for url in [
            "https://user:secret@api.openai.com/v1/chat/completions",
            "https://api.openai.com:443/v1/chat/completions",
            "https://API.OPENAI.COM/v1/chat/completions",
            "https://api.openai.com/v1/chat/completions?x=1#frag",
            "http://[::1]:11434/api/chat",
            "http://user@localhost:11434/api/chat",
        ] {
            XCTAssertNotNil(recognize(url), url)
        }
        XCTAssertEqual(recognize("https://user:secret@api.openai.com/v1/chat/completions")?.serverAddress, "api.openai.com")
        for url in [
            "https://api.openai.com@api.example.com/v1/chat/completions",
            "https://api.openai.com.example.com/v1/chat/completions",
            "https://api.example.com/v1/chat/completions?host=api.openai.com",
        ] {
            XCTAssertNil(recognize(url), url)
        }
        XCTAssertEqual(recognize("https://api.openai.com:8443/v1/chat/completions")?.serverPort, 8443)
    }

    func testAHostThatEndsLikeARowMatchesOnlyWhatTheRowSays() {
        XCTAssertNil(recognize("https://openai.azure.com/openai/deployments/gpt-4o/chat/completions?api-version=2024-10-21"),
                     "the row's suffix starts with a dot")
        XCTAssertNil(recognize("https://amazonaws.com/model/anthropic.claude-3-haiku/converse"))
        XCTAssertNil(recognize("https://bedrock-runtime.amazonaws.com/model/anthropic.claude-3-haiku/converse"),
                     "prefix and suffix may not overlap")
        XCTAssertNil(recognize("https://openai.com/v1/chat/completions"))
        XCTAssertEqual(recognize("https://AIPLATFORM.googleapis.COM/v1/projects/p/locations/l/publishers/google/models/gemini-2.5-flash:generateContent")?
            .provider, .gcpVertexAI, "the whole suffix, in any case")
        XCTAssertEqual(recognize("https://MY-RESOURCE.OPENAI.AZURE.COM/openai/deployments/gpt-4o/chat/completions")?.provider, .azureOpenAI)
    }

    func testAPortIsReadAsFoundationReadsItForEveryRowThatNamesOne() {
        XCTAssertEqual(recognize("https://API.EXAMPLE.COM:11434/api/chat")?.provider, .ollama, "any host on Ollama's port")
        XCTAssertEqual(recognize("https://api.example.com:011434/api/chat")?.serverPort, 11434)
        XCTAssertEqual(recognize("http://[2001:db8::1]:11434/api/chat")?.serverAddress, "2001:db8::1")
        XCTAssertNil(recognize("https://api.example.com/api/chat"), "Ollama's row names a port")
        XCTAssertNil(recognize("http://[2001:db8::1]/api/chat"))
        XCTAssertNil(recognize("https://api.example.com:114340/api/chat"))
        XCTAssertNil(recognize("https://user:11434@api.example.com/api/chat"), "a password is not a port")
        XCTAssertEqual(recognize("https://user:secret@api.example.com:11434/api/chat")?.provider, .ollama)
        let gateways = GenAIRecognizer(additionalRoutes: [
            .openAICompatible(provider: GenAIProvider("gateway"), host: "llm.example.com", port: 8443),
            .openAICompatible(provider: GenAIProvider("tls_gateway"), host: "tls.example.com", port: 443),
        ])
        XCTAssertEqual(recognize("https://LLM.example.com:8443/v1/chat/completions", by: gateways)?.provider.name, "gateway")
        XCTAssertNil(recognize("https://llm.example.com/v1/chat/completions", by: gateways), "443, not the row's port")
        XCTAssertNil(recognize("https://llm.example.com:8444/v1/chat/completions", by: gateways))
        XCTAssertEqual(recognize("https://tls.example.com/v1/chat/completions", by: gateways)?.provider.name, "tls_gateway", "https's port")
        XCTAssertEqual(recognize("https://tls.example.com:443/v1/chat/completions", by: gateways)?.provider.name, "tls_gateway")
        XCTAssertNil(recognize("http://tls.example.com/v1/chat/completions", by: gateways), "http's port is 80")
    }

    func testAGatewayOrALocalServerIsOneRowOfConfiguration() {
        let recognizer = GenAIRecognizer(additionalRoutes: [
            .openAICompatible(provider: GenAIProvider("litellm"), host: "llm.internal.example.com", basePath: "/proxy/v1"),
            GenAIRoute(provider: GenAIProvider("vllm"), host: .localhost(port: 8000), api: .openAICompatible()),
        ])
        let gateway = recognize("https://llm.internal.example.com/proxy/v1/chat/completions", by: recognizer)
        XCTAssertEqual(gateway?.provider.name, "litellm")
        XCTAssertEqual(gateway?.operation, .chat)
        XCTAssertEqual(gateway?.serverAddress, "llm.internal.example.com")
        XCTAssertNil(recognize("https://llm.internal.example.com/v1/chat/completions", by: recognizer), "outside its base path")
        XCTAssertEqual(recognize("http://127.0.0.1:8000/v1/embeddings", by: recognizer)?.provider.name, "vllm")
        XCTAssertNil(recognize("http://127.0.0.1:8001/v1/embeddings", by: recognizer), "another port")
        XCTAssertEqual(recognize("https://api.openai.com/v1/responses", by: recognizer)?.provider, .openAI, "the well-known rows stay")
    }

    func testAConfiguredRowComesBeforeTheWellKnownOnes() {
        let recognizer = GenAIRecognizer(additionalRoutes: [
            .openAICompatible(provider: GenAIProvider("corporate_proxy"), host: "api.openai.com"),
        ])
        XCTAssertEqual(recognize("https://api.openai.com/v1/chat/completions", by: recognizer)?.provider.name, "corporate_proxy")
        let onlyMine = GenAIRecognizer(additionalRoutes: [], includesWellKnownRoutes: false)
        XCTAssertNil(recognize("https://api.openai.com/v1/chat/completions", by: onlyMine))
    }
}
