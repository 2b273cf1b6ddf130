import DevSeeObserver
import DevSeeServer
import Foundation
import HTTPCore
import HTTPCoreObservation
import HTTPCoreGenAI
import HTTPCoreTestPeers
import HTTPCoreTesting
import XCTest

/// An LLM call's log: its summary leads the response body (the viewer shows no other field),
/// its OpenTelemetry GenAI attributes are stored as `genAI`, and the log stays valid for dev-see.
final class DevSeeGenAITests: XCTestCase {
    /// The log dev-see stored for `fixture`'s call through a client with `policy`, as sent and
    /// decoded, and the call's terminal event.
    private func logged(_ fixture: GenAIFixture, policy: HTTPCorePolicy) async throws -> (sent: String, log: [String: Any], end: HTTPEvent) {
        let receiver = try DevSeeReceiver()
        defer { receiver.stop() }
        let harness = LoggerHarness(receiver: receiver)
        let dispatcher = HTTPEventDispatcher()
        let recorder = RecordingObserver()
        dispatcher.subscribe(recorder)
        dispatcher.subscribe(DevSeeObserver(logger: harness.logger))
        try await fixture.send(through: dispatcher, policy: policy)
        await dispatcher.flush()
        await harness.logger.flush()
        try await receiver.waitForLogs(count: 1)
        XCTAssertEqual(receiver.rejections.count, 0, "dev-see accepts the log")
        let sent = try XCTUnwrap(receiver.storedLogs.first)
        let end = try XCTUnwrap(recorder.events.first { $0.name.isTerminal })
        return (String(decoding: sent, as: UTF8.self), try receiver.onlyLog(), end)
    }

    /// The `genAI` member exactly as sent, its time to the first chunk shown as `<t>`.
    private func genAIMember(_ sent: String) throws -> String {
        let range = try XCTUnwrap(sent.range(of: #""genAI":\{[^}]*\}"#, options: .regularExpression), sent)
        return String(sent[range]).replacingOccurrences(of: #"time_to_first_chunk":[0-9.e-]+"#, with: #"time_to_first_chunk":<t>"#, options: .regularExpression)
    }

    private static let anthropicAttributes = #""genAI":{"gen_ai.provider.name":"anthropic","gen_ai.operation.name":"chat","#
        + #""gen_ai.request.model":"claude-sonnet-4-20250514","gen_ai.request.max_tokens":1024,"gen_ai.request.temperature":0.7,"#
        + #""gen_ai.request.top_p":0.95,"gen_ai.request.top_k":40,"gen_ai.request.stop_sequences":["\n\nHuman:"],"#
        + #""gen_ai.request.stream":true,"gen_ai.response.id":"msg_01XFDUDYJgAACzvnptvVoYEL","#
        + #""gen_ai.response.model":"claude-sonnet-4-20250514","gen_ai.response.finish_reasons":["stop"],"#
        + #""gen_ai.response.time_to_first_chunk":<t>,"gen_ai.usage.input_tokens":3097,"gen_ai.usage.output_tokens":15,"#
        + #""gen_ai.usage.cache_read.input_tokens":2048,"gen_ai.usage.cache_creation.input_tokens":1024,"#
        + #""server.address":"api.anthropic.com","server.port":443}"#

    func testAStreamedAnthropicCallsBodyStartsWithItsSummaryAboveTheAnswerUnderTheDebugPolicy() async throws {
        let fixture = GenAIFixture.anthropicStream
        let (sent, log, end) = try await logged(fixture, policy: .debug)
        let events = String(decoding: try XCTUnwrap(end.response?.body), as: UTF8.self)
        XCTAssertEqual(GenAIFixture.timesHidden(in: try XCTUnwrap(log["responseBody"] as? String)), """
            [genAI] claude-sonnet-4-20250514 · 3,097 in, 15 out tokens · first chunk <t> · stop
            [stream] 8 messages in \(fixture.responseBody.utf8.count) bytes, the Anthropic answer:
            Hello! How can I help?

            [events]
            \(events)
            """)
        XCTAssertEqual(try genAIMember(sent), Self.anthropicAttributes)
        XCTAssertEqual(log["streamAnswer"] as? String, "Hello! How can I help?")
        XCTAssertNil(log["id"])
        XCTAssertNil(log["error"])
    }

    func testUnderTheReleasePolicyTheSummaryIsTheWholeBodyBesideTheStreamsCounts() async throws {
        let fixture = GenAIFixture.anthropicStream
        let (sent, log, _) = try await logged(fixture, policy: .release)
        XCTAssertEqual(
            GenAIFixture.timesHidden(in: try XCTUnwrap(log["responseBody"] as? String)),
            "[genAI] claude-sonnet-4-20250514 · 3,097 in, 15 out tokens · first chunk <t> · stop\n"
                + "[stream] 8 messages in \(fixture.responseBody.utf8.count) bytes"
        )
        XCTAssertNil(log["requestBody"], "nothing of the prompt beyond what the policy captured")
        let withoutStopSequences = Self.anthropicAttributes.replacingOccurrences(
            of: #""gen_ai.request.stop_sequences":["\n\nHuman:"],"#, with: ""
        )
        XCTAssertNotEqual(withoutStopSequences, Self.anthropicAttributes)
        XCTAssertEqual(try genAIMember(sent), withoutStopSequences, "stop sequences are the caller's text: not shown when bodies are not")
    }

    func testABufferedOpenAICallsSummaryIsAHeaderAndItsJSONBodyIsLeftWhole() async throws {
        let fixture = GenAIFixture.openAIChatCompletion
        let (sent, log, end) = try await logged(fixture, policy: .debug)
        let body = String(decoding: try XCTUnwrap(end.response?.body), as: UTF8.self)
        XCTAssertEqual(log["responseBody"] as? String, body, "the viewer pretty-prints a body that parses whole")
        XCTAssertEqual(
            (log["responseHeaders"] as? [String: String])?["x-devsee-note-genai"],
            "[genAI] o4-mini-2025-04-16 · 1,380 in, 1,998 out tokens · stop, length"
        )
        XCTAssertEqual(try genAIMember(sent), #""genAI":{"gen_ai.provider.name":"openai","gen_ai.operation.name":"chat","#
            + #""gen_ai.request.model":"o4-mini","gen_ai.request.max_tokens":2000,"gen_ai.request.stop_sequences":["<|end|>"],"#
            + #""gen_ai.request.choice.count":2,"gen_ai.response.id":"chatcmpl-Bx4Reasoning","gen_ai.response.model":"o4-mini-2025-04-16","#
            + #""gen_ai.response.finish_reasons":["stop","length"],"gen_ai.usage.input_tokens":1380,"gen_ai.usage.output_tokens":1998,"#
            + #""gen_ai.usage.cache_read.input_tokens":1280,"gen_ai.usage.reasoning.output_tokens":1920,"#
            + #""server.address":"api.openai.com","server.port":443}"#)
    }

    func testAnExchangeThatIsNoLLMCallHasNoGenAIFieldOrLine() async throws {
        var fixture = GenAIFixture.openAIChatCompletion
        fixture.url = "https://api.example.com/v1/chat/completions"
        let (sent, log, end) = try await logged(fixture, policy: .debug)
        XCTAssertNil(end.genAI)
        XCTAssertFalse(sent.contains("genAI"), sent)
        XCTAssertEqual(log["responseBody"] as? String, String(decoding: try XCTUnwrap(end.response?.body), as: UTF8.self))
    }

    func testAnLLMCallWithAHugeStopSequenceAndModelNameIsALogDevSeeAcceptsWithThoseStringsCutAndMarked() async throws {
        let receiver = try DevSeeReceiver()
        defer { receiver.stop() }
        let harness = LoggerHarness(receiver: receiver)
        let request = HTTPRequest(method: .post, url: URL(string: "https://api.openai.com/v1/chat/completions")!)
        // 100 KiB of two-byte characters: a cut that split one would leave invalid UTF-8.
        let model = String(repeating: "é", count: 50 * 1024)
        let stopSequence = String(repeating: "s", count: 2 * 1024 * 1024)
        let call = GenAIExchange(
            recognition: try XCTUnwrap(GenAIRecognizer.standard.recognize(request)),
            request: GenAIRequestParameters(model: model, stopSequences: [stopSequence] + (1...20).map { "stop \($0)" }),
            response: GenAIResponse(id: model, model: model, finishReasons: Array(repeating: "stop", count: 20))
        )
        let response = HTTPResponse(requestID: request.id, statusCode: 200, headers: [:], body: Data(), url: request.url)
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        DevSeeObserver(logger: harness.logger).handle(.requestSucceeded(response, to: request, startedAt: start, endedAt: start + 1, attachments: [call]))
        await harness.logger.flush()
        XCTAssertEqual(receiver.rejections.count, 0, "dev-see accepts the log")
        guard receiver.rejections.isEmpty else { return }
        try await receiver.waitForLogs(count: 1)
        let sent = try XCTUnwrap(receiver.storedLogs.first)
        XCTAssertLessThan(sent.count, 1_048_576)
        let genAI = try XCTUnwrap(try receiver.onlyLog()["genAI"] as? [String: Any])
        // 253 bytes at most before the 3-byte marker: 126 two-byte characters.
        let cutModel = String(repeating: "é", count: 126) + "…"
        XCTAssertEqual(cutModel.utf8.count, 255)
        XCTAssertEqual(genAI["gen_ai.request.model"] as? String, cutModel)
        XCTAssertEqual(genAI["gen_ai.response.model"] as? String, cutModel)
        XCTAssertEqual(genAI["gen_ai.response.id"] as? String, cutModel)
        let cutStopSequence = String(repeating: "s", count: 253) + "…"
        XCTAssertEqual(cutStopSequence.utf8.count, 256)
        XCTAssertEqual(genAI["gen_ai.request.stop_sequences"] as? [String], [cutStopSequence] + (1...14).map { "stop \($0)" } + ["…"])
        let finishReasons = Array(repeating: "stop", count: 15) + ["…"]
        XCTAssertEqual(genAI["gen_ai.response.finish_reasons"] as? [String], finishReasons)
        // The summary line is bounded as one string: its huge model name leaves room for nothing else.
        XCTAssertEqual(try receiver.onlyLog()["responseBody"] as? String, "[genAI] \(cutModel)")
    }
}
