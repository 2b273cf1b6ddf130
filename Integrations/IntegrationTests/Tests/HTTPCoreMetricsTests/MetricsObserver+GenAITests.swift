import Foundation
import HTTPCore
import HTTPCoreMetrics
import MetricsTestKit
import XCTest

@testable import CoreMetrics

/// The GenAI client metrics of an LLM call's terminal event, with the convention's names,
/// units, dimensions and bucket boundaries, through the swift-metrics test backend.
final class MetricsObserverGenAITests: XCTestCase {
    private let url = URL(string: "https://api.openai.com/v1/chat/completions")!
    private let started = Date(timeIntervalSince1970: 1_800_000_000)

    private func call(usage: GenAIUsage?, streamed: Bool, errorStatus: Int? = nil) throws -> GenAIExchange {
        let recognition = try XCTUnwrap(GenAIRecognizer.standard.recognize(method: .post, url: url))
        let response = GenAIResponse(
            id: "chatcmpl-1", model: "gpt-4o-2024-08-06", finishReasons: ["stop"], usage: usage,
            messageCount: streamed ? 4 : 0, timeToFirstChunk: streamed ? 0.125 : nil, outputChunkCount: streamed ? 3 : 0,
            outputChunkIntervals: streamed ? [0.25, 0.5] : []
        )
        return GenAIExchange(
            recognition: recognition, request: GenAIRequestParameters(model: "gpt-4o", stream: streamed ? true : nil), response: response,
            statusCode: errorStatus ?? 200, error: nil
        )
    }

    /// Hands `event` to a new observer, as the dispatcher would.
    private func dispatch(_ event: HTTPEvent) {
        MetricsObserver().handle(event)
    }

    /// The succeeded event of `request`, answered with `status` after `seconds`.
    private func succeeded(_ request: HTTPRequest, status: Int, after seconds: Double, genAI: GenAIExchange?) -> HTTPEvent {
        let response = HTTPResponse(requestID: request.id, statusCode: status, url: request.url)
        return .requestSucceeded(response, to: request, startedAt: started, endedAt: started.addingTimeInterval(seconds), genAI: genAI)
    }

    private let dimensions = [
        ("gen_ai.operation.name", "chat"), ("gen_ai.provider.name", "openai"), ("gen_ai.request.model", "gpt-4o"),
        ("gen_ai.response.model", "gpt-4o-2024-08-06"), ("server.address", "api.openai.com"), ("server.port", "443"),
    ]

    func testAStreamedCallRecordsItsDurationTokensFirstChunkAndEachChunkInterval() throws {
        let metrics = TestMetrics()
        MetricsSystem.bootstrapInternal(metrics)
        let exchange = try call(usage: GenAIUsage(inputTokens: 12, outputTokens: 34), streamed: true)
        dispatch(succeeded(HTTPRequest(method: .post, url: url), status: 200, after: 1.5, genAI: exchange))

        let seconds = dimensions + [("unit", "s")]
        XCTAssertEqual(try metrics.expectTimer(MetricsObserver.genAIOperationDurationLabel, seconds).values, [1_500_000_000])
        XCTAssertEqual(try metrics.expectTimer(MetricsObserver.genAITimeToFirstChunkLabel, seconds).values, [125_000_000])
        XCTAssertEqual(try metrics.expectTimer(MetricsObserver.genAITimePerOutputChunkLabel, seconds).values, [250_000_000, 500_000_000])
        let tokens = dimensions + [("unit", "{token}")]
        XCTAssertEqual(try metrics.expectRecorder(MetricsObserver.genAITokenUsageLabel, tokens + [("gen_ai.token.type", "input")]).values, [12])
        XCTAssertEqual(try metrics.expectRecorder(MetricsObserver.genAITokenUsageLabel, tokens + [("gen_ai.token.type", "output")]).values, [34])
    }

    func testACallWithoutUsageRecordsNoTokensAndAFailedOneCarriesItsErrorType() throws {
        let metrics = TestMetrics()
        MetricsSystem.bootstrapInternal(metrics)
        let exchange = try call(usage: nil, streamed: false, errorStatus: 429)
        dispatch(succeeded(HTTPRequest(method: .post, url: url), status: 429, after: 0.25, genAI: exchange))

        let failed = dimensions + [("error.type", "429"), ("unit", "s")]
        XCTAssertEqual(try metrics.expectTimer(MetricsObserver.genAIOperationDurationLabel, failed).values, [250_000_000])
        XCTAssertFalse(metrics.recorders.contains { $0.label == MetricsObserver.genAITokenUsageLabel }, "no usage sent, none recorded")
        XCTAssertFalse(metrics.timers.contains { $0.label == MetricsObserver.genAITimeToFirstChunkLabel }, "not streamed")
        XCTAssertFalse(metrics.timers.contains { $0.label == MetricsObserver.genAITimePerOutputChunkLabel }, "no chunks")
    }

    func testAnExchangeThatIsNoLLMCallRecordsNoGenAIMetric() throws {
        let metrics = TestMetrics()
        MetricsSystem.bootstrapInternal(metrics)
        dispatch(succeeded(HTTPRequest(url: URL(string: "https://api.example.com/users")!), status: 200, after: 0.1, genAI: nil))

        XCTAssertEqual(metrics.timers.map(\.label), [MetricsObserver.durationLabel])
        XCTAssertFalse(metrics.recorders.contains { $0.label.hasPrefix("gen_ai.") })
    }

    func testTheBucketBoundariesAreTheGenAIConventions() {
        XCTAssertEqual(MetricsObserver.genAITokenUsageBucketBoundaries, (0...13).map { pow(4, Double($0)) })
        XCTAssertEqual(MetricsObserver.genAIDurationBucketBoundaries, (0...13).map { 0.01 * pow(2, Double($0)) })
        XCTAssertEqual(
            MetricsObserver.genAIDurationLabels,
            ["gen_ai.client.operation.duration", "gen_ai.client.operation.time_to_first_chunk", "gen_ai.client.operation.time_per_output_chunk"]
        )
        XCTAssertEqual(MetricsObserver.genAITokenUsageLabel, "gen_ai.client.token.usage")
    }
}
