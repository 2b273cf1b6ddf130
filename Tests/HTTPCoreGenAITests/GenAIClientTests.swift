@testable import HTTPCore
@testable import HTTPCoreObservation
@testable import HTTPCoreGenAI
import Foundation
import HTTPCoreTesting
import HTTPCoreTestPeers
import XCTest

/// Buffered exchanges through `HTTPTransportClient`: an LLM call's terminal event carries its
/// GenAI facts, read from the raw exchange whatever the policy shows; no other event, and no
/// other exchange, carries any.
final class GenAIClientTests: XCTestCase {
    private var dispatcher: HTTPEventDispatcher!
    private var recorder: RecordingObserver!

    override func setUp() {
        dispatcher = HTTPEventDispatcher()
        recorder = RecordingObserver()
        dispatcher.subscribe(recorder)
    }

    private func send(
        _ fixture: GenAIFixture, status: Int = 200, headers: HTTPHeaders = ["Content-Type": "application/json"],
        policy: HTTPCorePolicy = .release.interpreting(.genAI), middlewares: [any HTTPMiddleware] = []
    ) async throws -> [HTTPEvent] {
        let transport = MockTransport(default: .status(status, body: Data(fixture.responseBody.utf8), headers: headers))
        let client = HTTPTransportClient(transport: transport, middlewares: middlewares, dispatcher: dispatcher, policy: policy)
        _ = try await client.send(fixture.request)
        return try await recorder.waitForTerminalEvents(count: 1)
    }

    func testABufferedOpenAIChatCompletionUnderTheReleasePolicyCarriesEveryAttributeOnItsTerminalEvent() async throws {
        let events = try await send(.openAIChatCompletion)
        XCTAssertEqual(events.map(\.name), [.requestCreated, .requestStarted, .responseReceived, .requestSucceeded])
        let end = try XCTUnwrap(events.last)
        XCTAssertNil(end.response?.body, "the policy shows no body")
        let call = try XCTUnwrap(end.genAI)
        assertAttributes(call, [
            ("gen_ai.provider.name", .string("openai")),
            ("gen_ai.operation.name", .string("chat")),
            ("gen_ai.request.model", .string("o4-mini")),
            ("gen_ai.request.max_tokens", .int(2000)),
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
        var direct = try GenAIFixture.openAIChatCompletion.exchange()
        direct.request.stopSequences = nil
        XCTAssertEqual(call, direct, "the same facts as reading the fixture directly, but for the caller's stop sequences")
    }

    func testStopSequencesAreKeptRedactedOnlyWhenThePolicyCapturesBodies() async throws {
        var fixture = GenAIFixture.openAIChatCompletion
        fixture.requestBody = #"{"model":"o4-mini","messages":[],"stop":["<|end|>","Bearer abcdef0123456789"]}"#
        let releasedEvents = try await send(fixture, policy: .release.interpreting(.genAI))
        let released = try XCTUnwrap(releasedEvents.last?.genAI)
        XCTAssertNil(released.request.stopSequences, "the caller's text leaves no more than its body does")
        XCTAssertFalse(released.attributes.contains { $0.name == "gen_ai.request.stop_sequences" })
        XCTAssertEqual(released.request.model, "o4-mini")

        dispatcher = HTTPEventDispatcher()
        recorder = RecordingObserver()
        dispatcher.subscribe(recorder)
        let debuggedEvents = try await send(fixture, policy: .debug.interpreting(.genAI))
        let debugged = try XCTUnwrap(debuggedEvents.last?.genAI)
        XCTAssertEqual(debugged.request.stopSequences, ["<|end|>", "Bearer \(Redactor.mask)"], "each through the policy's redactor")
    }

    func testOnlyTheTerminalEventCarriesTheCall() async throws {
        let events = try await send(.anthropicMessage, policy: .debug.interpreting(.genAI))
        XCTAssertEqual(events.map { $0.genAI != nil }, [false, false, false, true])
    }

    func testThroughMiddlewaresTheCallIsReadFromTheRequestAsItWentOut() async throws {
        let events = try await send(.anthropicMessage, middlewares: [RetryMiddleware()])
        let call = try XCTUnwrap(events.last?.genAI)
        XCTAssertEqual(call.request.model, "claude-3-5-haiku-latest")
        XCTAssertEqual(call.response.usage, GenAIUsage(inputTokens: 412, outputTokens: 57))
        XCTAssertEqual(call.response.finishReasons, ["tool_call"])
        XCTAssertNil(call.errorType)
    }

    func testACallAMiddlewareMovesToAProviderIsThatProvidersCall() async throws {
        var fixture = GenAIFixture.openAIChatCompletion
        fixture.url = "https://gateway.example.com/chat"
        let moved = URLRewritingMiddleware(url: URL(string: GenAIFixture.openAIChatCompletion.url)!)
        let events = try await send(fixture, middlewares: [moved])
        let call = try XCTUnwrap(events.last?.genAI, "recognised as it went out")
        XCTAssertEqual(call.recognition.provider, .openAI)
        XCTAssertEqual(call.recognition.serverAddress, "api.openai.com")
        XCTAssertEqual(call.response.usage?.inputTokens, 1380)
    }

    func testACallAMiddlewareMovesAwayFromAProviderIsNone() async throws {
        let moved = URLRewritingMiddleware(url: URL(string: "https://gateway.example.com/chat")!)
        let events = try await send(.openAIChatCompletion, middlewares: [moved])
        XCTAssertEqual(events.last?.name, .requestSucceeded)
        XCTAssertNil(events.last?.genAI)
    }

    func testARequestBodyLongerThanTheGenAICapGivesNoParameters() async throws {
        var fixture = GenAIFixture.openAIChatCompletion
        let prompt = String(repeating: "x", count: GenAIRecognizer.maximumBodyBytes)
        fixture.requestBody = #"{"model":"o4-mini","max_tokens":2000,"messages":[{"role":"user","content":"\#(prompt)"}]}"#
        let events = try await send(fixture)
        let call = try XCTUnwrap(events.last?.genAI)
        XCTAssertEqual(call.request, GenAIRequestParameters(), "the body is not read")
        XCTAssertEqual(call.response.usage?.inputTokens, 1380, "the response still is")
    }

    func testARateLimitBodyGivesTheProvidersCode() async throws {
        let events = try await send(.openAIRateLimited, status: 429)
        let call = try XCTUnwrap(events.last?.genAI)
        XCTAssertEqual(events.last?.name, .requestSucceeded, "a 429 is a complete response")
        XCTAssertEqual(call.errorType, "rate_limit_exceeded")
        XCTAssertEqual(call.attributes.last?.name, "error.type")
        XCTAssertEqual(call.attributes.last?.value, .string("rate_limit_exceeded"))
    }

    func testBedrocksErrorHeaderGivesItsCode() async throws {
        let fixture = GenAIFixture.bedrockThrottled
        var headers = fixture.responseHeaders
        headers.add(name: "Content-Type", value: "application/json")
        let events = try await send(fixture, status: 429, headers: headers)
        XCTAssertEqual(events.last?.genAI?.errorType, "ThrottlingException")
    }

    func testAnErrorStatusWithoutAProviderCodeGivesTheStatus() async throws {
        var fixture = GenAIFixture.openAIChatCompletion
        fixture.responseBody = "<html>Bad gateway</html>"
        let events = try await send(fixture, status: 502, headers: ["Content-Type": "text/html"])
        let call = try XCTUnwrap(events.last?.genAI)
        XCTAssertEqual(call.errorType, "502")
        XCTAssertNil(call.response.usage)
        XCTAssertEqual(call.request.model, "o4-mini")
    }

    func testATransportFailureGivesItsErrorTypeAndTheRequestParameters() async throws {
        let transport = MockTransport(default: .failure(.transport(.connectionLost, message: "reset")))
        let client = HTTPTransportClient(transport: transport, dispatcher: dispatcher, policy: .release.interpreting(.genAI))
        do {
            _ = try await client.send(GenAIFixture.openAIChatCompletion.request)
            XCTFail("expected a failure")
        } catch {}
        let events = try await recorder.waitForTerminalEvents(count: 1)
        let end = try XCTUnwrap(events.last)
        XCTAssertEqual(end.name, .requestFailed)
        let call = try XCTUnwrap(end.genAI)
        XCTAssertEqual(call.errorType, "connection_lost")
        XCTAssertEqual(call.request.maxTokens, 2000)
        XCTAssertEqual(call.response, GenAIResponse())
    }

    func testACancelledCallGivesCancelled() async throws {
        let transport = MockTransport(default: .status(200, after: 30))
        let client = HTTPTransportClient(transport: transport, dispatcher: dispatcher, policy: .release.interpreting(.genAI))
        let task = Task { try await client.send(GenAIFixture.anthropicMessage.request) }
        _ = try await recorder.waitForEvents(count: 2)
        task.cancel()
        _ = try? await task.value
        let events = try await recorder.waitForTerminalEvents(count: 1)
        let end = try XCTUnwrap(events.last)
        XCTAssertEqual(end.name, .requestCancelled)
        XCTAssertEqual(end.genAI?.errorType, "cancelled")
    }

    func testAnExchangeThatIsNoLLMCallCarriesNone() async throws {
        let transport = MockTransport(default: .status(200, body: Data(GenAIFixture.openAIChatCompletion.responseBody.utf8)))
        let client = HTTPTransportClient(transport: transport, dispatcher: dispatcher, policy: .debug.interpreting(.genAI))
        for request in [
            HTTPRequest(method: .post, url: URL(string: "https://api.example.com/v1/chat/completions")!, body: Data("{}".utf8)),
            HTTPRequest(url: URL(string: "https://api.openai.com/v1/chat/completions")!),
            HTTPRequest(method: .post, url: URL(string: "https://api.openai.com/v1/files")!),
        ] {
            _ = try await client.send(request)
        }
        let events = try await recorder.waitForTerminalEvents(count: 3)
        XCTAssertEqual(events.filter(\.name.isTerminal).count, 3)
        XCTAssertTrue(events.allSatisfy { $0.genAI == nil })
    }

    func testRecognitionOffGivesNone() async throws {
        var policy = HTTPCorePolicy.debug.interpreting(.genAI)
        policy.interpreters = []
        let events = try await send(.openAIChatCompletion, policy: policy)
        XCTAssertNil(events.last?.genAI)
        XCTAssertEqual(events.last?.name, .requestSucceeded)
    }

    func testAGatewayTheRecognizerIsGivenIsRecognised() async throws {
        var policy = HTTPCorePolicy.release.interpreting(.genAI)
        policy.interpreters = [GenAIRecognizer(additionalRoutes: [.openAICompatible(provider: GenAIProvider("litellm"), host: "llm.internal.example.com")])]
        var fixture = GenAIFixture.openAIChatCompletion
        fixture.url = "https://llm.internal.example.com/v1/chat/completions"
        let events = try await send(fixture, policy: policy)
        XCTAssertEqual(events.last?.genAI?.recognition.provider, GenAIProvider("litellm"))
        XCTAssertEqual(events.last?.genAI?.response.usage?.inputTokens, 1380)
    }

    func testAnEventMadeAsAValueCarriesTheCallItIsGiven() throws {
        let fixture = GenAIFixture.openAIRateLimited
        let call = try fixture.exchange()
        let request = fixture.request
        let response = HTTPResponse(requestID: request.id, statusCode: 429, headers: [:], body: Data(), url: request.url)
        let start = Date()
        let succeeded = HTTPEvent.requestSucceeded(response, to: request, startedAt: start, endedAt: start + 1, attachments: [call])
        XCTAssertEqual(succeeded.genAI, call)
        let failed = HTTPEvent.requestFailed(.timeout, request: request, startedAt: start, endedAt: start + 1, attachments: [call])
        XCTAssertEqual(failed.genAI, call)
        XCTAssertNil(HTTPEvent.requestSucceeded(response, to: request, startedAt: start, endedAt: start + 1).genAI)
    }
}
