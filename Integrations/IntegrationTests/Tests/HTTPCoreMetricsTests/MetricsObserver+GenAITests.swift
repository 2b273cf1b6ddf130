import Foundation
import HTTPCore
import HTTPCoreObservation
import HTTPCoreGenAI
import HTTPCoreMetrics
import MetricsTestKit
import Prometheus
import XCTest

@testable import CoreMetrics

/// The GenAI client metrics of an LLM call's terminal event, with the convention's names,
/// units, dimensions and bucket boundaries, through the swift-metrics test backend.
final class MetricsObserverGenAITests: XCTestCase {
    private let url = URL(string: "https://api.openai.com/v1/chat/completions")!
    private let started = Date(timeIntervalSince1970: 1_800_000_000)

    /// An OpenAI chat call for `model`, as the GenAI interpreter derives it through its public
    /// reading, fed as a client would: streamed (three content deltas at 0.125, 0.375 and
    /// 0.875 s) or answered whole with `errorStatus`, with `usage` (input, output) when given.
    private func call(usage: (input: Int, output: Int)?, streamed: Bool, errorStatus: Int? = nil, model: String = "gpt-4o") throws -> (
        request: HTTPRequest, genAI: any HTTPExchangeAttachment
    ) {
        let body = #"{"model":""# + model + (streamed ? #"","stream":true}"# : #""}"#)
        let request = HTTPRequest(method: .post, url: url, body: Data(body.utf8))
        let recognizer: GenAIRecognizer = .genAI
        var reading = try XCTUnwrap(recognizer.reading(for: request), "an LLM call")
        let usageJSON = usage.map { #","usage":{"prompt_tokens":"# + String($0.input) + #","completion_tokens":"# + String($0.output) + "}" } ?? ""
        let head = #"{"id":"chatcmpl-1","model":"gpt-4o-2024-08-06","#
        let response: HTTPResponse
        if streamed {
            response = HTTPResponse(requestID: request.id, statusCode: errorStatus ?? 200, headers: ["Content-Type": "text/event-stream"], url: url)
            reading.readHead(response.head, carriesMessages: true)
            let messages = [
                (0.125, head + #""choices":[{"index":0,"delta":{"content":"Hel"}}]}"#),
                (0.375, head + #""choices":[{"index":0,"delta":{"content":"lo"}}]}"#),
                (0.875, head + #""choices":[{"index":0,"delta":{"content":"!"}}]}"#),
                (0.9, head + #""choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}"#),
                (0.95, head + #""choices":[]"# + usageJSON + "}"),
            ]
            for (seconds, data) in messages {
                reading.readMessage(eventType: nil, data: Data(data.utf8), isTruncated: false, secondsSinceAttemptBegan: seconds)
            }
        } else {
            let answer = head + #""choices":[{"index":0,"message":{"content":"Hi"},"finish_reason":"stop"}]"# + usageJSON + "}"
            response = HTTPResponse(requestID: request.id, statusCode: errorStatus ?? 200, body: Data(answer.utf8), url: url)
        }
        return (request, try XCTUnwrap(reading.finish(request: request, response: response, error: nil, policy: .debug)))
    }

    /// Hands `event` to a new observer, as the dispatcher would.
    private func dispatch(_ event: HTTPEvent) {
        MetricsObserver().handle(event)
    }

    /// The succeeded event of `request`, answered with `status` after `seconds`.
    private func succeeded(_ request: HTTPRequest, status: Int, after seconds: Double, genAI: (any HTTPExchangeAttachment)?) -> HTTPEvent {
        let response = HTTPResponse(requestID: request.id, statusCode: status, url: request.url)
        return .requestSucceeded(response, to: request, startedAt: started, endedAt: started.addingTimeInterval(seconds), attachments: genAI.map { [$0] } ?? [])
    }

    private let dimensions = [
        ("gen_ai.operation.name", "chat"), ("gen_ai.provider.name", "openai"), ("gen_ai.request.model", "gpt-4o"),
        ("gen_ai.response.model", "gpt-4o-2024-08-06"), ("server.address", "api.openai.com"), ("server.port", "443"),
    ]

    func testAStreamedCallRecordsItsDurationTokensFirstChunkAndEachChunkInterval() throws {
        let metrics = TestMetrics()
        MetricsSystem.bootstrapInternal(metrics)
        let (request, exchange) = try call(usage: (12, 34), streamed: true)
        dispatch(succeeded(request, status: 200, after: 1.5, genAI: exchange))

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
        let (request, exchange) = try call(usage: nil, streamed: false, errorStatus: 429)
        dispatch(succeeded(request, status: 429, after: 0.25, genAI: exchange))

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

    func testGenAIHandlesAreMadeOncePerDimensionSetAndAModelBeyondTheLimitGetsHandlesPerCall() throws {
        let factory = CountingMetricsFactory()
        MetricsSystem.bootstrapInternal(factory)
        let observer = MetricsObserver(maximumCachedDimensionSets: 1)
        for model in ["gpt-4o", "gpt-4o-mini"] {
            for _ in 0..<3 {
                let (request, exchange) = try call(usage: (12, 34), streamed: true, model: model)
                observer.handle(succeeded(request, status: 200, after: 1.5, genAI: exchange))
            }
        }

        // The first model's set fits the cache: its three timers and two token recorders are
        // made once. The second's are made for each of its calls, as the HTTP metrics' are
        // beyond the limit, and still record every call.
        XCTAssertEqual(factory.made("gpt-4o", for: "gen_ai.request.model"), ["timer": 3, "recorder": 2])
        XCTAssertEqual(factory.made("gpt-4o-mini", for: "gen_ai.request.model"), ["timer": 9, "recorder": 6])
        let mini = [
            ("gen_ai.operation.name", "chat"), ("gen_ai.provider.name", "openai"), ("gen_ai.request.model", "gpt-4o-mini"),
            ("gen_ai.response.model", "gpt-4o-2024-08-06"), ("server.address", "api.openai.com"), ("server.port", "443"), ("unit", "s"),
        ]
        XCTAssertEqual(try factory.metrics.expectTimer(MetricsObserver.genAIOperationDurationLabel, mini).values, Array(repeating: 1_500_000_000, count: 3))
        XCTAssertEqual(observer.cachedDimensionSetCount, 2, "one outcome and one GenAI set; no meter without a created event")
    }

    func testPrometheusReceivesTheGenAIConventionsBucketBoundariesAsTheDocumentationConfiguresThem() throws {
        let registry = PrometheusCollectorRegistry()
        var factory = PrometheusMetricsFactory(registry: registry)
        factory.nameAndLabelSanitizer = { name, labels in
            (name.replacingOccurrences(of: ".", with: "_"), labels.map { ($0.0.replacingOccurrences(of: ".", with: "_"), $0.1) })
        }
        let seconds = MetricsObserver.genAIDurationBucketBoundaries.map { Duration.nanoseconds(Int64($0 * 1e9)) }
        for label in MetricsObserver.genAIDurationLabels {
            factory.durationHistogramBuckets[label.replacingOccurrences(of: ".", with: "_")] = seconds
        }
        factory.valueHistogramBuckets["gen_ai_client_token_usage"] = MetricsObserver.genAITokenUsageBucketBoundaries
        MetricsSystem.bootstrapInternal(factory)
        let (request, exchange) = try call(usage: (12, 34), streamed: true)
        dispatch(succeeded(request, status: 200, after: 1.5, genAI: exchange))
        let exposition = registry.emitToString()

        // The convention's boundaries: doublings from 10 ms to 81.92 s, powers of four from 1 to 4^13 tokens.
        let durationBounds = [0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92]
        let tokenBounds: [Double] = [1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262_144, 1_048_576, 4_194_304, 16_777_216, 67_108_864]
        for name in ["gen_ai_client_operation_duration", "gen_ai_client_operation_time_to_first_chunk", "gen_ai_client_operation_time_per_output_chunk"] {
            XCTAssertEqual(Self.bucketBounds(of: name, in: exposition), durationBounds, name)
        }
        XCTAssertEqual(Self.bucketBounds(of: "gen_ai_client_token_usage", in: exposition, where: #"gen_ai_token_type="input""#), tokenBounds)
        // 1.5 s falls in the 2.56 s bucket, not the 1.28 s one; 12 input tokens in the 16 bucket, not the 4 one.
        XCTAssertEqual(Self.bucketCount(of: "gen_ai_client_operation_duration", le: 1.28, in: exposition), 0)
        XCTAssertEqual(Self.bucketCount(of: "gen_ai_client_operation_duration", le: 2.56, in: exposition), 1)
        XCTAssertEqual(Self.bucketCount(of: "gen_ai_client_token_usage", le: 4, in: exposition, where: #"gen_ai_token_type="input""#), 0)
        XCTAssertEqual(Self.bucketCount(of: "gen_ai_client_token_usage", le: 16, in: exposition, where: #"gen_ai_token_type="input""#), 1)
    }

    /// The `le` bounds of the `name` histogram's buckets in a Prometheus exposition, `+Inf` left out,
    /// in the series whose labels contain `filter`.
    private static func bucketBounds(of name: String, in exposition: String, where filter: String = "") -> [Double] {
        buckets(of: name, in: exposition, where: filter).map(\.le).filter(\.isFinite)
    }

    /// The count of the `name` histogram's bucket `le` in a Prometheus exposition; `nil` when there is none.
    private static func bucketCount(of name: String, le: Double, in exposition: String, where filter: String = "") -> Int? {
        buckets(of: name, in: exposition, where: filter).first { abs($0.le - le) < 1e-9 }?.count
    }

    private static func buckets(of name: String, in exposition: String, where filter: String) -> [(le: Double, count: Int)] {
        exposition.split(separator: "\n").compactMap { line -> (le: Double, count: Int)? in
            guard line.hasPrefix("\(name)_bucket{"), filter.isEmpty || line.contains(filter),
                let open = line.range(of: #"le=""#), let close = line[open.upperBound...].firstIndex(of: "\""),
                let count = line.split(separator: " ").last.flatMap({ Int($0) })
            else { return nil }
            let bound = String(line[open.upperBound..<close])
            return (bound == "+Inf" ? .infinity : Double(bound) ?? .nan, count)
        }
    }
}
