@testable import HTTPCore
@testable import HTTPCoreObservation
@testable import HTTPCoreGenAI
import HTTPCoreTestPeers
import XCTest

/// Streamed LLM calls, each in its provider's documented shape, read into every attribute
/// the convention names. Messages arrive 0.5 s after the request, then every 0.125 s.
final class GenAIStreamedExchangeTests: XCTestCase {
    func testOpenAIChatStreamWithUsageGivesEveryAttribute() throws {
        let exchange = try GenAIFixture.openAIChatStream.exchange()
        assertAttributes(exchange, [
            ("gen_ai.provider.name", .string("openai")),
            ("gen_ai.operation.name", .string("chat")),
            ("gen_ai.request.model", .string("gpt-4o-mini")),
            ("gen_ai.request.max_tokens", .int(256)),
            ("gen_ai.request.temperature", .double(0.2)),
            ("gen_ai.request.top_p", .double(0.9)),
            ("gen_ai.request.stop_sequences", .stringArray(["\n\n"])),
            ("gen_ai.request.seed", .int(42)),
            ("gen_ai.request.frequency_penalty", .double(0.5)),
            ("gen_ai.request.presence_penalty", .double(0.25)),
            ("gen_ai.request.stream", .bool(true)),
            ("gen_ai.response.id", .string("chatcmpl-B9MHDbslfkBeAs8l4bebGdFOJ6PeG")),
            ("gen_ai.response.model", .string("gpt-4o-mini-2024-07-18")),
            ("gen_ai.response.finish_reasons", .stringArray(["stop"])),
            ("gen_ai.response.time_to_first_chunk", .double(0.625)),
            ("gen_ai.usage.input_tokens", .int(1214)),
            ("gen_ai.usage.output_tokens", .int(9)),
            ("gen_ai.usage.cache_read.input_tokens", .int(1152)),
            ("gen_ai.usage.reasoning.output_tokens", .int(0)),
            ("server.address", .string("api.openai.com")),
            ("server.port", .int(443)),
        ])
        XCTAssertEqual(exchange.request.choiceCount, 1, "read, but n = 1 is not reported, as the convention asks")
        XCTAssertEqual(exchange.spanName, "chat gpt-4o-mini")
        XCTAssertEqual(exchange.response.messageCount, 7, "[DONE] included")
        XCTAssertEqual(exchange.response.outputChunkCount, 3, "not the role-only, finish or usage chunks")
        XCTAssertEqual(exchange.response.outputChunkIntervals, [0.125, 0.125])
    }

    func testToolCallArgumentFragmentsAreOutputChunksButNotAnswerText() throws {
        let fixture = GenAIFixture.openAIToolCallStream
        let exchange = try fixture.exchange()
        assertAttributes(exchange, [
            ("gen_ai.provider.name", .string("openai")),
            ("gen_ai.operation.name", .string("chat")),
            ("gen_ai.request.model", .string("gpt-4.1")),
            ("gen_ai.request.stream", .bool(true)),
            ("gen_ai.response.id", .string("chatcmpl-C1tool")),
            ("gen_ai.response.model", .string("gpt-4.1-2025-04-14")),
            ("gen_ai.response.finish_reasons", .stringArray(["tool_call"])),
            ("gen_ai.response.time_to_first_chunk", .double(0.5)),
            ("server.address", .string("api.openai.com")),
            ("server.port", .int(443)),
        ])
        XCTAssertEqual(exchange.response.providerFinishReasons, ["tool_calls"])
        XCTAssertNil(exchange.response.usage, "no include_usage: no counts, not zeros")
        XCTAssertEqual(exchange.response.outputChunkCount, 3, "the call's name, then two argument fragments")
        let answer = try XCTUnwrap(StreamAnswer(body: Data(fixture.responseBody.utf8), contentType: fixture.contentType, redactedBy: .none, readBy: [GenAIRecognizer.genAI]))
        XCTAssertEqual(answer.text, "")
    }

    func testOpenAIResponsesStreamGivesEveryAttribute() throws {
        let exchange = try GenAIFixture.openAIResponsesStream.exchange()
        assertAttributes(exchange, [
            ("gen_ai.provider.name", .string("openai")),
            ("gen_ai.operation.name", .string("chat")),
            ("gen_ai.request.model", .string("gpt-4.1")),
            ("gen_ai.request.max_tokens", .int(64)),
            ("gen_ai.request.temperature", .double(1)),
            ("gen_ai.request.top_p", .double(1)),
            ("gen_ai.request.stream", .bool(true)),
            ("gen_ai.response.id", .string("resp_67c9fdcecf488190bdd9a0409de3a1ec07b8b0ad4e5eb654")),
            ("gen_ai.response.model", .string("gpt-4.1-2025-04-14")),
            ("gen_ai.response.finish_reasons", .stringArray(["stop"])),
            ("gen_ai.response.time_to_first_chunk", .double(1.0)),
            ("gen_ai.usage.input_tokens", .int(37)),
            ("gen_ai.usage.output_tokens", .int(4)),
            ("gen_ai.usage.cache_read.input_tokens", .int(0)),
            ("gen_ai.usage.reasoning.output_tokens", .int(0)),
            ("server.address", .string("api.openai.com")),
            ("server.port", .int(443)),
        ])
        XCTAssertEqual(exchange.response.outputChunkCount, 2, "the two text deltas; not output_text.done")
    }

    func testAnthropicStreamAddsCachedTokensToInputAndTakesTheCumulativeOutputCount() throws {
        let exchange = try GenAIFixture.anthropicStream.exchange()
        assertAttributes(exchange, [
            ("gen_ai.provider.name", .string("anthropic")),
            ("gen_ai.operation.name", .string("chat")),
            ("gen_ai.request.model", .string("claude-sonnet-4-20250514")),
            ("gen_ai.request.max_tokens", .int(1024)),
            ("gen_ai.request.temperature", .double(0.7)),
            ("gen_ai.request.top_p", .double(0.95)),
            ("gen_ai.request.top_k", .double(40)),
            ("gen_ai.request.stop_sequences", .stringArray(["\n\nHuman:"])),
            ("gen_ai.request.stream", .bool(true)),
            ("gen_ai.response.id", .string("msg_01XFDUDYJgAACzvnptvVoYEL")),
            ("gen_ai.response.model", .string("claude-sonnet-4-20250514")),
            ("gen_ai.response.finish_reasons", .stringArray(["stop"])),
            ("gen_ai.response.time_to_first_chunk", .double(0.875)),
            ("gen_ai.usage.input_tokens", .int(25 + 2048 + 1024)),
            ("gen_ai.usage.output_tokens", .int(15)),
            ("gen_ai.usage.cache_read.input_tokens", .int(2048)),
            ("gen_ai.usage.cache_creation.input_tokens", .int(1024)),
            ("server.address", .string("api.anthropic.com")),
            ("server.port", .int(443)),
        ])
        XCTAssertEqual(exchange.response.providerFinishReasons, ["end_turn"])
        XCTAssertEqual(exchange.response.outputChunkIntervals, [0.125], "ping, start and stop events are not chunks")
    }

    func testGeminiStreamTakesTheModelFromThePathAndCountsThoughtsAsOutput() throws {
        let exchange = try GenAIFixture.geminiStream.exchange()
        assertAttributes(exchange, [
            ("gen_ai.provider.name", .string("gcp.gemini")),
            ("gen_ai.operation.name", .string("generate_content")),
            ("gen_ai.request.model", .string("gemini-2.5-flash")),
            ("gen_ai.request.max_tokens", .int(1024)),
            ("gen_ai.request.temperature", .double(0.9)),
            ("gen_ai.request.top_p", .double(0.95)),
            ("gen_ai.request.top_k", .double(64)),
            ("gen_ai.request.stop_sequences", .stringArray(["END"])),
            ("gen_ai.request.seed", .int(7)),
            ("gen_ai.request.frequency_penalty", .double(0.2)),
            ("gen_ai.request.presence_penalty", .double(0.1)),
            ("gen_ai.request.stream", .bool(true)),
            ("gen_ai.response.id", .string("mKNtaPWFD8ngz7IPpqO_kAQ")),
            ("gen_ai.response.model", .string("gemini-2.5-flash")),
            ("gen_ai.response.finish_reasons", .stringArray(["stop"])),
            ("gen_ai.response.time_to_first_chunk", .double(0.5)),
            ("gen_ai.usage.input_tokens", .int(9)),
            ("gen_ai.usage.output_tokens", .int(21 + 20)),
            ("gen_ai.usage.cache_read.input_tokens", .int(4)),
            ("gen_ai.usage.reasoning.output_tokens", .int(20)),
            ("server.address", .string("generativelanguage.googleapis.com")),
            ("server.port", .int(443)),
        ])
        XCTAssertEqual(exchange.response.providerFinishReasons, ["STOP"])
        XCTAssertNil(exchange.request.stream, "the path asks for the stream, not the body")
    }

    func testTextGenerationInferenceStreamOnAConfiguredHost() throws {
        let recognizer = GenAIRecognizer(additionalRoutes: [
            GenAIRoute(provider: .huggingFace, host: .host("tgi.internal", port: 8080), api: .textGenerationInference()),
        ])
        let exchange = try GenAIFixture.textGenerationInferenceStream.exchange(recognizer: recognizer)
        assertAttributes(exchange, [
            ("gen_ai.provider.name", .string("hugging_face")),
            ("gen_ai.operation.name", .string("text_completion")),
            ("gen_ai.request.max_tokens", .int(20)),
            ("gen_ai.request.temperature", .double(0.5)),
            ("gen_ai.request.top_p", .double(0.9)),
            ("gen_ai.request.top_k", .double(10)),
            ("gen_ai.request.stop_sequences", .stringArray(["\n"])),
            ("gen_ai.request.seed", .int(3)),
            ("gen_ai.request.stream", .bool(true)),
            ("gen_ai.response.finish_reasons", .stringArray(["stop"])),
            ("gen_ai.response.time_to_first_chunk", .double(0.5)),
            ("gen_ai.usage.output_tokens", .int(3)),
            ("server.address", .string("tgi.internal")),
            ("server.port", .int(8080)),
        ])
        XCTAssertEqual(exchange.spanName, "text_completion", "TGI serves one model and names none")
        XCTAssertEqual(exchange.response.outputChunkCount, 2, "the special end token is not output")
        XCTAssertNil(GenAIRecognizer.standard.recognize(method: .post, url: URL(string: GenAIFixture.textGenerationInferenceStream.url)!))
    }

    func testOllamaChatStreamsByDefaultAndReportsItsCounts() throws {
        let exchange = try GenAIFixture.ollamaChatStream.exchange()
        assertAttributes(exchange, [
            ("gen_ai.provider.name", .string("ollama")),
            ("gen_ai.operation.name", .string("chat")),
            ("gen_ai.request.model", .string("llama3.2")),
            ("gen_ai.request.max_tokens", .int(128)),
            ("gen_ai.request.temperature", .double(0.8)),
            ("gen_ai.request.top_p", .double(0.9)),
            ("gen_ai.request.top_k", .double(40)),
            ("gen_ai.request.stop_sequences", .stringArray(["User:"])),
            ("gen_ai.request.seed", .int(101)),
            ("gen_ai.request.stream", .bool(true)),
            ("gen_ai.response.model", .string("llama3.2")),
            ("gen_ai.response.finish_reasons", .stringArray(["stop"])),
            ("gen_ai.response.time_to_first_chunk", .double(0.5)),
            ("gen_ai.usage.input_tokens", .int(26)),
            ("gen_ai.usage.output_tokens", .int(282)),
            ("server.address", .string("localhost")),
            ("server.port", .int(11434)),
        ])
        XCTAssertNil(exchange.request.stream, "the body says nothing; the response streamed")
        XCTAssertEqual(exchange.response.outputChunkIntervals, [0.125], "the last line, empty, is not a chunk")
    }
}
