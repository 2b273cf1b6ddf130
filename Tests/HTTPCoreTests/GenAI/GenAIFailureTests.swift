@testable import HTTPCore
import HTTPCoreTestPeers
import XCTest

/// Calls that failed: a provider's error body or error event gives `error.type` with the
/// provider's own code, and a stream cut short gives what it carried until then.
final class GenAIFailureTests: XCTestCase {
    func testErrorBodiesGiveTheProvidersCode() throws {
        let expected: [(GenAIFixture, String)] = [
            (.openAIRateLimited, "rate_limit_exceeded"),
            (.openAIContextLengthExceeded, "context_length_exceeded"),
            (.anthropicRateLimited, "rate_limit_error"),
            (.anthropicPromptTooLong, "invalid_request_error"),
            (.geminiRateLimited, "RESOURCE_EXHAUSTED"),
            (.geminiInputTooLong, "INVALID_ARGUMENT"),
            (.bedrockThrottled, "ThrottlingException"),
        ]
        for (fixture, code) in expected {
            let exchange = try fixture.exchange()
            XCTAssertEqual(exchange.errorType, code, fixture.url)
            XCTAssertEqual(exchange.attributes.last?.name, "error.type", fixture.url)
            XCTAssertEqual(exchange.attributes.last?.value, .string(code), fixture.url)
            XCTAssertNil(exchange.response.usage, fixture.url)
            XCTAssertEqual(exchange.response.finishReasons, [], fixture.url)
        }
    }

    func testAnOpenAIErrorBodyAttributesInFull() throws {
        let exchange = try GenAIFixture.openAIRateLimited.exchange()
        assertAttributes(exchange, [
            ("gen_ai.provider.name", .string("openai")),
            ("gen_ai.operation.name", .string("chat")),
            ("gen_ai.request.model", .string("gpt-4o")),
            ("server.address", .string("api.openai.com")),
            ("server.port", .int(443)),
            ("error.type", .string("rate_limit_exceeded")),
        ])
    }

    func testAnErrorWithoutACodeLeavesTheTypeToTheCaller() throws {
        var exchange = try GenAIFixture.ollamaModelMissing.exchange()
        XCTAssertNil(exchange.errorType, "Ollama names no code; the HTTP status is the caller's to report")
        exchange.errorType = "404"
        XCTAssertEqual(exchange.attributes.last?.value, .string("404"))
    }

    func testAnAnthropicStreamOverloadedMidwayKeepsWhatArrivedAndTheErrorEvent() throws {
        var fixture = GenAIFixture.anthropicStream
        fixture.responseBody = #"""
        event: message_start
        data: {"type":"message_start","message":{"id":"msg_01Overload","type":"message","role":"assistant","model":"claude-sonnet-4-20250514","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":25,"cache_creation_input_tokens":0,"cache_read_input_tokens":2048,"output_tokens":1}}}

        event: content_block_delta
        data: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hel"}}

        event: error
        data: {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}


        """#
        let exchange = try fixture.exchange()
        XCTAssertEqual(exchange.errorType, "overloaded_error")
        XCTAssertEqual(exchange.response.id, "msg_01Overload")
        XCTAssertEqual(exchange.response.finishReasons, [])
        XCTAssertEqual(exchange.response.usage, GenAIUsage(
            inputTokens: 25 + 2048, outputTokens: 1, cacheReadInputTokens: 2048, cacheCreationInputTokens: 0
        ), "the counts message_start sent: partial, as they arrived")
        XCTAssertEqual(exchange.response.timeToFirstChunk, 0.625)
    }

    func testAnOpenAIStreamCutBeforeItsUsageHasNoUsageAndNoFinishReason() throws {
        var fixture = GenAIFixture.openAIChatStream
        let cut = fixture.responseBody.range(of: #"data: {"id":"chatcmpl-B9MHDbslfkBeAs8l4bebGdFOJ6PeG","object":"chat.completion.chunk","created":1741570283,"model":"gpt-4o-mini-2024-07-18","system_fingerprint":"fp_06737a9306","choices":[{"index":0,"delta":{"content":" makes"#)!
        fixture.responseBody = String(fixture.responseBody[..<cut.lowerBound]) + #"data: {"id":"chatcmpl-B9MHD"#
        let exchange = try fixture.exchange()
        XCTAssertEqual(exchange.response.messageCount, 3, "the unfinished event is not read")
        XCTAssertEqual(exchange.response.id, "chatcmpl-B9MHDbslfkBeAs8l4bebGdFOJ6PeG")
        XCTAssertEqual(exchange.response.finishReasons, [])
        XCTAssertNil(exchange.response.usage)
        XCTAssertEqual(exchange.response.timeToFirstChunk, 0.625)
        XCTAssertEqual(exchange.response.outputChunkIntervals, [0.125])
        XCTAssertFalse(exchange.attributes.contains { $0.name.hasPrefix("gen_ai.usage.") })
    }

    func testAGeminiStreamCutAfterItsFirstEventKeepsThatEventsRunningUsage() throws {
        var fixture = GenAIFixture.geminiStream
        fixture.responseBody = String(fixture.responseBody.prefix { $0 != "\n" }) + "\n\n"
        let response = try fixture.exchange().response
        XCTAssertEqual(response.usage, GenAIUsage(inputTokens: 9, outputTokens: 6 + 20, reasoningOutputTokens: 20))
        XCTAssertEqual(response.finishReasons, [])
    }
}
