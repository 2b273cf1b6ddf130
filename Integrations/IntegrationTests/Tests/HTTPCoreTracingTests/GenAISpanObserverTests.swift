import Foundation
import HTTPCore
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
        let request = HTTPCore.HTTPRequest(method: .post, url: url)
        let response = HTTPResponse(requestID: request.id, statusCode: status, url: url)
        return .requestSucceeded(response, to: request, startedAt: started, endedAt: started.addingTimeInterval(1.5), genAI: genAI)
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

    func testAFailedCallCarriesItsErrorTypeAndAnErrorStatus() throws {
        let tracer = InMemoryTracer()
        GenAISpanObserver(tracer: tracer).handle(succeeded(status: 429, genAI: try call(status: 429)))

        let span = try XCTUnwrap(tracer.finishedSpans.first)
        XCTAssertEqual(span.attributes["error.type"]?.toSpanAttribute(), "429")
        XCTAssertEqual(span.status, SpanStatus(code: .error, message: "429"))
    }

    func testAnExchangeThatIsNoLLMCallMakesNoSpan() {
        let tracer = InMemoryTracer()
        GenAISpanObserver(tracer: tracer).handle(succeeded(status: 200, genAI: nil))

        XCTAssertEqual(tracer.finishedSpans.count, 0)
    }
}
