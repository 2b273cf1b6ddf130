import Foundation
import HTTPCore
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

    /// The succeeded event of a POST to OpenAI, answered with `status` after 1.5 s.
    private func succeeded(status: Int, genAI: GenAIExchange?) -> HTTPEvent {
        let request = HTTPRequest(method: .post, url: url)
        let response = HTTPResponse(requestID: request.id, statusCode: status, url: url)
        return .requestSucceeded(response, to: request, startedAt: started, endedAt: started.addingTimeInterval(1.5), attachments: genAI.map { [$0] } ?? [])
    }

    /// The failed (or, for ``HTTPError/cancelled``, cancelled) event of a POST to OpenAI that
    /// ended with `error` after 1.5 s, a streamed answer cut short.
    private func ended(with error: HTTPError) throws -> HTTPEvent {
        let request = HTTPRequest(method: .post, url: url)
        let response = HTTPResponse(requestID: request.id, statusCode: 200, url: url)
        let recognition = try XCTUnwrap(GenAIRecognizer.standard.recognize(method: .post, url: url))
        let call = GenAIExchange(
            recognition: recognition, request: GenAIRequestParameters(model: "gpt-4o", stream: true),
            response: GenAIResponse(id: "chatcmpl-1", model: "gpt-4o-2024-08-06", messageCount: 2), statusCode: 200,
            error: error
        )
        return .requestFailed(error, request: request, response: response, startedAt: started, endedAt: started.addingTimeInterval(1.5), attachments: [call])
    }

    private func call(status: Int) throws -> GenAIExchange {
        let recognition = try XCTUnwrap(GenAIRecognizer.standard.recognize(method: .post, url: url))
        let response = GenAIResponse(
            id: "chatcmpl-1", model: "gpt-4o-2024-08-06", finishReasons: ["stop"], usage: GenAIUsage(inputTokens: 12, outputTokens: 34),
            messageCount: 4, timeToFirstChunk: 0.125, outputChunkCount: 3, outputChunkIntervals: [0.25, 0.5]
        )
        return GenAIExchange(
            recognition: recognition, request: GenAIRequestParameters(model: "gpt-4o", stream: true), response: response,
            statusCode: status, error: nil
        )
    }

    func testAnLLMCallIsAClientSpanNamedAfterItsOperationAndModelWithItsAttributes() throws {
        let tracer = InMemoryTracer()
        GenAISpanObserver(tracer: tracer).handle(succeeded(status: 200, genAI: try call(status: 200)))

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

    func testAnObserversOwnRedactorMasksTheSpansTextFactsOnTopOfThePolicys() throws {
        let recognition = try XCTUnwrap(GenAIRecognizer.standard.recognize(method: .post, url: url))
        let call = GenAIExchange(
            recognition: recognition, request: GenAIRequestParameters(model: "gpt-4o", stopSequences: ["END-OF-TURN"], stream: false),
            response: GenAIResponse(id: "chatcmpl-1", model: "gpt-4o-2024-08-06", finishReasons: ["stop"], messageCount: 1),
            statusCode: 200, error: nil
        )
        let plain = InMemoryTracer(), masked = InMemoryTracer()
        GenAISpanObserver(tracer: plain).handle(succeeded(status: 200, genAI: call))
        GenAISpanObserver(tracer: masked, redactor: Redactor(sensitiveBodyKeys: ["stop"])).handle(succeeded(status: 200, genAI: call))

        let plainSpan = try XCTUnwrap(plain.finishedSpans.first), maskedSpan = try XCTUnwrap(masked.finishedSpans.first)
        XCTAssertEqual(plainSpan.attributes["gen_ai.request.stop_sequences"]?.toSpanAttribute(), .stringArray(["END-OF-TURN"]))
        XCTAssertEqual(maskedSpan.attributes["gen_ai.request.stop_sequences"]?.toSpanAttribute(), .stringArray([Redactor.mask]))
        XCTAssertEqual(maskedSpan.attributes["gen_ai.request.model"]?.toSpanAttribute(), "gpt-4o", "facts the redactor does not mask are kept")
    }

    func testAFailedCallCarriesItsErrorTypeAndAnErrorStatus() throws {
        let tracer = InMemoryTracer()
        GenAISpanObserver(tracer: tracer).handle(succeeded(status: 429, genAI: try call(status: 429)))

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
                .requestSucceeded(response, to: request, startedAt: started, endedAt: started.addingTimeInterval(1.5), attachments: [try call(status: 200)])
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
