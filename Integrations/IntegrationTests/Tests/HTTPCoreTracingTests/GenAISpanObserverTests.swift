import Foundation
import HTTPCore
import HTTPCoreObservation
import HTTPCoreGenAI
import HTTPCoreTesting
import HTTPCoreTracing
import InMemoryTracing
import Tracing
import XCTest

/// The GenAI span of an LLM call's terminal event: the convention's name, kind and attributes,
/// over the exchange's own start and end.
final class GenAISpanObserverTests: XCTestCase {
    private let url = URL(string: "https://api.openai.com/v1/chat/completions")!
    private let started = Date(timeIntervalSince1970: 1_800_000_000)

    /// The succeeded event of `request`, a POST to OpenAI, answered with `status` after 1.5 s.
    private func succeeded(_ request: HTTPRequest, status: Int, genAI: (any HTTPExchangeAttachment)?) -> HTTPEvent {
        let response = HTTPResponse(requestID: request.id, statusCode: status, url: url)
        return .requestSucceeded(response, to: request, startedAt: started, endedAt: started.addingTimeInterval(1.5), attachments: genAI.map { [$0] } ?? [])
    }

    /// The succeeded event of a POST to OpenAI that is no LLM call's.
    private func succeeded(status: Int, genAI: (any HTTPExchangeAttachment)?) -> HTTPEvent {
        succeeded(HTTPRequest(method: .post, url: url), status: status, genAI: genAI)
    }

    /// A streamed chat request to OpenAI for `gpt-4o`.
    private func chatRequest(_ body: String = #"{"model":"gpt-4o","stream":true}"#) -> HTTPRequest {
        HTTPRequest(method: .post, url: url, body: Data(body.utf8))
    }

    /// The facts the GenAI interpreter derives from `request`'s stream (each message's data
    /// with when it arrived) or, without one, from the whole `response`, read through its
    /// public reading as a client would feed it.
    private func derived(
        _ request: HTTPRequest, stream: [(seconds: Double, data: String)]? = nil, response: HTTPResponse? = nil, error: HTTPError? = nil,
        policy: HTTPCorePolicy = .debug
    ) throws -> any HTTPExchangeAttachment {
        let recognizer: GenAIRecognizer = .genAI
        var reading = try XCTUnwrap(recognizer.reading(for: request), "an LLM call")
        let head = response ?? HTTPResponse(requestID: request.id, statusCode: 200, headers: ["Content-Type": "text/event-stream"], url: url)
        if let stream {
            reading.readHead(head.head, carriesMessages: true)
            for message in stream {
                reading.readMessage(eventType: nil, data: Data(message.data.utf8), isTruncated: false, secondsSinceAttemptBegan: message.seconds)
            }
        }
        return try XCTUnwrap(reading.finish(request: request, response: head, error: error, policy: policy))
    }

    /// Three content deltas at 0.125, 0.375 and 0.875 s, the finish, and the usage: 12 in, 34 out.
    private let chatStream: [(seconds: Double, data: String)] = [
        (0.125, #"{"id":"chatcmpl-1","model":"gpt-4o-2024-08-06","choices":[{"index":0,"delta":{"content":"Hel"}}]}"#),
        (0.375, #"{"id":"chatcmpl-1","model":"gpt-4o-2024-08-06","choices":[{"index":0,"delta":{"content":"lo"}}]}"#),
        (0.875, #"{"id":"chatcmpl-1","model":"gpt-4o-2024-08-06","choices":[{"index":0,"delta":{"content":"!"}}]}"#),
        (0.9, #"{"id":"chatcmpl-1","model":"gpt-4o-2024-08-06","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}"#),
        (0.95, #"{"id":"chatcmpl-1","model":"gpt-4o-2024-08-06","choices":[],"usage":{"prompt_tokens":12,"completion_tokens":34}}"#),
    ]

    /// The failed (or, for ``HTTPError/cancelled``, cancelled) event of a POST to OpenAI that
    /// ended with `error` after 1.5 s, a streamed answer cut short after its first delta.
    private func ended(with error: HTTPError) throws -> HTTPEvent {
        let request = chatRequest()
        let response = HTTPResponse(requestID: request.id, statusCode: 200, url: url)
        let call = try derived(request, stream: Array(chatStream.prefix(1)), response: response, error: error)
        return .requestFailed(error, request: request, response: response, startedAt: started, endedAt: started.addingTimeInterval(1.5), attachments: [call])
    }

    /// A streamed call answered with `status`.
    private func call(status: Int) throws -> (request: HTTPRequest, genAI: any HTTPExchangeAttachment) {
        let request = chatRequest()
        let response = HTTPResponse(requestID: request.id, statusCode: status, headers: ["Content-Type": "text/event-stream"], url: url)
        return (request, try derived(request, stream: chatStream, response: response))
    }

    func testAnLLMCallIsAClientSpanNamedAfterItsOperationAndModelWithItsAttributes() throws {
        let tracer = InMemoryTracer()
        let (request, genAI) = try call(status: 200)
        GenAISpanObserver(tracer: tracer).handle(succeeded(request, status: 200, genAI: genAI))

        XCTAssertEqual(tracer.finishedSpans.count, 1)
        let span = try XCTUnwrap(tracer.finishedSpans.first)
        XCTAssertEqual(span.operationName, "chat gpt-4o")
        XCTAssertEqual(span.kind, .client)
        XCTAssertEqual(span.startInstant.nanosecondsSinceEpoch, 1_800_000_000_000_000_000)
        XCTAssertEqual(span.endInstant.nanosecondsSinceEpoch, 1_800_000_001_500_000_000, "the exchange's end, 1.5 s later")
        XCTAssertEqual(span.attributes["gen_ai.provider.name"]?.toSpanAttribute(), "openai")
        XCTAssertEqual(span.attributes["gen_ai.operation.name"]?.toSpanAttribute(), "chat")
        XCTAssertEqual(span.attributes["gen_ai.request.model"]?.toSpanAttribute(), "gpt-4o")
        XCTAssertEqual(span.attributes["gen_ai.request.stream"]?.toSpanAttribute(), true)
        XCTAssertEqual(span.attributes["gen_ai.response.model"]?.toSpanAttribute(), "gpt-4o-2024-08-06")
        XCTAssertEqual(span.attributes["gen_ai.response.finish_reasons"]?.toSpanAttribute(), .stringArray(["stop"]))
        XCTAssertEqual(span.attributes["gen_ai.response.time_to_first_chunk"]?.toSpanAttribute(), 0.125)
        XCTAssertEqual(span.attributes["gen_ai.usage.input_tokens"]?.toSpanAttribute(), 12)
        XCTAssertEqual(span.attributes["gen_ai.usage.output_tokens"]?.toSpanAttribute(), 34)
        XCTAssertEqual(span.attributes["server.address"]?.toSpanAttribute(), "api.openai.com")
        XCTAssertEqual(span.attributes["server.port"]?.toSpanAttribute(), 443)
        XCTAssertNil(span.attributes["error.type"])
        XCTAssertNil(span.status)
    }

    func testTheSpansTextFactsAreAsTheClientsPolicyMaskedThem() throws {
        let request = chatRequest(#"{"model":"gpt-4o","stop":["END-OF-TURN"]}"#)
        let answer = #"{"id":"chatcmpl-1","model":"gpt-4o-2024-08-06","choices":[{"index":0,"message":{"content":"Hi"},"finish_reason":"stop"}]}"#
        let response = HTTPResponse(requestID: request.id, statusCode: 200, body: Data(answer.utf8), url: url)
        var naming = HTTPCorePolicy.debug
        naming.redactor = Redactor(sensitiveBodyKeys: ["stop"])
        let plain = InMemoryTracer(), masked = InMemoryTracer()
        GenAISpanObserver(tracer: plain).handle(succeeded(request, status: 200, genAI: try derived(request, response: response, policy: .debug)))
        GenAISpanObserver(tracer: masked).handle(succeeded(request, status: 200, genAI: try derived(request, response: response, policy: naming)))

        let plainSpan = try XCTUnwrap(plain.finishedSpans.first), maskedSpan = try XCTUnwrap(masked.finishedSpans.first)
        XCTAssertEqual(plainSpan.attributes["gen_ai.request.stop_sequences"]?.toSpanAttribute(), .stringArray(["END-OF-TURN"]))
        XCTAssertEqual(maskedSpan.attributes["gen_ai.request.stop_sequences"]?.toSpanAttribute(), .stringArray([Redactor.mask]))
        XCTAssertEqual(maskedSpan.attributes["gen_ai.request.model"]?.toSpanAttribute(), "gpt-4o", "facts the redactor does not mask are kept")
    }

    func testAFailedCallCarriesItsErrorTypeAndAnErrorStatus() throws {
        let tracer = InMemoryTracer()
        let (request, genAI) = try call(status: 429)
        GenAISpanObserver(tracer: tracer).handle(succeeded(request, status: 429, genAI: genAI))

        let span = try XCTUnwrap(tracer.finishedSpans.first)
        XCTAssertEqual(span.attributes["error.type"]?.toSpanAttribute(), "429")
        XCTAssertEqual(span.status, SpanStatus(code: .error, message: "429"))
    }

    func testACallThatTimedOutIsAnErrorSpanWithErrorTypeTimeout() throws {
        let tracer = InMemoryTracer()
        let event = try ended(with: .timeout)
        XCTAssertEqual(event.name, .requestFailed)
        GenAISpanObserver(tracer: tracer).handle(event)

        let span = try XCTUnwrap(tracer.finishedSpans.first)
        XCTAssertEqual(span.operationName, "chat gpt-4o")
        XCTAssertEqual(span.attributes["error.type"]?.toSpanAttribute(), "timeout")
        XCTAssertEqual(span.status, SpanStatus(code: .error, message: "timeout"))
        XCTAssertEqual(span.endInstant.nanosecondsSinceEpoch, 1_800_000_001_500_000_000, "ended when the exchange did")
    }

    func testACancelledCallIsAnErrorSpanWithErrorTypeCancelled() throws {
        let tracer = InMemoryTracer()
        let event = try ended(with: .cancelled)
        XCTAssertEqual(event.name, .requestCancelled)
        GenAISpanObserver(tracer: tracer).handle(event)

        let span = try XCTUnwrap(tracer.finishedSpans.first)
        XCTAssertEqual(span.attributes["error.type"]?.toSpanAttribute(), "cancelled")
        XCTAssertEqual(span.status, SpanStatus(code: .error, message: "cancelled"))
    }

    func testAStreamedCallReadToItsEndOnATaskWithoutTheCallersContextIsAChildOfTheCallersSpan() async throws {
        let tracer = InMemoryTracer()
        let dispatcher = HTTPEventDispatcher()
        dispatcher.subscribe(GenAISpanObserver(tracer: tracer))
        let transport = StreamingMockTransport(headers: ["Content-Type": "text/event-stream"])
        let client = HTTPTransportClient(transport: transport, dispatcher: dispatcher, policy: .default.interpreting(.genAI))
        let request = HTTPRequest(
            method: .post, url: url, headers: ["Content-Type": "application/json"],
            body: Data(#"{"model":"gpt-4o","stream":true,"messages":[{"role":"user","content":"Hi"}]}"#.utf8)
        )
        let caller = tracer.startSpan("llm-job", ofKind: .internal)
        let (_, body) = try await ServiceContext.withValue(caller.context) {
            try await client.send(request, body: nil)
        }
        // The body is read, and so the exchange ends, on a task that has no ServiceContext.
        let reader = Task.detached { () -> (hadContext: Bool, bytes: Data) in
            (ServiceContext.current != nil, try await body.collect(upTo: 1 << 20))
        }
        let writer = try await transport.nextWriter()
        let chunk = #"data: {"id":"chatcmpl-1","model":"gpt-4o-2024-08-06","choices":[{"index":0,"delta":{"content":"Hello"},"finish_reason":"stop"}]}"#
        try await writer.write(HTTPBody.ByteChunk("\(chunk)\n\ndata: [DONE]\n\n".utf8))
        writer.finish()
        let read = try await reader.value
        await dispatcher.flush()
        caller.end()

        XCTAssertFalse(read.hadContext)
        XCTAssertFalse(read.bytes.isEmpty)
        let span = try XCTUnwrap(tracer.finishedSpans.first { $0.operationName == "chat gpt-4o" })
        XCTAssertEqual(span.traceID, caller.traceID, "the caller's trace, not a trace of its own")
        XCTAssertEqual(span.parentSpanID, caller.spanID)
        XCTAssertEqual(span.attributes["gen_ai.response.model"]?.toSpanAttribute(), "gpt-4o-2024-08-06")
    }

    func testAnExchangeCreatedBeyondTheTrackedLimitTakesTheContextCurrentAtItsEndAndIsCounted() throws {
        let tracer = InMemoryTracer()
        let diagnostics = DiagnosticsRecorder()
        let observer = GenAISpanObserver(tracer: tracer, maximumTrackedExchanges: 1, diagnostics: diagnostics.report)
        let first = HTTPRequest(method: .post, url: url)
        let second = HTTPRequest(method: .post, url: url)
        let caller = tracer.startSpan("llm-job", ofKind: .internal)
        ServiceContext.withValue(caller.context) {
            observer.handle(.requestCreated(first))
            observer.handle(.requestCreated(second))
        }
        for request in [first, second] {
            let response = HTTPResponse(requestID: request.id, statusCode: 200, url: url)
            observer.handle(
                .requestSucceeded(response, to: request, startedAt: started, endedAt: started.addingTimeInterval(1.5), attachments: [try call(status: 200).genAI])
            )
        }
        caller.end()

        let spans = tracer.finishedSpans.filter { $0.operationName == "chat gpt-4o" }
        XCTAssertEqual(spans.map(\.parentSpanID), [caller.spanID, nil], "the second was not kept: the end has no context, a trace of its own")
        XCTAssertEqual(observer.untrackedExchangeCount, 1)
        XCTAssertEqual(diagnostics.reports.map(\.source), ["GenAISpanObserver", "GenAISpanObserver"])
        XCTAssertEqual(diagnostics.reports.map(\.level), [.warning, .notice], "full when the second was created, room once the first ended")
    }

    func testAnExchangeThatIsNoLLMCallMakesNoSpan() {
        let tracer = InMemoryTracer()
        GenAISpanObserver(tracer: tracer).handle(succeeded(status: 200, genAI: nil))

        XCTAssertEqual(tracer.finishedSpans.count, 0)
    }
}
