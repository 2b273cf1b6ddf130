import Foundation
import HTTPCore
import HTTPCoreObservation
import HTTPCoreGenAI
import HTTPCoreConsole
import HTTPCoreConcurrency
import HTTPCoreTestPeers
import HTTPCoreTesting
import XCTest

/// An LLM call's line and block end with its summary: model, tokens, time to the first
/// chunk, finish; nothing of the prompt or answer beyond what the policy captured.
final class ConsoleObserverGenAITests: XCTestCase {
    /// What `observer` printed for `fixture`'s call through a client with `policy`, a
    /// stream written one event a chunk when the fixture streams.
    private func printed(
        _ fixture: GenAIFixture, policy: HTTPCorePolicy, observer: (@escaping @Sendable (String) -> Void) -> ConsoleObserver
    ) async throws -> [String] {
        let lines = Locked<[String]>([])
        let dispatcher = HTTPEventDispatcher()
        dispatcher.subscribe(observer { line in lines.withLock { $0.append(line) } })
        try await fixture.send(through: dispatcher, policy: policy)
        await dispatcher.flush()
        return lines.withLock { $0 }.map(GenAIFixture.timesHidden)
    }

    func testAStreamedAnthropicCallsLineEndsWithItsSummaryUnderBothPolicies() async throws {
        let fixture = GenAIFixture.anthropicStream
        for policy in [HTTPCorePolicy.debug, .release] {
            let lines = try await printed(fixture, policy: policy) { ConsoleObserver(write: $0) }
            XCTAssertEqual(lines, [
                "POST https://api.anthropic.com/v1/messages -> 200 (<t>, 277 B up, \(fixture.responseBody.utf8.count) B down)"
                    + " [genAI: claude-sonnet-4-20250514 · 3,097 in, 15 out tokens · first chunk <t> · stop]",
            ])
        }
    }

    func testABufferedOpenAICallsLineEndsWithItsSummary() async throws {
        let lines = try await printed(.openAIChatCompletion, policy: .release) { ConsoleObserver(write: $0) }
        XCTAssertEqual(lines, [
            "POST https://api.openai.com/v1/chat/completions -> 200 (<t>, 122 B up, \(GenAIFixture.openAIChatCompletion.responseBody.utf8.count) B down)"
                + " [genAI: o4-mini-2025-04-16 · 1,380 in, 1,998 out tokens · stop, length]",
        ])
    }

    func testAStreamedAnthropicCallsBlocksEndWithAnLLMLineAfterTheResponse() async throws {
        let fixture = GenAIFixture.anthropicStream
        let blocks = try await printed(fixture, policy: .release) { ConsoleObserver(format: .blocks, body: .text, write: $0) }
        XCTAssertEqual(blocks, [
            """
            [REQUEST] POST https://api.anthropic.com/v1/messages
              Content-Type: application/json
              body (277 B)
            [RESPONSE] 200 https://api.anthropic.com/v1/messages (<t>)
              Content-Type: text/event-stream
              body (\(fixture.responseBody.utf8.count) B)
            [genAI] claude-sonnet-4-20250514 · 3,097 in, 15 out tokens · first chunk <t> · stop
            """,
        ])
    }

    func testUnderTheDebugPolicyTheLLMLineFollowsTheAnswerAndTheCapturedBody() async throws {
        let fixture = GenAIFixture.anthropicStream
        let blocks = try await printed(fixture, policy: .debug) { ConsoleObserver(format: .blocks, body: .text, write: $0) }
        XCTAssertEqual(blocks, [
            """
            [REQUEST] POST https://api.anthropic.com/v1/messages
              Content-Type: application/json
              body (277 B):
                \(fixture.requestBody)
            [RESPONSE] 200 https://api.anthropic.com/v1/messages (<t>)
              Content-Type: text/event-stream
              answer (Anthropic, 8 messages):
                Hello! How can I help?
              body (\(fixture.responseBody.utf8.count) B):
                \(fixture.responseBody)
            [genAI] claude-sonnet-4-20250514 · 3,097 in, 15 out tokens · first chunk <t> · stop
            """,
        ])
    }

    func testAnExchangeThatIsNoLLMCallHasNoLLMLine() async throws {
        let lines = Locked<[String]>([])
        let dispatcher = HTTPEventDispatcher()
        dispatcher.subscribe(ConsoleObserver(format: .blocks) { line in lines.withLock { $0.append(line) } })
        let reply = MockTransport.Reply.status(200, body: Data(GenAIFixture.anthropicMessage.responseBody.utf8))
        let request = HTTPRequest(method: .post, url: URL(string: "https://api.example.com/v1/messages")!, body: Data("{}".utf8))
        _ = try await HTTPTransportClient(transport: MockTransport(default: reply), dispatcher: dispatcher, policy: .debug).send(request)
        await dispatcher.flush()
        XCTAssertEqual(lines.withLock { $0 }.map(GenAIFixture.timesHidden), [
            """
            [REQUEST] POST https://api.example.com/v1/messages
              body (2 B)
            [RESPONSE] 200 https://api.example.com/v1/messages (<t>)
              body (\(GenAIFixture.anthropicMessage.responseBody.utf8.count) B)
            """,
        ])
    }

    func testAStreamThatEndedWithAProviderErrorUnderA200IsAWarningThatAWarningConsolePrints() async throws {
        let event = try GenAIFixture.providerErrorUnderA200()
        XCTAssertEqual(ConsoleObserver.level(of: event), .warning)
        let lines = Locked<[String]>([])
        let console = ConsoleObserver(minimumLevel: .warning) { line in lines.withLock { $0.append(line) } }
        console.handle(event)
        await console.flush()
        XCTAssertEqual(lines.withLock { $0 }, [
            "POST https://api.anthropic.com/v1/messages -> 200 (2000.0 ms, 0 B up, 0 B down) [genAI: claude-sonnet-4 · no usage · error overloaded_error]",
        ])
    }
}
