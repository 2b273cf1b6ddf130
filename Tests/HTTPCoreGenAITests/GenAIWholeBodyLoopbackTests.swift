import Foundation
import HTTPCore
import HTTPCoreObservation
@testable import HTTPCoreGenAI
import HTTPCoreLoopback
import HTTPCoreTesting
import HTTPCoreURLSession
import XCTest

/// An LLM call answered with one JSON body, over a real loopback server: the facts are the
/// same whether the caller reads the answer buffered or streamed, up to the bound of a body
/// read whole (``HTTPCorePolicy/maximumGenAIBodyBytes``), and none past it either way.
final class GenAIWholeBodyLoopbackTests: XCTestCase {
    private var server: LoopbackHTTPServer!

    override func setUpWithError() throws {
        server = try LoopbackHTTPServer()
    }

    override func tearDown() {
        server.stop()
    }

    /// A chat completion whose answer's text makes the body `byteCount` bytes long.
    private static func answer(byteCount: Int) -> String {
        let head = #"{"id":"chatcmpl-Long","object":"chat.completion","created":1741569952,"model":"local-model-2025-01","#
            + #""choices":[{"index":0,"message":{"role":"assistant","content":""#
        let tail = #""},"finish_reason":"length"}],"usage":{"prompt_tokens":12,"completion_tokens":76800,"total_tokens":76812}}"#
        return head + String(repeating: "x", count: byteCount - head.utf8.count - tail.utf8.count) + tail
    }

    /// The facts of one call to the server answering `body`, read buffered or streamed.
    private func facts(answering body: String, streamed: Bool) async throws -> GenAIExchange {
        server.route("/v1/chat/completions") { _ in .json(body) }
        let dispatcher = HTTPEventDispatcher()
        let recorder = RecordingObserver()
        dispatcher.subscribe(recorder)
        var policy = HTTPCorePolicy.release.interpreting(.genAI)
        let local = GenAIRoute(provider: GenAIProvider("local"), host: .localhost(port: Int(server.port)), api: .openAICompatible(basePath: "/v1"))
        policy.interpreters = [GenAIRecognizer(additionalRoutes: [local])]
        let client = URLSessionClient(dispatcher: dispatcher, policy: policy)
        let request = HTTPRequest(
            method: .post, url: server.url("/v1/chat/completions"), headers: ["Content-Type": "application/json"],
            body: Data(#"{"model":"local-model","messages":[{"role":"user","content":"Say x, at length."}]}"#.utf8)
        )
        let received: Int
        if streamed {
            received = try await client.send(request) { _, body in try await body.collect(upTo: 8 << 20).count }
        } else {
            received = try await client.send(request).body.count
        }
        XCTAssertEqual(received, body.utf8.count, "the caller got the whole body")
        let events = try await recorder.waitForTerminalEvents(count: 1)
        let end = try XCTUnwrap(events.last)
        XCTAssertEqual(end.name, .requestSucceeded)
        return try XCTUnwrap(end.genAI)
    }

    func testAJSONAnswerOverTheMessageBoundGivesTheSameFactsBufferedAndStreamed() async throws {
        let body = Self.answer(byteCount: 300 << 10)
        XCTAssertGreaterThan(body.utf8.count, GenAIRecognizer.maximumMessageBytes)
        let buffered = try await facts(answering: body, streamed: false)
        let streamed = try await facts(answering: body, streamed: true)
        for call in [buffered, streamed] {
            XCTAssertEqual(call.recognition.provider, GenAIProvider("local"))
            XCTAssertEqual(call.request.model, "local-model")
            XCTAssertEqual(call.response.id, "chatcmpl-Long")
            XCTAssertEqual(call.response.model, "local-model-2025-01")
            XCTAssertEqual(call.response.usage, GenAIUsage(inputTokens: 12, outputTokens: 76800))
            XCTAssertEqual(call.response.finishReasons, ["length"])
            XCTAssertFalse(call.response.isStream, "one body, not messages")
        }
        XCTAssertEqual(streamed, buffered)
    }

    func testAJSONAnswerOverTheBodyBoundGivesNoResponseFactsBufferedOrStreamed() async throws {
        let body = Self.answer(byteCount: GenAIRecognizer.maximumBodyBytes + 1)
        let buffered = try await facts(answering: body, streamed: false)
        let streamed = try await facts(answering: body, streamed: true)
        for call in [buffered, streamed] {
            XCTAssertEqual(call.request.model, "local-model", "the request is still read")
            XCTAssertEqual(call.response, GenAIResponse(), "the body is not read")
        }
        XCTAssertEqual(streamed, buffered)
    }
}
