@testable import HTTPCore
@testable import HTTPCoreGenAI
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

    func testAnErrorWithoutACodeIsOtherUnlessTheStatusNamesIt() throws {
        let fixture = GenAIFixture.ollamaModelMissing
        let exchange = try fixture.exchange()
        XCTAssertNil(exchange.response.errorCode, "Ollama names no code")
        XCTAssertTrue(exchange.response.hasProviderError)
        XCTAssertEqual(exchange.errorType, "_OTHER")
        XCTAssertEqual(exchange.attributes.last?.value, .string("_OTHER"))
        let answered404 = GenAIExchange(
            recognition: exchange.recognition, request: exchange.request, response: exchange.response, statusCode: 404, error: nil
        )
        XCTAssertEqual(answered404.errorType, "404", "the HTTP status names the error better than _OTHER")
    }

    /// The error messages a stream answered with 200 can end with, each after one message of
    /// text, with the `error.type` each gives.
    private let streamEndingErrors: [(url: String, eventType: String?, text: String, error: String, errorType: String)] = [
        (
            "http://localhost:11434/api/chat", nil,
            #"{"model":"llama3.2","created_at":"2026-01-01T00:00:00Z","message":{"role":"assistant","content":"Hel"},"done":false}"#,
            #"{"error":"an error was encountered while running the model"}"#, "_OTHER"
        ),
        (
            "https://api.openai.com/v1/responses", "response.output_text.delta",
            #"{"type":"response.output_text.delta","item_id":"msg_1","output_index":0,"content_index":0,"delta":"Hel"}"#,
            #"{"type":"error","message":"The server had an error.","param":null,"sequence_number":4}"#, "_OTHER"
        ),
        (
            "https://api.openai.com/v1/responses", "response.output_text.delta",
            #"{"type":"response.output_text.delta","item_id":"msg_1","output_index":0,"content_index":0,"delta":"Hel"}"#,
            #"{"type":"response.failed","response":{"id":"resp_1","object":"response","status":"failed","error":{"message":"The model failed."},"model":"gpt-4.1"}}"#,
            "_OTHER"
        ),
        (
            "https://api.openai.com/v1/responses", "response.output_text.delta",
            #"{"type":"response.output_text.delta","item_id":"msg_1","output_index":0,"content_index":0,"delta":"Hel"}"#,
            #"{"type":"response.failed","response":{"id":"resp_1","object":"response","status":"failed","error":null,"model":"gpt-4.1"}}"#,
            "_OTHER"
        ),
        (
            "https://api.openai.com/v1/chat/completions", nil,
            #"{"id":"chatcmpl-1","object":"chat.completion.chunk","model":"gpt-4o","choices":[{"index":0,"delta":{"content":"Hel"}}]}"#,
            #"{"error":{"message":"The upstream model stopped answering."}}"#, "_OTHER"
        ),
        (
            "https://api.openai.com/v1/chat/completions", nil,
            #"{"id":"chatcmpl-1","object":"chat.completion.chunk","model":"gpt-4o","choices":[{"index":0,"delta":{"content":"Hel"}}]}"#,
            #"{"error":{"message":"The server had an error.","code":"server_error"}}"#, "server_error"
        ),
        (
            "https://api.openai.com/v1/responses", "response.output_text.delta",
            #"{"type":"response.output_text.delta","item_id":"msg_1","output_index":0,"content_index":0,"delta":"Hel"}"#,
            #"{"type":"error","code":"server_error","message":"The server had an error.","param":null,"sequence_number":4}"#,
            "server_error"
        ),
    ]

    func testAStreamAnsweredWith200ThatEndsWithAnErrorIsAnError() throws {
        for stream in streamEndingErrors {
            let call = try XCTUnwrap(GenAIRecognizer.standard.recognize(method: .post, url: URL(string: stream.url)!))
            var reader = GenAIResponseReader(call)
            reader.read(eventType: stream.eventType, data: Data(stream.text.utf8), arrivedAfter: 0.5)
            // The error's own `type` names its event, as a server-sent event's `event:` would.
            reader.read(eventType: nil, data: Data(stream.error.utf8), arrivedAfter: 0.75)
            let exchange = GenAIExchange(
                recognition: call, request: GenAIRequestParameters(), response: reader.response, statusCode: 200, error: nil
            )
            XCTAssertTrue(exchange.response.hasProviderError, stream.error)
            XCTAssertEqual(exchange.errorType, stream.errorType, stream.error)
            XCTAssertEqual(exchange.response.outputChunkCount, 1, stream.error)
        }
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
