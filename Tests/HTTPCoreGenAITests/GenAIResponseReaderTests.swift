import Foundation
@testable import HTTPCore
@testable import HTTPCoreObservation
@testable import HTTPCoreGenAI
import HTTPCoreTestPeers
import XCTest

/// The response reader on the shapes the fixture exchanges do not cover: how OpenAI
/// responses end, Bedrock's converse-stream events, TGI's list body, and stream messages as
/// observers see them.
final class GenAIResponseReaderTests: XCTestCase {
    private func reader(_ url: String) throws -> GenAIResponseReader {
        GenAIResponseReader(try XCTUnwrap(GenAIRecognizer.standard.recognize(method: .post, url: URL(string: url)!)))
    }

    func testAnOpenAIResponseCutAtItsTokenLimitFinishesWithLength() throws {
        var reader = try reader("https://api.openai.com/v1/responses")
        reader.read(body: Data(#"{"id":"resp_1","object":"response","status":"incomplete","incomplete_details":{"reason":"max_output_tokens"},"model":"o3-2025-04-16","output":[],"usage":{"input_tokens":20,"output_tokens":64,"output_tokens_details":{"reasoning_tokens":64}}}"#.utf8))
        XCTAssertEqual(reader.response.finishReasons, ["length"])
        XCTAssertEqual(reader.response.providerFinishReasons, ["max_output_tokens"])
        XCTAssertEqual(reader.response.usage, GenAIUsage(inputTokens: 20, outputTokens: 64, reasoningOutputTokens: 64))
    }

    func testAnOpenAIResponseThatCallsAFunctionFinishesWithToolCall() throws {
        var reader = try reader("https://api.openai.com/v1/responses")
        reader.read(body: Data(#"{"id":"resp_2","object":"response","status":"completed","model":"gpt-4.1","output":[{"type":"function_call","call_id":"call_1","name":"get_weather","arguments":"{\"city\":\"Lisbon\"}"}]}"#.utf8))
        XCTAssertEqual(reader.response.finishReasons, ["tool_call"])
        XCTAssertNil(reader.response.usage)
    }

    func testAFailedOpenAIResponseStreamGivesErrorAndItsCode() throws {
        var reader = try reader("https://api.openai.com/v1/responses")
        reader.read(
            eventType: "response.failed",
            data: Data(#"{"type":"response.failed","response":{"id":"resp_3","object":"response","status":"failed","error":{"code":"server_error","message":"The model failed to generate a response."},"model":"gpt-4.1"}}"#.utf8),
            arrivedAfter: 2
        )
        XCTAssertEqual(reader.response.finishReasons, ["error"])
        XCTAssertEqual(reader.response.errorCode, "server_error")
        XCTAssertNil(reader.response.timeToFirstChunk)
    }

    func testBedrockConverseStreamEventsReadByTheirEventType() throws {
        var reader = try reader("https://bedrock-runtime.us-east-1.amazonaws.com/model/amazon.nova-lite-v1%3A0/converse-stream")
        let events: [(String, String)] = [
            ("messageStart", #"{"role":"assistant"}"#),
            ("contentBlockDelta", #"{"contentBlockIndex":0,"delta":{"text":"Hello"}}"#),
            ("contentBlockDelta", #"{"contentBlockIndex":1,"delta":{"toolUse":{"input":"{\"city\":"}}}"#),
            ("contentBlockStop", #"{"contentBlockIndex":1}"#),
            ("messageStop", #"{"stopReason":"tool_use"}"#),
            ("metadata", #"{"usage":{"inputTokens":12,"outputTokens":9,"totalTokens":21},"metrics":{"latencyMs":310}}"#),
        ]
        for (index, (type, data)) in events.enumerated() {
            reader.read(eventType: type, data: Data(data.utf8), arrivedAfter: 0.25 * Double(index + 1))
        }
        let response = reader.response
        XCTAssertEqual(response.finishReasons, ["tool_call"])
        XCTAssertEqual(response.usage, GenAIUsage(inputTokens: 12, outputTokens: 9))
        XCTAssertEqual(response.timeToFirstChunk, 0.5)
        XCTAssertEqual(response.outputChunkIntervals, [0.25], "the tool-use fragment is a chunk")
    }

    func testTextGenerationInferenceAnswersWithAListOfOneGeneration() throws {
        let recognizer = GenAIRecognizer(additionalRoutes: [
            GenAIRoute(provider: .huggingFace, host: .host("tgi.internal"), api: .textGenerationInference()),
        ])
        var reader = GenAIResponseReader(try XCTUnwrap(recognizer.recognize(method: .post, url: URL(string: "http://tgi.internal/generate")!)))
        reader.read(body: Data(#"[{"generated_text":" blue, because of Rayleigh scattering.","details":{"finish_reason":"length","generated_tokens":8,"seed":null}}]"#.utf8))
        XCTAssertEqual(reader.response.finishReasons, ["length"])
        XCTAssertEqual(reader.response.usage, GenAIUsage(outputTokens: 8))
    }

    func testStreamMessagesAsObserversSeeThemReadAlike() throws {
        var reader = try reader("https://api.anthropic.com/v1/messages")
        let message = HTTPEvent.StreamMessage(
            kind: .serverSentEvent, index: 3, eventType: "content_block_delta",
            data: #"{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{\"city\": \"Lis"}}"#,
            byteCount: 120, isTruncated: false, millisecondsSincePrevious: 12
        )
        reader.read(message, arrivedAfter: 1.5)
        XCTAssertEqual(reader.response.timeToFirstChunk, 1.5, "tool-call arguments are output")
        XCTAssertEqual(reader.response.messageCount, 1)
    }

    func testABodyThatIsNotJSONReadsAsNothing() throws {
        var reader = try reader("https://api.openai.com/v1/chat/completions")
        reader.read(body: Data("<html>502 Bad Gateway</html>".utf8))
        XCTAssertEqual(reader.response, GenAIResponse())
    }

    /// Reads `messages` as JSON lines, a quarter of a second apart from 0.25 s.
    private func read(_ messages: [String], from url: String) throws -> GenAIResponse {
        var reader = try reader(url)
        for (index, message) in messages.enumerated() {
            reader.read(eventType: nil, data: Data(message.utf8), arrivedAfter: 0.25 * Double(index + 1))
        }
        return reader.response
    }

    func testEmptyToolCallsAndContentOnOpenAICompatibleDeltasAreNotChunks() throws {
        let response = try read([
            #"{"id":"c1","object":"chat.completion.chunk","model":"qwen","choices":[{"index":0,"delta":{"role":"assistant","content":"","tool_calls":[]}}]}"#,
            #"{"id":"c1","object":"chat.completion.chunk","model":"qwen","choices":[{"index":0,"delta":{"content":"","tool_calls":[]}}]}"#,
            #"{"id":"c1","object":"chat.completion.chunk","model":"qwen","choices":[{"index":0,"delta":{"content":"Hel","tool_calls":[]}}]}"#,
            #"{"id":"c1","object":"chat.completion.chunk","model":"qwen","choices":[{"index":0,"delta":{"content":"lo","tool_calls":[]}}]}"#,
            #"{"id":"c1","object":"chat.completion.chunk","model":"qwen","choices":[{"index":0,"delta":{"content":"","tool_calls":[]},"finish_reason":"stop"}]}"#,
        ], from: "https://api.openai.com/v1/chat/completions")
        XCTAssertEqual(response.timeToFirstChunk, 0.75, "the first message with text")
        XCTAssertEqual(response.outputChunkCount, 2)
        XCTAssertEqual(response.outputChunkIntervals, [0.25])
    }

    func testAToolCallFragmentOnAnOpenAICompatibleDeltaIsAChunk() throws {
        let response = try read([
            #"{"id":"c1","object":"chat.completion.chunk","model":"qwen","choices":[{"index":0,"delta":{"role":"assistant","content":"","tool_calls":[]}}]}"#,
            #"{"id":"c1","object":"chat.completion.chunk","model":"qwen","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"city"}}]}}]}"#,
        ], from: "https://api.openai.com/v1/chat/completions")
        XCTAssertEqual(response.timeToFirstChunk, 0.5)
        XCTAssertEqual(response.outputChunkCount, 1)
    }

    func testEmptyToolCallsAndContentOnOllamaMessagesAreNotChunks() throws {
        let response = try read([
            #"{"model":"llama3.2","created_at":"2026-01-01T00:00:00Z","message":{"role":"assistant","content":"","tool_calls":[]},"done":false}"#,
            #"{"model":"llama3.2","created_at":"2026-01-01T00:00:00Z","message":{"role":"assistant","content":"","thinking":""},"done":false}"#,
            #"{"model":"llama3.2","created_at":"2026-01-01T00:00:00Z","message":{"role":"assistant","content":"Hel","tool_calls":[]},"done":false}"#,
            #"{"model":"llama3.2","created_at":"2026-01-01T00:00:00Z","message":{"role":"assistant","content":"lo"},"done":false}"#,
            #"{"model":"llama3.2","created_at":"2026-01-01T00:00:00Z","message":{"role":"assistant","content":""},"done":true,"done_reason":"stop"}"#,
        ], from: "http://localhost:11434/api/chat")
        XCTAssertEqual(response.timeToFirstChunk, 0.75, "the first message with text")
        XCTAssertEqual(response.outputChunkCount, 2)
        XCTAssertEqual(response.outputChunkIntervals, [0.25])
    }

    func testAFinishReasonRepeatedInEveryLastMessageIsOneReason() throws {
        let response = try read([
            #"{"id":"c1","object":"chat.completion.chunk","model":"qwen","choices":[{"index":0,"delta":{"content":"Hi"},"finish_reason":"stop"}]}"#,
            #"{"id":"c1","object":"chat.completion.chunk","model":"qwen","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}"#,
            #"{"id":"c1","object":"chat.completion.chunk","model":"qwen","choices":[{"index":0,"delta":{},"finish_reason":"stop"}],"usage":{"prompt_tokens":5,"completion_tokens":1}}"#,
        ], from: "https://api.openai.com/v1/chat/completions")
        XCTAssertEqual(response.finishReasons, ["stop"])
        XCTAssertEqual(response.providerFinishReasons, ["stop"])
    }

    func testTwoChoicesGiveTheirLastReasonsInIndexOrder() throws {
        let response = try read([
            #"{"id":"c1","object":"chat.completion.chunk","model":"gpt-4o","choices":[{"index":1,"delta":{"content":"B"},"finish_reason":"length"}]}"#,
            #"{"id":"c1","object":"chat.completion.chunk","model":"gpt-4o","choices":[{"index":0,"delta":{"content":"A"},"finish_reason":null}]}"#,
            #"{"id":"c1","object":"chat.completion.chunk","model":"gpt-4o","choices":[{"index":0,"delta":{},"finish_reason":"stop"},{"index":1,"delta":{},"finish_reason":"length"}]}"#,
        ], from: "https://api.openai.com/v1/chat/completions")
        XCTAssertEqual(response.finishReasons, ["stop", "length"])
    }

    func testTheEndpointFixesTheShapeSoAnErrorFirstKeepsAnthropicsCacheTokensCounted() throws {
        var reader = try reader("https://api.anthropic.com/v1/messages")
        let messages: [(String, String)] = [
            ("error", #"{"error":{"message":"retrying upstream","code":"gateway_retry"}}"#),
            ("message_start", #"{"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"claude-sonnet-4-20250514","content":[],"stop_reason":null,"usage":{"input_tokens":25,"cache_creation_input_tokens":100,"cache_read_input_tokens":2048,"output_tokens":1}}}"#),
        ]
        for (index, (type, data)) in messages.enumerated() {
            reader.read(eventType: type, data: Data(data.utf8), arrivedAfter: 0.25 * Double(index + 1))
        }
        XCTAssertEqual(reader.response.usage, GenAIUsage(
            inputTokens: 25 + 2048 + 100, outputTokens: 1, cacheReadInputTokens: 2048, cacheCreationInputTokens: 100
        ), "Anthropic's input count excludes the cached tokens, which are added")
    }

    func testAResponseIsAStreamWhenItsMessagesWereRead() throws {
        var reader = try reader("https://api.openai.com/v1/chat/completions")
        XCTAssertFalse(reader.response.isStream)
        reader.read(body: Data(#"{"id":"c1","object":"chat.completion","model":"gpt-4o","choices":[]}"#.utf8))
        XCTAssertFalse(reader.response.isStream)
        reader.read(eventType: nil, data: Data("{}".utf8), arrivedAfter: 0.25)
        XCTAssertTrue(reader.response.isStream)
        XCTAssertEqual(reader.response.messageCount, 1)
        XCTAssertEqual(GenAIResponse(messageCount: 3).isStream, true)
    }

    func testChunkIntervalsStopAtTheirCapWhileChunksAreStillCounted() throws {
        var reader = try reader("https://api.openai.com/v1/chat/completions")
        let chunks = GenAIResponseReader.maximumChunkIntervals + 5
        let delta = Data(#"{"id":"c1","object":"chat.completion.chunk","model":"gpt-4o","choices":[{"index":0,"delta":{"content":"a"}}]}"#.utf8)
        for index in 0..<chunks {
            reader.read(eventType: nil, data: delta, arrivedAfter: 1 + 0.5 * Double(index))
        }
        let response = reader.response
        XCTAssertEqual(response.outputChunkCount, chunks)
        XCTAssertEqual(response.messageCount, chunks)
        XCTAssertEqual(response.timeToFirstChunk, 1)
        XCTAssertEqual(response.outputChunkIntervals.count, GenAIResponseReader.maximumChunkIntervals, "one interval per chunk after the first, up to the cap")
        XCTAssertEqual(Set(response.outputChunkIntervals), [0.5])
    }

    /// Reads `fixture`'s response, each stream message a second after the one before.
    private func read(_ fixture: GenAIFixture) throws -> GenAIResponseReader {
        var reader = try reader(fixture.url)
        reader.read(headers: fixture.responseHeaders)
        if fixture.isStream {
            for (index, message) in fixture.messages.enumerated() {
                reader.read(eventType: message.eventType, data: message.data, arrivedAfter: Double(index))
            }
        } else {
            reader.read(body: Data(fixture.responseBody.utf8))
        }
        return reader
    }

    /// The bytes a response's strings and arrays keep, as ``GenAIExchangeRecord`` counts
    /// them: a string of more than 15 UTF-8 bytes (too long to be kept inside its `String`)
    /// its bytes and an allocation of 64, a shorter one nothing; a list of finish reasons 64,
    /// and 16 a reason with the reason's own; the chunk intervals 64, and 8 an interval; an
    /// empty list nothing. Each fixture's fields are asserted too, so the arithmetic is theirs.
    func testItsRetainedByteCountIsWhatTheStringsAndArraysReadKeep() throws {
        typealias Expected = (
            fixture: GenAIFixture, id: String?, model: String?, errorCode: String?, finishReasons: [String],
            providerFinishReasons: [String], intervals: Int, bytes: Int
        )
        let cases: [Expected] = [
            // id 21 and model 18 bytes; two short reasons, in each list.
            (.openAIChatCompletion, "chatcmpl-Bx4Reasoning", "o4-mini-2025-04-16", nil, ["stop", "length"], ["stop", "length"], 0,
             (21 + 64) + (18 + 64) + 2 * (64 + 2 * 16)),
            // id 20 and model 25 bytes; one short reason, in each list.
            (.anthropicMessage, "msg_01Aq9w938a90dw8q", "claude-3-5-haiku-20241022", nil, ["tool_call"], ["tool_use"], 0,
             (20 + 64) + (25 + 64) + 2 * (64 + 16)),
            // No id or model in Converse's answer; one short reason, in each list.
            (.bedrockConverse, nil, nil, nil, ["stop"], ["end_turn"], 0, 2 * (64 + 16)),
            // Model 22 bytes; no reason.
            (.openAIEmbeddings, nil, "text-embedding-3-small", nil, [], [], 0, 22 + 64),
            // Error code 19 bytes.
            (.openAIRateLimited, nil, nil, "rate_limit_exceeded", [], [], 0, 19 + 64),
            // Error code 19 bytes, from the header.
            (.bedrockThrottled, nil, nil, "ThrottlingException", [], [], 0, 19 + 64),
            // id 38 and model 22 bytes; one short reason, in each list; three text deltas, two intervals.
            (.openAIChatStream, "chatcmpl-B9MHDbslfkBeAs8l4bebGdFOJ6PeG", "gpt-4o-mini-2024-07-18", nil, ["stop"], ["stop"], 2,
             (38 + 64) + (22 + 64) + 2 * (64 + 16) + (64 + 2 * 8)),
            // id 15 bytes, kept inside its String; model 18 bytes; one short reason, in each list;
            // the name and two argument fragments, two intervals.
            (.openAIToolCallStream, "chatcmpl-C1tool", "gpt-4.1-2025-04-14", nil, ["tool_call"], ["tool_calls"], 2,
             0 + (18 + 64) + 2 * (64 + 16) + (64 + 2 * 8)),
            // id 53 and model 18 bytes; one short reason, in each list; two text deltas, one interval.
            (.openAIResponsesStream, "resp_67c9fdcecf488190bdd9a0409de3a1ec07b8b0ad4e5eb654", "gpt-4.1-2025-04-14", nil,
             ["stop"], ["completed"], 1, (53 + 64) + (18 + 64) + 2 * (64 + 16) + (64 + 8)),
            // id 28 and model 24 bytes; one short reason, in each list; two text deltas, one interval.
            (.anthropicStream, "msg_01XFDUDYJgAACzvnptvVoYEL", "claude-sonnet-4-20250514", nil, ["stop"], ["end_turn"], 1,
             (28 + 64) + (24 + 64) + 2 * (64 + 16) + (64 + 8)),
            // id 23 and model 16 bytes; one short reason, in each list; three text parts, two intervals.
            (.geminiStream, "mKNtaPWFD8ngz7IPpqO_kAQ", "gemini-2.5-flash", nil, ["stop"], ["STOP"], 2,
             (23 + 64) + (16 + 64) + 2 * (64 + 16) + (64 + 2 * 8)),
            // Model 8 bytes, kept inside its String; one short reason, in each list; two text lines, one interval.
            (.ollamaChatStream, nil, "llama3.2", nil, ["stop"], ["stop"], 1, 0 + 2 * (64 + 16) + (64 + 8)),
        ]
        for expected in cases {
            let reader = try read(expected.fixture)
            let response = reader.response
            let url = expected.fixture.url
            XCTAssertEqual(response.id, expected.id, url)
            XCTAssertEqual(response.model, expected.model, url)
            XCTAssertEqual(response.errorCode, expected.errorCode, url)
            XCTAssertEqual(response.finishReasons, expected.finishReasons, url)
            XCTAssertEqual(response.providerFinishReasons, expected.providerFinishReasons, url)
            XCTAssertEqual(response.outputChunkIntervals.count, expected.intervals, url)
            XCTAssertEqual(reader.retainedByteCount, expected.bytes, url)
        }
    }

    func testAFinishReasonLongerThanFifteenBytesCountsItsOwnBytes() throws {
        var reader = try reader("https://api.openai.com/v1/responses")
        reader.read(body: Data(#"{"id":"resp_1","object":"response","status":"incomplete","incomplete_details":{"reason":"max_output_tokens"},"model":"o3-2025-04-16","output":[]}"#.utf8))
        XCTAssertEqual(reader.response.finishReasons, ["length"])
        XCTAssertEqual(reader.response.providerFinishReasons, ["max_output_tokens"])
        // id 6 and model 13 bytes, kept inside their Strings; "length", short, in one list;
        // "max_output_tokens", 17 bytes, in the other.
        XCTAssertEqual(reader.retainedByteCount, (64 + 16) + (64 + 16 + 17 + 64))
    }
}
