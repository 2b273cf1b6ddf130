import HTTPCore
@testable import HTTPCoreGenAI
import HTTPCoreTestPeers
import XCTest

/// LLM calls answered with one JSON body, read into every attribute the convention names;
/// none of them streamed, so none reports `gen_ai.request.stream` or a time to first chunk.
final class GenAIBodyExchangeTests: XCTestCase {
    func testOpenAIChatCompletionWithTwoChoicesAndReasoningTokens() throws {
        let exchange = try GenAIFixture.openAIChatCompletion.exchange()
        assertAttributes(exchange, [
            ("gen_ai.provider.name", .string("openai")),
            ("gen_ai.operation.name", .string("chat")),
            ("gen_ai.request.model", .string("o4-mini")),
            ("gen_ai.request.max_tokens", .int(2000)),
            ("gen_ai.request.stop_sequences", .stringArray(["<|end|>"])),
            ("gen_ai.request.choice.count", .int(2)),
            ("gen_ai.response.id", .string("chatcmpl-Bx4Reasoning")),
            ("gen_ai.response.model", .string("o4-mini-2025-04-16")),
            ("gen_ai.response.finish_reasons", .stringArray(["stop", "length"])),
            ("gen_ai.usage.input_tokens", .int(1380)),
            ("gen_ai.usage.output_tokens", .int(1998)),
            ("gen_ai.usage.cache_read.input_tokens", .int(1280)),
            ("gen_ai.usage.reasoning.output_tokens", .int(1920)),
            ("server.address", .string("api.openai.com")),
            ("server.port", .int(443)),
        ])
        XCTAssertFalse(exchange.response.isStream)
        XCTAssertEqual(exchange.response.outputChunkCount, 0, "a body is not chunks")
    }

    func testAnthropicMessageEndingInAToolCall() throws {
        let exchange = try GenAIFixture.anthropicMessage.exchange()
        assertAttributes(exchange, [
            ("gen_ai.provider.name", .string("anthropic")),
            ("gen_ai.operation.name", .string("chat")),
            ("gen_ai.request.model", .string("claude-3-5-haiku-latest")),
            ("gen_ai.request.max_tokens", .int(512)),
            ("gen_ai.response.id", .string("msg_01Aq9w938a90dw8q")),
            ("gen_ai.response.model", .string("claude-3-5-haiku-20241022")),
            ("gen_ai.response.finish_reasons", .stringArray(["tool_call"])),
            ("gen_ai.usage.input_tokens", .int(412)),
            ("gen_ai.usage.output_tokens", .int(57)),
            ("server.address", .string("api.anthropic.com")),
            ("server.port", .int(443)),
        ])
    }

    func testBedrockConverseTakesTheDecodedModelIdFromThePathAndAddsCacheReads() throws {
        let exchange = try GenAIFixture.bedrockConverse.exchange()
        assertAttributes(exchange, [
            ("gen_ai.provider.name", .string("aws.bedrock")),
            ("gen_ai.operation.name", .string("chat")),
            ("gen_ai.request.model", .string("anthropic.claude-3-5-sonnet-20240620-v1:0")),
            ("gen_ai.request.max_tokens", .int(512)),
            ("gen_ai.request.temperature", .double(0.5)),
            ("gen_ai.request.top_p", .double(0.9)),
            ("gen_ai.request.top_k", .double(250)),
            ("gen_ai.request.stop_sequences", .stringArray(["</answer>"])),
            ("gen_ai.response.finish_reasons", .stringArray(["stop"])),
            ("gen_ai.usage.input_tokens", .int(30 + 1000)),
            ("gen_ai.usage.output_tokens", .int(8)),
            ("gen_ai.usage.cache_read.input_tokens", .int(1000)),
            ("gen_ai.usage.cache_creation.input_tokens", .int(0)),
            ("server.address", .string("bedrock-runtime.us-east-1.amazonaws.com")),
            ("server.port", .int(443)),
        ])
    }

    func testOpenAIEmbeddingsReportInputTokensOnly() throws {
        let exchange = try GenAIFixture.openAIEmbeddings.exchange()
        assertAttributes(exchange, [
            ("gen_ai.provider.name", .string("openai")),
            ("gen_ai.operation.name", .string("embeddings")),
            ("gen_ai.request.model", .string("text-embedding-3-small")),
            ("gen_ai.response.model", .string("text-embedding-3-small")),
            ("gen_ai.usage.input_tokens", .int(5)),
            ("server.address", .string("api.openai.com")),
            ("server.port", .int(443)),
        ])
    }

    func testOllamaEmbedOnAnyHostOfItsPort() throws {
        let exchange = try GenAIFixture.ollamaEmbed.exchange()
        assertAttributes(exchange, [
            ("gen_ai.provider.name", .string("ollama")),
            ("gen_ai.operation.name", .string("embeddings")),
            ("gen_ai.request.model", .string("all-minilm")),
            ("gen_ai.response.model", .string("all-minilm")),
            ("gen_ai.usage.input_tokens", .int(8)),
            ("server.address", .string("gpu-box.lan")),
            ("server.port", .int(11434)),
        ])
    }
}
