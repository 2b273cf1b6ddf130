@testable import HTTPCore
@testable import HTTPCoreObservation
@testable import HTTPCoreGenAI
import Foundation
import HTTPCoreConcurrency
import HTTPCoreTesting
import HTTPCoreTestPeers
import XCTest

/// Streamed exchanges through `HTTPTransportClient`: an LLM call's messages are read as they
/// arrive, whatever the policy emits, and its terminal event carries what arrived, also when
/// the stream was cut, cancelled or timed out.
final class GenAIStreamedClientTests: XCTestCase {
    private var dispatcher: HTTPEventDispatcher!
    private var recorder: RecordingObserver!

    override func setUp() {
        dispatcher = HTTPEventDispatcher()
        recorder = RecordingObserver()
        dispatcher.subscribe(recorder)
    }

    private func client(_ transport: StreamingMockTransport, policy: HTTPCorePolicy = .release.interpreting(.genAI)) -> HTTPTransportClient<StreamingMockTransport> {
        HTTPTransportClient(transport: transport, dispatcher: dispatcher, policy: policy)
    }

    private func terminal() async throws -> HTTPEvent {
        let events = try await recorder.waitForTerminalEvents(count: 1)
        return try XCTUnwrap(events.first { $0.name.isTerminal })
    }

    /// Reads the whole body; returns the error that ended it, if any.
    private func readAll(_ client: some HTTPClient, _ request: HTTPRequest) -> Task<HTTPError?, any Error> {
        Task {
            try await client.send(request) { _, body in
                do {
                    for try await _ in body {}
                    return nil
                } catch let error as HTTPError {
                    return error
                }
            }
        }
    }

    func testAStreamedAnthropicAnswerUnderTheReleasePolicyGivesUsageFinishAndTimeToFirstChunk() async throws {
        let fixture = GenAIFixture.anthropicStream
        let transport = StreamingMockTransport(headers: ["Content-Type": "text/event-stream"])
        let bytesRead = AsyncCondition(0)
        let client = client(transport)
        let exchange = Task {
            try await client.send(fixture.request) { _, body in
                for try await chunk in body { bytesRead.update { $0 += chunk.count } }
            }
        }
        let writer = try await transport.nextWriter()
        var bytesWritten = 0
        for event in fixture.events {
            // Each of the answer's chunks comes a pause after the reader took everything before
            // it (its arrival is stamped as it is read), so the pause lies between the two
            // arrivals however late the reader runs.
            if event.contains("content_block_delta") {
                let written = bytesWritten
                _ = try await bytesRead.wait(timeout: 60, until: { $0 == written })
                try await Task.sleep(nanoseconds: 20_000_000)
            }
            let middle = event.index(event.startIndex, offsetBy: event.count / 2)
            try await writer.write(chunk(String(event[..<middle])))
            try await writer.write(chunk(String(event[middle...])))
            bytesWritten += event.utf8.count
        }
        writer.finish()
        try await exchange.value
        let end = try await terminal()
        XCTAssertEqual(end.name, .requestSucceeded)
        XCTAssertEqual(recorder.events.filter { $0.name == .responseMessage }.count, 0, "the policy emits no message")
        XCTAssertEqual(end.streamMessageCount, 8)
        let call = try XCTUnwrap(end.genAI)
        let firstChunk = try XCTUnwrap(call.response.timeToFirstChunk)
        XCTAssertGreaterThanOrEqual(firstChunk, 0.02)
        XCTAssertLessThan(firstChunk * 1000, try XCTUnwrap(end.durationMilliseconds))
        XCTAssertEqual(call.response.outputChunkCount, 2)
        XCTAssertEqual(call.response.outputChunkIntervals.count, 1)
        XCTAssertGreaterThanOrEqual(call.response.outputChunkIntervals[0], 0.02)
        XCTAssertEqual(call.response.messageCount, 8)
        assertAttributes(call, [
            ("gen_ai.provider.name", .string("anthropic")),
            ("gen_ai.operation.name", .string("chat")),
            ("gen_ai.request.model", .string("claude-sonnet-4-20250514")),
            ("gen_ai.request.max_tokens", .int(1024)),
            ("gen_ai.request.temperature", .double(0.7)),
            ("gen_ai.request.top_p", .double(0.95)),
            ("gen_ai.request.top_k", .double(40)),
            ("gen_ai.request.stream", .bool(true)),
            ("gen_ai.response.id", .string("msg_01XFDUDYJgAACzvnptvVoYEL")),
            ("gen_ai.response.model", .string("claude-sonnet-4-20250514")),
            ("gen_ai.response.finish_reasons", .stringArray(["stop"])),
            ("gen_ai.response.time_to_first_chunk", .double(firstChunk)),
            ("gen_ai.usage.input_tokens", .int(25 + 2048 + 1024)),
            ("gen_ai.usage.output_tokens", .int(15)),
            ("gen_ai.usage.cache_read.input_tokens", .int(2048)),
            ("gen_ai.usage.cache_creation.input_tokens", .int(1024)),
            ("server.address", .string("api.anthropic.com")),
            ("server.port", .int(443)),
        ])
        XCTAssertTrue(recorder.events.dropLast().allSatisfy { $0.genAI == nil }, "only the terminal event carries the call")
    }

    func testTimeToFirstChunkCountsFromTheAttemptThatStreamedNotFromTheExchange() async throws {
        let fixture = GenAIFixture.anthropicStream
        var request = fixture.request
        request.isIdempotent = true
        let transport = StreamingMockTransport(statusCodes: [503, 200], headers: ["Content-Type": "text/event-stream"])
        let retry = RetryMiddleware(maximumAttempts: 2, backoff: Backoff(initial: 1, maximum: 1, jitter: .none))
        let client = HTTPTransportClient(transport: transport, middlewares: [retry], dispatcher: dispatcher, policy: .release.interpreting(.genAI))
        let exchange = readAll(client, request)
        _ = try await transport.nextWriter()  // the 503's, whose body the retry drops unread
        let writer = try await transport.nextWriter()
        try await writer.write(chunk(fixture.events.joined()))
        writer.finish()
        _ = try await exchange.value
        let end = try await terminal()
        XCTAssertEqual(end.attempt, 2)
        let starts = recorder.events.filter { $0.name == .requestStarted }.compactMap(\.startedAt)
        XCTAssertEqual(starts.count, 2)
        let betweenAttempts = try XCTUnwrap(starts.last).timeIntervalSince(try XCTUnwrap(starts.first))
        XCTAssertGreaterThanOrEqual(betweenAttempts, 1, "the backoff")
        let firstChunk = try XCTUnwrap(end.genAI?.response.timeToFirstChunk)
        XCTAssertLessThan(firstChunk, betweenAttempts, "the first attempt and the backoff are not the model's time")
    }

    func testAStreamAMiddlewareMovesToAProviderIsReadAsThatProvidersCall() async throws {
        let fixture = GenAIFixture.anthropicStream
        var request = fixture.request
        request.url = URL(string: "https://gateway.example.com/chat")!
        let moved = URLRewritingMiddleware(url: URL(string: fixture.url)!)
        let transport = StreamingMockTransport(headers: ["Content-Type": "text/event-stream"])
        let exchange = readAll(HTTPTransportClient(transport: transport, middlewares: [moved], dispatcher: dispatcher, policy: .release.interpreting(.genAI)), request)
        let writer = try await transport.nextWriter()
        try await writer.write(chunk(fixture.events.joined()))
        writer.finish()
        _ = try await exchange.value
        let end = try await terminal()
        let call = try XCTUnwrap(end.genAI, "recognised as it went out")
        XCTAssertEqual(call.recognition.provider, .anthropic)
        XCTAssertEqual(call.response.usage?.outputTokens, 15)
        XCTAssertEqual(call.response.messageCount, 8)
    }

    func testAStreamAMiddlewareMovesAwayFromAProviderIsNone() async throws {
        let fixture = GenAIFixture.anthropicStream
        let moved = URLRewritingMiddleware(url: URL(string: "https://gateway.example.com/chat")!)
        let transport = StreamingMockTransport(headers: ["Content-Type": "text/event-stream"])
        let exchange = readAll(HTTPTransportClient(transport: transport, middlewares: [moved], dispatcher: dispatcher, policy: .release.interpreting(.genAI)), fixture.request)
        let writer = try await transport.nextWriter()
        try await writer.write(chunk(fixture.events.joined()))
        writer.finish()
        _ = try await exchange.value
        let end = try await terminal()
        XCTAssertEqual(end.streamMessageCount, 8)
        XCTAssertNil(end.genAI)
    }

    func testAStreamIsNotReadForItsFactsWhenNoObserverHandlesTerminalEventsAsItBegins() async throws {
        dispatcher = HTTPEventDispatcher()
        dispatcher.subscribe(CreatedOnly())
        let fixture = GenAIFixture.anthropicStream
        let transport = StreamingMockTransport(headers: ["Content-Type": "text/event-stream"])
        let client = client(transport)
        XCTAssertFalse(client.interprets)
        let exchange = readAll(client, fixture.request)
        let writer = try await transport.nextWriter()
        // Subscribed once the exchange began: it sees the end, which the exchange did not read for.
        dispatcher.subscribe(recorder)
        XCTAssertTrue(client.interprets)
        try await writer.write(chunk(fixture.events.joined()))
        writer.finish()
        _ = try await exchange.value
        let end = try await terminal()
        XCTAssertEqual(end.streamMessageCount, 8)
        XCTAssertNil(end.genAI, "no tap read the stream, and no facts are made up at the end")
    }

    func testAStreamCutByTheTransportGivesThePartialUsageAndTheErrorType() async throws {
        let fixture = GenAIFixture.anthropicStream
        let transport = StreamingMockTransport(headers: ["Content-Type": "text/event-stream"])
        let exchange = readAll(client(transport), fixture.request)
        let writer = try await transport.nextWriter()
        for event in fixture.events.prefix(4) { try await writer.write(chunk(event)) }
        try await writer.write(chunk(#"event: content_block_delta\#ndata: {"type":"content_bl"#))
        writer.finish(throwing: HTTPError.transport(.connectionLost, message: "the connection closed"))
        let error = try await exchange.value
        XCTAssertEqual(error?.code, .connectionLost)
        let end = try await terminal()
        XCTAssertEqual(end.name, .requestFailed)
        let call = try XCTUnwrap(end.genAI)
        XCTAssertEqual(call.errorType, "connection_lost")
        XCTAssertEqual(
            call.response.usage,
            GenAIUsage(inputTokens: 25 + 2048 + 1024, outputTokens: 1, cacheReadInputTokens: 2048, cacheCreationInputTokens: 1024)
        )
        XCTAssertEqual(call.response.finishReasons, [])
        XCTAssertEqual(call.response.outputChunkCount, 1, "the one complete delta")
        XCTAssertEqual(call.response.id, "msg_01XFDUDYJgAACzvnptvVoYEL")
        XCTAssertTrue(call.summary.hasPrefix("claude-sonnet-4-20250514 · 3,097 in, 1 out tokens · first chunk "), call.summary)
        XCTAssertTrue(call.summary.hasSuffix(" · error connection_lost"), call.summary)
    }

    func testACancelledReadGivesCancelledWithWhatArrived() async throws {
        let fixture = GenAIFixture.anthropicStream
        let transport = StreamingMockTransport(headers: ["Content-Type": "text/event-stream"])
        let client = client(transport)
        let exchange = Task {
            try await client.send(fixture.request) { _, body in
                var iterator = body.makeAsyncIterator()
                return try await iterator.next()?.count
            }
        }
        let writer = try await transport.nextWriter()
        try await writer.write(chunk(fixture.events.prefix(4).joined()))
        _ = try await exchange.value
        let end = try await terminal()
        XCTAssertEqual(end.name, .requestCancelled)
        let call = try XCTUnwrap(end.genAI)
        XCTAssertEqual(call.errorType, "cancelled")
        XCTAssertEqual(call.response.usage?.inputTokens, 25 + 2048 + 1024)
        XCTAssertEqual(call.response.messageCount, 4)
    }

    func testAStreamPastItsDeadlineGivesTimeoutWithWhatArrived() async throws {
        let fixture = GenAIFixture.anthropicStream
        var request = fixture.request
        request.timeout = 2
        let transport = StreamingMockTransport(headers: ["Content-Type": "text/event-stream"])
        let exchange = readAll(client(transport), request)
        let writer = try await transport.nextWriter()
        try await writer.write(chunk(fixture.events.prefix(5).joined()))
        let error = try await exchange.value
        XCTAssertEqual(error, .timeout)
        let end = try await terminal()
        let call = try XCTUnwrap(end.genAI)
        XCTAssertEqual(call.errorType, "timeout")
        XCTAssertEqual(call.response.outputChunkCount, 2)
        XCTAssertEqual(call.response.usage?.outputTokens, 1)
    }

    func testAJSONAnswerReadThroughTheStreamingAPIIsReadWhole() async throws {
        let fixture = GenAIFixture.openAIChatCompletion
        let transport = StreamingMockTransport(headers: ["Content-Type": "application/json"])
        let exchange = readAll(client(transport), fixture.request)
        let writer = try await transport.nextWriter()
        let body = Array(fixture.responseBody.utf8)
        for start in stride(from: 0, to: body.count, by: 100) {
            try await writer.write(HTTPBody.ByteChunk(body[start..<min(start + 100, body.count)]))
        }
        writer.finish()
        _ = try await exchange.value
        let end = try await terminal()
        var direct = try fixture.exchange()
        direct.request.stopSequences = nil
        XCTAssertEqual(end.genAI, direct, "the release policy keeps no stop sequences")
    }

    func testAStreamedRateLimitBodyGivesTheProvidersCode() async throws {
        let fixture = GenAIFixture.anthropicRateLimited
        let transport = StreamingMockTransport(statusCode: 429, headers: ["Content-Type": "application/json"])
        let exchange = readAll(client(transport), fixture.request)
        let writer = try await transport.nextWriter()
        try await writer.write(chunk(fixture.responseBody))
        writer.finish()
        _ = try await exchange.value
        let end = try await terminal()
        XCTAssertEqual(end.name, .requestSucceeded)
        XCTAssertEqual(end.genAI?.errorType, "rate_limit_error")
    }

    func testMessagesLongerThanThePolicyShowsAreStillReadWhole() async throws {
        var policy = HTTPCorePolicy.debug.interpreting(.genAI)
        policy.streamMessages.maxBytes = 32
        let fixture = GenAIFixture.anthropicStream
        let transport = StreamingMockTransport(headers: ["Content-Type": "text/event-stream"])
        let exchange = readAll(client(transport, policy: policy), fixture.request)
        let writer = try await transport.nextWriter()
        try await writer.write(chunk(fixture.events.joined()))
        writer.finish()
        _ = try await exchange.value
        let end = try await terminal()
        let messages = recorder.events.compactMap(\.message)
        XCTAssertEqual(messages.count, 8)
        XCTAssertEqual(messages.first?.isTruncated, true, "observers see the policy's cut")
        XCTAssertEqual(end.genAI?.response.usage?.inputTokens, 25 + 2048 + 1024)
        XCTAssertEqual(end.genAI?.response.id, "msg_01XFDUDYJgAACzvnptvVoYEL")
    }

    func testAMessageLongerThanTheGenAICapIsCountedButNotRead() async throws {
        let fixture = GenAIFixture.anthropicStream
        let text = String(repeating: "x", count: GenAIRecognizer.maximumMessageBytes)
        let long = "event: content_block_delta\ndata: "
            + #"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"\#(text)"}}"# + "\n\n"
        let transport = StreamingMockTransport(headers: ["Content-Type": "text/event-stream"])
        let exchange = readAll(client(transport), fixture.request)
        let writer = try await transport.nextWriter()
        let events = fixture.events
        try await writer.write(chunk((events.dropLast(2) + [long] + events.suffix(2)).joined()))
        writer.finish()
        _ = try await exchange.value
        let end = try await terminal()
        XCTAssertEqual(end.streamMessageCount, 9)
        let call = try XCTUnwrap(end.genAI)
        XCTAssertEqual(call.response.messageCount, 9, "the long message still counts")
        XCTAssertEqual(call.response.outputChunkCount, 2, "but its chunk is not read")
        XCTAssertEqual(call.response.usage?.outputTokens, 15, "the messages after it are")
    }

    func testAStreamedJSONBodyLongerThanTheBodyCapIsNotRead() async throws {
        let fixture = GenAIFixture.openAIChatCompletion
        let transport = StreamingMockTransport(headers: ["Content-Type": "application/json"])
        let exchange = readAll(client(transport), fixture.request)
        let writer = try await transport.nextWriter()
        let padding = String(repeating: " ", count: GenAIRecognizer.maximumBodyBytes)
        try await writer.write(chunk(fixture.responseBody + padding))
        writer.finish()
        _ = try await exchange.value
        let end = try await terminal()
        let call = try XCTUnwrap(end.genAI)
        XCTAssertNil(call.response.usage, "not kept past the cap")
        XCTAssertNil(call.response.id)
        XCTAssertEqual(call.request.model, "o4-mini")
    }

    func testAStreamedRequestBodyGivesParametersOnlyAsFarAsThePolicyCapturesIt() async throws {
        let fixture = GenAIFixture.anthropicStream
        for (policy, model) in [(HTTPCorePolicy.release.interpreting(.genAI), nil), (HTTPCorePolicy.debug.interpreting(.genAI), "claude-sonnet-4-20250514")] {
            dispatcher = HTTPEventDispatcher()
            recorder = RecordingObserver()
            dispatcher.subscribe(recorder)
            let transport = StreamingMockTransport(headers: ["Content-Type": "text/event-stream"])
            let client = client(transport, policy: policy)
            var request = fixture.request
            request.body = nil
            let exchange = Task {
                try await client.send(request, body: HTTPBody(Data(fixture.requestBody.utf8))).0.statusCode
            }
            let writer = try await transport.nextWriter()
            _ = try await exchange.value
            writer.finish()
            let end = try await terminal()
            XCTAssertEqual(end.genAI?.request.model, model)
            XCTAssertEqual(end.genAI?.recognition.provider, .anthropic)
        }
    }

    func testAStreamedExchangeThatIsNoLLMCallOrWithRecognitionOffCarriesNone() async throws {
        var off = HTTPCorePolicy.release.interpreting(.genAI)
        off.interpreters = []
        for (policy, url) in [
            (HTTPCorePolicy.release.interpreting(.genAI), "https://api.example.com/v1/messages"), (off, GenAIFixture.anthropicStream.url),
        ] {
            dispatcher = HTTPEventDispatcher()
            recorder = RecordingObserver()
            dispatcher.subscribe(recorder)
            let transport = StreamingMockTransport(headers: ["Content-Type": "text/event-stream"])
            var request = GenAIFixture.anthropicStream.request
            request.url = URL(string: url)!
            let exchange = readAll(client(transport, policy: policy), request)
            let writer = try await transport.nextWriter()
            try await writer.write(chunk(GenAIFixture.anthropicStream.events.joined()))
            writer.finish()
            _ = try await exchange.value
            let end = try await terminal()
            XCTAssertEqual(end.streamMessageCount, 8)
            XCTAssertNil(end.genAI)
        }
    }
}

private func chunk(_ text: String) -> HTTPBody.ByteChunk { HTTPBody.ByteChunk(text.utf8) }

/// An observer of `created` events alone, which does nothing with them.
private struct CreatedOnly: HTTPObserver {
    var handledEventNames: Set<HTTPEvent.Name>? { [.requestCreated] }
    func handle(_ event: HTTPEvent) {}
}
