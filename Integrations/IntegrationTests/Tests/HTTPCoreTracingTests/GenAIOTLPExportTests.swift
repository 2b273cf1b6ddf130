import Foundation
import HTTPCore
import HTTPCoreObservation
import HTTPCoreGenAI
import HTTPCoreLoopback
import HTTPCoreMetrics
import HTTPCoreTracing
import HTTPCoreURLSession
import OTel
import Tracing
import XCTest

@testable import CoreMetrics

/// An OpenAI-shaped streamed chat call, served over loopback, observed by `GenAISpanObserver`
/// and `MetricsObserver` and exported by swift-otel over OTLP/HTTP to a receiver that decodes
/// it with the official protobuf definitions: the GenAI span and the four GenAI metrics arrive
/// with the convention's names, units, attributes and counts.
final class GenAIOTLPExportTests: XCTestCase {
    /// The stream: a role-only delta, three content deltas 50 ms apart, the finish, the usage.
    private static func writeStream(_ writer: LoopbackResponseWriter) throws {
        func chunk(_ choices: String) -> String {
            #"data: {"id":"chatcmpl-e2e","object":"chat.completion.chunk","model":"gpt-4o-mini-2024-07-18","choices":\#(choices)}"# + "\n\n"
        }
        try writer.writeHead(headers: ["Content-Type": "text/event-stream"], framing: .chunked)
        try writer.write(chunk(#"[{"index":0,"delta":{"role":"assistant"},"finish_reason":null}]"#))
        try writer.write(chunk(#"[{"index":0,"delta":{"content":"Hel"},"finish_reason":null}]"#))
        try writer.pause(0.05)
        try writer.write(chunk(#"[{"index":0,"delta":{"content":"lo"},"finish_reason":null}]"#))
        try writer.pause(0.05)
        try writer.write(chunk(#"[{"index":0,"delta":{"content":"!"},"finish_reason":null}]"#))
        try writer.write(chunk(#"[{"index":0,"delta":{},"finish_reason":"stop"}]"#))
        try writer.write(#"data: {"id":"chatcmpl-e2e","object":"chat.completion.chunk","model":"gpt-4o-mini-2024-07-18","choices":[],"usage":{"prompt_tokens":12,"completion_tokens":3,"total_tokens":15}}"# + "\n\n")
        try writer.write("data: [DONE]\n\n")
    }

    func testAStreamedChatCallArrivesAsAGenAISpanAndTheFourGenAIMetrics() async throws {
        let receiver = try OTLPReceiver()
        defer { receiver.stop() }
        var configuration = OTLPExportTests.configuration(exportingTo: receiver)
        configuration.logs.enabled = false
        configuration.metrics.enabled = true
        configuration.metrics.exporter = .otlp
        configuration.metrics.otlpExporter.protocol = .httpProtobuf
        configuration.metrics.otlpExporter.endpoint = "http://127.0.0.1:\(receiver.port)/v1/metrics"
        configuration.metrics.exportInterval = .milliseconds(50)
        // As MetricsObserver's documentation shows.
        let seconds = MetricsObserver.genAIDurationBucketBoundaries.map { Duration.nanoseconds(Int64($0 * 1e9)) }
        for label in MetricsObserver.genAIDurationLabels {
            configuration.metrics.durationHistogramBuckets[label] = seconds
        }
        configuration.metrics.valueHistogramBuckets[MetricsObserver.genAITokenUsageLabel] = MetricsObserver.genAITokenUsageBucketBoundaries
        let (tracer, tracing) = try OTel.makeTracingBackend(configuration: configuration)
        let (metricsFactory, metrics) = try OTel.makeMetricsBackend(configuration: configuration)
        MetricsSystem.bootstrapInternal(metricsFactory)
        let exporting = Task {
            try await withThrowingDiscardingTaskGroup { group in
                group.addTask { try await tracing.run() }
                group.addTask { try await metrics.run() }
            }
        }
        defer { exporting.cancel() }

        let api = try LoopbackHTTPServer()
        defer { api.stop() }
        api.route("POST", "/v1/chat/completions", streaming: { _, writer in try Self.writeStream(writer) })
        var policy = HTTPCorePolicy.default
        policy.interpreters = [GenAIRecognizer(additionalRoutes: [
            GenAIRoute(provider: GenAIProvider("openai"), host: "127.0.0.1", port: Int(api.port), api: .openAICompatible()),
        ])]
        let dispatcher = HTTPEventDispatcher()
        dispatcher.subscribe(MetricsObserver())
        dispatcher.subscribe(GenAISpanObserver(tracer: tracer))
        let client = URLSessionClient(middlewares: [TracingMiddleware(tracer: tracer)], dispatcher: dispatcher, policy: policy)
        let request = HTTPRequest(
            method: .post, url: api.url("/v1/chat/completions"), headers: ["Content-Type": "application/json"],
            body: Data(#"{"model":"gpt-4o-mini","stream":true,"stream_options":{"include_usage":true},"messages":[{"role":"user","content":"Say hello"}]}"#.utf8)
        )
        let parent = tracer.startSpan("llm-job", ofKind: .internal)
        let received = try await ServiceContext.withValue(parent.context) {
            try await client.send(request, body: nil) { _, body in
                var count = 0
                for try await chunk in body { count += chunk.count }
                return count
            }
        }
        parent.end()
        XCTAssertGreaterThan(received, 0)
        await dispatcher.flush()

        let spans = try await receiver.waitFor("/spans", count: 3)
        let job = try XCTUnwrap(spans.first { $0["name"] as? String == "llm-job" })
        let http = try XCTUnwrap(spans.first { $0["name"] as? String == "POST" })
        let call = try XCTUnwrap(spans.first { $0["name"] as? String == "chat gpt-4o-mini" }, "named {operation} {request model}")
        XCTAssertEqual(call["kind"] as? Int, 3, "SPAN_KIND_CLIENT")
        XCTAssertEqual(call["parent_span_id"] as? String, job["span_id"] as? String, "a sibling of the HTTP span, under the caller's")
        XCTAssertEqual(http["parent_span_id"] as? String, job["span_id"] as? String)
        XCTAssertEqual(call["status_code"] as? Int, 0)
        let attributes = try XCTUnwrap(call["attributes"] as? [String: Any])
        XCTAssertEqual(attributes["gen_ai.provider.name"] as? String, "openai")
        XCTAssertEqual(attributes["gen_ai.operation.name"] as? String, "chat")
        XCTAssertEqual(attributes["gen_ai.request.model"] as? String, "gpt-4o-mini")
        XCTAssertEqual(attributes["gen_ai.request.stream"] as? Bool, true)
        XCTAssertEqual(attributes["gen_ai.response.id"] as? String, "chatcmpl-e2e")
        XCTAssertEqual(attributes["gen_ai.response.model"] as? String, "gpt-4o-mini-2024-07-18")
        XCTAssertEqual(attributes["gen_ai.response.finish_reasons"] as? [String], ["stop"])
        XCTAssertEqual((attributes["gen_ai.usage.input_tokens"] as? NSNumber)?.intValue, 12)
        XCTAssertEqual((attributes["gen_ai.usage.output_tokens"] as? NSNumber)?.intValue, 3)
        XCTAssertNotNil(attributes["gen_ai.response.time_to_first_chunk"] as? Double)
        XCTAssertEqual(attributes["server.address"] as? String, "127.0.0.1")
        XCTAssertEqual((attributes["server.port"] as? NSNumber)?.intValue, Int(api.port))
        XCTAssertNil(attributes["error.type"])
        let everything = String(decoding: try JSONSerialization.data(withJSONObject: spans), as: UTF8.self)
        XCTAssertFalse(everything.contains("Say hello") || everything.contains("Hel"), "no prompt or completion content")

        // Cumulative exports repeat every 50 ms, and the receiver keeps each stream's latest
        // point. Every value was recorded before the flush returned, but an export may have
        // caught the two per-chunk intervals half recorded: waits for a point of each of the
        // five GenAI streams, the per-chunk one with both intervals, however slow the exports.
        func genAIPoints() async throws -> [[String: Any]] {
            try await receiver.waitFor("/metrics", count: 1).filter { ($0["name"] as? String)?.hasPrefix("gen_ai.") == true }
        }
        func isComplete(_ points: [[String: Any]]) -> Bool {
            let perChunk = points.first { $0["name"] as? String == MetricsObserver.genAITimePerOutputChunkLabel }
            return points.count == 5 && (perChunk?["count"] as? NSNumber)?.intValue == 2
        }
        var points = try await genAIPoints()
        let giveUp = Date().addingTimeInterval(60)
        while !isComplete(points), Date() < giveUp {
            try await Task.sleep(for: .milliseconds(50))  // the export interval
            points = try await genAIPoints()
        }
        func point(_ name: String, tokenType: String? = nil) throws -> [String: Any] {
            let found = points.filter { $0["name"] as? String == name && ($0["attributes"] as? [String: Any])?["gen_ai.token.type"] as? String == tokenType }
            XCTAssertEqual(found.count, 1, "one stream of \(name) \(tokenType ?? "")")
            return try XCTUnwrap(found.first)
        }
        let dimensions: [String: String] = [
            "gen_ai.operation.name": "chat", "gen_ai.provider.name": "openai", "gen_ai.request.model": "gpt-4o-mini",
            "gen_ai.response.model": "gpt-4o-mini-2024-07-18", "server.address": "127.0.0.1", "server.port": String(api.port),
        ]
        let duration = try point(MetricsObserver.genAIOperationDurationLabel)
        let firstChunk = try point(MetricsObserver.genAITimeToFirstChunkLabel)
        let perChunk = try point(MetricsObserver.genAITimePerOutputChunkLabel)
        for histogram in [duration, firstChunk, perChunk] {
            XCTAssertEqual(histogram["unit"] as? String, "s")
            XCTAssertEqual(histogram["kind"] as? String, "histogram")
            XCTAssertEqual(histogram["attributes"] as? [String: String], dimensions)
            XCTAssertEqual(histogram["explicit_bounds"] as? [Double], MetricsObserver.genAIDurationBucketBoundaries)
        }
        XCTAssertEqual((duration["count"] as? NSNumber)?.intValue, 1)
        XCTAssertGreaterThanOrEqual(try XCTUnwrap(duration["sum"] as? Double), 0.1, "two 50 ms pauses at least")
        XCTAssertEqual((firstChunk["count"] as? NSNumber)?.intValue, 1)
        XCTAssertEqual((perChunk["count"] as? NSNumber)?.intValue, 2, "three output chunks, two intervals")
        // The intervals are stamped as the client reads the chunks: a reader late for "Hel"
        // shortens the first, so only their being measured is certain.
        XCTAssertGreaterThan(try XCTUnwrap(perChunk["sum"] as? Double), 0, "the two intervals, as the client saw the chunks arrive")
        for (type, count) in [("input", 12.0), ("output", 3.0)] {
            let tokens = try point(MetricsObserver.genAITokenUsageLabel, tokenType: type)
            XCTAssertEqual(tokens["unit"] as? String, "{token}")
            XCTAssertEqual(tokens["kind"] as? String, "histogram")
            XCTAssertEqual(tokens["attributes"] as? [String: String], dimensions.merging(["gen_ai.token.type": type]) { $1 })
            XCTAssertEqual((tokens["count"] as? NSNumber)?.intValue, 1)
            XCTAssertEqual(tokens["sum"] as? Double, count)
            XCTAssertEqual(tokens["explicit_bounds"] as? [Double], MetricsObserver.genAITokenUsageBucketBoundaries)
        }
    }
}
