import Foundation
import HTTPCore
import HTTPCoreObservation
import HTTPCoreGenAI
import HTTPCoreTestPeers
import HTTPCoreTesting
import LokiObserver
import XCTest

/// An LLM call's line carries its main OpenTelemetry GenAI facts as logfmt fields, never as
/// labels: a model or a token count makes no new stream.
final class LokiGenAITests: XCTestCase {
    /// What the receiver got for `fixture`'s call through a client with `policy`: its only
    /// line with the duration and time to the first chunk shown as `<t>`, its labels, and the
    /// request's id.
    private func pushed(_ fixture: GenAIFixture, policy: HTTPCorePolicy) async throws -> (line: String, labels: [[String: String]], requestID: String) {
        try await LokiHarness.onlyLine { try await fixture.send(through: $0, policy: policy) }
    }

    private static let labels = [
        ["app": "checkout", "method": "POST", "status_class": "2xx", "host": "api.anthropic.com", "level": "info", "kind": "http"],
    ]

    func testAStreamedAnthropicCallsLineEndsWithItsGenAIFieldsUnderTheDebugPolicy() async throws {
        let fixture = GenAIFixture.anthropicStream
        let (line, labels, id) = try await pushed(fixture, policy: .debug)
        XCTAssertEqual(line, "method=POST url=https://api.anthropic.com/v1/messages status=200 outcome=succeeded duration_ms=<t>"
            + " http_request_id=\(id) attempt=1 request_bytes=277 response_bytes=\(fixture.responseBody.utf8.count) streamed=true"
            + #" stream_messages=8 unlogged_stream_messages=8 answer_shape=Anthropic answer="Hello! How can I help?""#
            + " gen_ai.provider.name=anthropic gen_ai.operation.name=chat gen_ai.request.model=claude-sonnet-4-20250514"
            + " gen_ai.request.max_tokens=1024 gen_ai.request.temperature=0.7 gen_ai.request.top_p=0.95 gen_ai.request.top_k=40.0"
            + #" gen_ai.request.stop_sequences="\n\nHuman:" gen_ai.request.stream=true"#
            + " gen_ai.response.id=msg_01XFDUDYJgAACzvnptvVoYEL gen_ai.response.model=claude-sonnet-4-20250514 gen_ai.response.finish_reasons=stop"
            + " gen_ai.response.time_to_first_chunk=<t> gen_ai.usage.input_tokens=3097 gen_ai.usage.output_tokens=15"
            + " gen_ai.usage.cache_read.input_tokens=2048 gen_ai.usage.cache_creation.input_tokens=1024 server.address=api.anthropic.com server.port=443")
        XCTAssertEqual(labels, Self.labels, "no label per model")
    }

    func testUnderTheReleasePolicyTheLineHasTheFactsWithoutTheAnswer() async throws {
        let fixture = GenAIFixture.anthropicStream
        let (line, labels, id) = try await pushed(fixture, policy: .release)
        XCTAssertEqual(line, "method=POST url=https://api.anthropic.com/v1/messages status=200 outcome=succeeded duration_ms=<t>"
            + " http_request_id=\(id) attempt=1 request_bytes=277 response_bytes=\(fixture.responseBody.utf8.count) streamed=true"
            + " stream_messages=8 unlogged_stream_messages=8"
            + " gen_ai.provider.name=anthropic gen_ai.operation.name=chat gen_ai.request.model=claude-sonnet-4-20250514"
            + " gen_ai.request.max_tokens=1024 gen_ai.request.temperature=0.7 gen_ai.request.top_p=0.95 gen_ai.request.top_k=40.0"
            + " gen_ai.request.stream=true"
            + " gen_ai.response.id=msg_01XFDUDYJgAACzvnptvVoYEL gen_ai.response.model=claude-sonnet-4-20250514 gen_ai.response.finish_reasons=stop"
            + " gen_ai.response.time_to_first_chunk=<t> gen_ai.usage.input_tokens=3097 gen_ai.usage.output_tokens=15"
            + " gen_ai.usage.cache_read.input_tokens=2048 gen_ai.usage.cache_creation.input_tokens=1024 server.address=api.anthropic.com server.port=443")
        XCTAssertEqual(labels, Self.labels)
    }

    func testABufferedOpenAICallsFinishReasonsAreJoinedWithCommas() async throws {
        let (line, _, id) = try await pushed(.openAIChatCompletion, policy: .release)
        XCTAssertEqual(line, "method=POST url=https://api.openai.com/v1/chat/completions status=200 outcome=succeeded duration_ms=<t>"
            + " http_request_id=\(id) attempt=1 request_bytes=122 response_bytes=\(GenAIFixture.openAIChatCompletion.responseBody.utf8.count)"
            + " gen_ai.provider.name=openai gen_ai.operation.name=chat gen_ai.request.model=o4-mini gen_ai.request.max_tokens=2000"
            + " gen_ai.request.choice.count=2 gen_ai.response.id=chatcmpl-Bx4Reasoning gen_ai.response.model=o4-mini-2025-04-16"
            + " gen_ai.response.finish_reasons=stop,length gen_ai.usage.input_tokens=1380 gen_ai.usage.output_tokens=1998"
            + " gen_ai.usage.cache_read.input_tokens=1280 gen_ai.usage.reasoning.output_tokens=1920 server.address=api.openai.com server.port=443")
    }

    func testAStreamThatEndedWithAProviderErrorUnderA200IsAFailedLineWithItsGenAIErrorType() async throws {
        let receiver = try LokiReceiver()
        defer { receiver.stop() }
        let harness = LokiHarness(receiver: receiver)
        let event = try GenAIFixture.providerErrorUnderA200()
        LokiObserver(logger: harness.logger).handle(event)
        await harness.logger.flush()
        let received = try await receiver.waitForEntries(1)
        XCTAssertEqual(received.rejections, [])
        XCTAssertEqual(received.lines, ["method=POST url=https://api.anthropic.com/v1/messages status=200 outcome=failed duration_ms=2000.0"
            + " http_request_id=\(event.requestID) attempt=1 request_bytes=0 response_bytes=0"
            + " gen_ai.provider.name=anthropic gen_ai.operation.name=chat gen_ai.request.model=claude-sonnet-4 gen_ai.request.stream=true"
            + " server.address=api.anthropic.com server.port=443 gen_ai.error.type=overloaded_error"])
        XCTAssertEqual(received.labelSets, [
            ["app": "checkout", "method": "POST", "status_class": "failed", "host": "api.anthropic.com", "level": "error", "kind": "http"],
        ], "the call failed after its 200, as a body cut short: {status_class=\"failed\"} finds it")
    }
}
