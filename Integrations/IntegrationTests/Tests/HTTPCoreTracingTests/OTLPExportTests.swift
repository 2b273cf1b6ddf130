import Foundation
import HTTPCore
import HTTPCoreObservation
import HTTPCoreTesting
import HTTPCoreLogging
import HTTPCoreTracing
import Logging
import OTel
import Tracing
import XCTest
import HTTPCoreLoopback
import HTTPCoreTestPeers
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Spans and log records through swift-otel's OTLP/HTTP exporters to a receiver that decodes
/// them with the official protobuf definitions (PyPI's `opentelemetry-proto`), read back and
/// checked.
final class OTLPExportTests: XCTestCase {
    func testSpansReachAnOTLPReceiverRedactedWithTheRightParentsAndATraceparentOnTheWire() async throws {
        let receiver = try OTLPReceiver()
        defer { receiver.stop() }
        var configuration = Self.configuration(exportingTo: receiver)
        configuration.logs.enabled = false
        let (tracer, service) = try OTel.makeTracingBackend(configuration: configuration)
        let exporting = Task { try await service.run() }
        defer { exporting.cancel() }

        let api = try LoopbackHTTPServer()
        defer { api.stop() }
        api.route("/orders/7") { _ in .json(#"{"id":7}"#) }
        api.route("/broken") { _ in .text("down", status: 503) }
        let client = HTTPTransportClient(
            transport: URLSessionLikeTransport(),
            middlewares: [TracingMiddleware(tracer: tracer)],
            dispatcher: HTTPEventDispatcher()
        )
        let parent = tracer.startSpan("nightly-job", ofKind: .internal)
        try await ServiceContext.withValue(parent.context) {
            _ = try await client.send(HTTPRequest(url: api.url("/orders/7?token=S3CR3T&page=2"), headers: ["Authorization": "Bearer S3CR3T"]))
            _ = try await client.send(HTTPRequest(method: .post, url: api.url("/broken"), body: Data("{}".utf8)))
        }
        parent.end()
        // The batch processor exports every 50 ms; the receiver holds the answer until all three arrive.

        let spans = try await receiver.waitFor("/spans", count: 3)
        let job = try XCTUnwrap(spans.first { $0["name"] as? String == "nightly-job" })
        let get = try XCTUnwrap(spans.first { $0["name"] as? String == "GET" })
        let post = try XCTUnwrap(spans.first { $0["name"] as? String == "POST" })
        XCTAssertEqual(get["parent_span_id"] as? String, job["span_id"] as? String, "a child of the caller's span")
        XCTAssertEqual(get["trace_id"] as? String, job["trace_id"] as? String)
        XCTAssertEqual(get["kind"] as? Int, 3, "SPAN_KIND_CLIENT")
        let attributes = try XCTUnwrap(get["attributes"] as? [String: Any])
        XCTAssertEqual(attributes["http.request.method"] as? String, "GET")
        XCTAssertEqual(attributes["url.full"] as? String, api.url("/orders/7").absoluteString + "?token=[REDACTED]&page=2")
        XCTAssertEqual(attributes["server.address"] as? String, "127.0.0.1")
        XCTAssertEqual((attributes["server.port"] as? NSNumber)?.intValue, Int(api.port))
        XCTAssertEqual((attributes["http.response.status_code"] as? NSNumber)?.intValue, 200)
        XCTAssertEqual(get["status_code"] as? Int, 0, "unset for a 200")
        XCTAssertEqual(post["status_code"] as? Int, 2, "STATUS_CODE_ERROR for a 503")
        XCTAssertEqual((post["attributes"] as? [String: Any])?["error.type"] as? String, "503")

        // The server got the GET span's context in a W3C traceparent.
        let traceparent = try XCTUnwrap(api.requests.first { $0.path.hasPrefix("/orders") }?.headers["traceparent"])
        XCTAssertEqual(traceparent, "00-\(get["trace_id"] as? String ?? "")-\(get["span_id"] as? String ?? "")-01")
        let everything = String(decoding: try JSONSerialization.data(withJSONObject: spans), as: UTF8.self)
        XCTAssertFalse(everything.contains("S3CR3T"), "no secret from the query or the headers in any span")
    }

    func testEachAttemptIsASpanAndTheLogLinesOfEachAttemptCarryItsTraceAndSpanIDs() async throws {
        let receiver = try OTLPReceiver()
        defer { receiver.stop() }
        let configuration = Self.configuration(exportingTo: receiver)
        let (tracer, tracing) = try OTel.makeTracingBackend(configuration: configuration)
        let (makeLogHandler, logging) = try OTel.makeLoggingBackend(configuration: configuration)
        let exporting = Task {
            try await withThrowingDiscardingTaskGroup { group in
                group.addTask { try await tracing.run() }
                group.addTask { try await logging.run() }
            }
        }
        defer { exporting.cancel() }

        let api = try LoopbackHTTPServer()
        defer { api.stop() }
        api.route("/orders/7", answering: [.text("busy", status: 503), .json(#"{"id":7}"#)])
        let dispatcher = HTTPEventDispatcher()
        dispatcher.subscribe(LoggingObserver(logger: Logger(label: "http.client", factory: makeLogHandler)))
        // Retries first, tracing after them: a span per attempt.
        let retry = RetryMiddleware(maximumAttempts: 2, backoff: Backoff(initial: 0, maximum: 0))
        let client = HTTPTransportClient(
            transport: URLSessionLikeTransport(),
            middlewares: [retry, TracingMiddleware(tracer: tracer)],
            dispatcher: dispatcher
        )
        let parent = tracer.startSpan("nightly-job", ofKind: .internal)
        let response = try await ServiceContext.withValue(parent.context) {
            try await client.send(HTTPRequest(url: api.url("/orders/7")))
        }
        parent.end()
        XCTAssertEqual(response.statusCode, 200)
        await dispatcher.flush()

        let spans = try await receiver.waitFor("/spans", count: 3)
        let job = try XCTUnwrap(spans.first { $0["name"] as? String == "nightly-job" })
        let attempts = spans.filter { $0["name"] as? String == "GET" }
        XCTAssertEqual(attempts.count, 2, "one span per attempt")
        let first = try XCTUnwrap(attempts.first { ($0["attributes"] as? [String: Any])?["http.request.resend_count"] == nil })
        let second = try XCTUnwrap(attempts.first { ($0["attributes"] as? [String: Any])?["http.request.resend_count"] != nil })
        XCTAssertEqual(((second["attributes"] as? [String: Any])?["http.request.resend_count"] as? NSNumber)?.intValue, 1)
        XCTAssertEqual(first["status_code"] as? Int, 2, "the 503 attempt is an error")
        XCTAssertEqual(second["status_code"] as? Int, 0)
        for attempt in attempts {
            XCTAssertEqual(attempt["parent_span_id"] as? String, job["span_id"] as? String, "both attempts are children of the caller's span")
        }
        // Each attempt went out with its own span's traceparent.
        let sent = api.requests.filter { $0.path.hasPrefix("/orders") }.map { $0.headers["traceparent"] }
        XCTAssertEqual(sent, [first, second].map { "00-\($0["trace_id"] as? String ?? "")-\($0["span_id"] as? String ?? "")-01" })

        // LoggingObserver logged the retried attempt and the outcome; through swift-otel's OTLP
        // log exporter each record carries the ids of the span its attempt was sent in.
        let logs = try await receiver.waitFor("/logs", count: 2)
        XCTAssertEqual(logs.count, 2)
        let ids = logs.map { record -> [String?] in
            let attributes = record["attributes"] as? [String: Any]
            return [attributes?["trace_id"] as? String, attributes?["span_id"] as? String]
        }
        XCTAssertEqual(Set(ids), [
            [first["trace_id"] as? String, first["span_id"] as? String],
            [second["trace_id"] as? String, second["span_id"] as? String],
        ])
        XCTAssertEqual(logs.compactMap { ($0["attributes"] as? [String: Any])?["http.response.status_code"] as? String }.sorted(), ["200", "503"])

        // LoggingObserver runs on the task that sent the request, so each record's own trace
        // context is the span active where its event was emitted: the retried attempt's when
        // the next attempt began (inside that attempt's span), the exchange's end after the
        // middlewares returned (the caller's span).
        func record(_ status: String) -> [String: Any]? {
            logs.first { ($0["attributes"] as? [String: Any])?["http.response.status_code"] as? String == status }
        }
        XCTAssertEqual(logs.map { $0["trace_id"] as? String }, [job["trace_id"] as? String, job["trace_id"] as? String], "both in the caller's trace")
        XCTAssertEqual(record("503")?["span_id"] as? String, second["span_id"] as? String)
        XCTAssertEqual(record("200")?["span_id"] as? String, job["span_id"] as? String)
    }
}

extension OTLPExportTests {
    /// swift-otel exporting spans and logs with OTLP/HTTP to `receiver` every 50 ms, with the
    /// W3C propagator and no metrics.
    static func configuration(exportingTo receiver: OTLPReceiver) -> OTel.Configuration {
        var configuration = OTel.Configuration.default
        configuration.serviceName = "httpcore-tests"
        configuration.metrics.enabled = false
        configuration.propagators = [.traceContext]
        configuration.traces.exporter = .otlp
        configuration.traces.otlpExporter.protocol = .httpProtobuf
        configuration.traces.otlpExporter.endpoint = "http://127.0.0.1:\(receiver.port)/v1/traces"
        configuration.traces.batchSpanProcessor.scheduleDelay = .milliseconds(50)
        configuration.logs.exporter = .otlp
        configuration.logs.otlpExporter.protocol = .httpProtobuf
        configuration.logs.otlpExporter.endpoint = "http://127.0.0.1:\(receiver.port)/v1/logs"
        configuration.logs.batchLogRecordProcessor.scheduleDelay = .milliseconds(50)
        return configuration
    }
}

/// Sends requests with URLSession, as a plain transport for this test.
private struct URLSessionLikeTransport: HTTPTransport {
    func perform(_ request: HTTPRequest, body: HTTPBody?) async throws -> (HTTPResponse.Head, HTTPBody) {
        var outgoing = URLRequest(url: request.url)
        outgoing.httpMethod = request.method.rawValue
        for field in request.headers { outgoing.addValue(field.value, forHTTPHeaderField: field.name) }
        outgoing.httpBody = try await body?.collect(upTo: 1 << 20) ?? request.body
        let (data, response) = try await URLSession.shared.data(for: outgoing)
        let http = response as! HTTPURLResponse
        return (HTTPResponse.Head(requestID: request.id, statusCode: http.statusCode, url: http.url ?? request.url), HTTPBody(data))
    }
}

/// `Peers/otlp_receiver.py` in a child process.
final class OTLPReceiver: Sendable {
    let port: Int
    private let peer: PythonPeer

    init() throws {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Peers/otlp_receiver.py")
        let reason = "the OTLP receiver did not start (pip install opentelemetry-proto; .ci/run does)"
        do {
            peer = try PythonPeer(arguments: [script.path])
        } catch {
            if ProcessInfo.processInfo.environment["HTTPCORE_REQUIRE_PEERS"] != nil { throw PeerError(description: "\(reason): \(error)") }
            throw XCTSkip("\(reason): \(error)")
        }
        guard let port = peer.lastInteger else {
            peer.stop()
            throw PeerError(description: "\(reason): \(peer.firstLine)")
        }
        self.port = port
    }

    /// What arrived at `path` (`/spans` or `/logs`), once there are at least `count`; fails if
    /// they do not all arrive within `timeout` seconds. The receiver holds the request until
    /// then: no polling.
    func waitFor(_ path: String, count: Int, timeout: TimeInterval = 60) async throws -> [[String: Any]] {
        var request = URLRequest(url: URL(string: "http://127.0.0.1:\(port)\(path)?count=\(count)&timeout=\(timeout)")!)
        request.timeoutInterval = timeout + 10
        let (data, _) = try await URLSession.shared.data(for: request)
        let items = try JSONSerialization.jsonObject(with: data) as? [[String: Any]] ?? []
        guard items.count >= count else {
            throw PeerError(description: "\(items.count) of \(count) at \(path) arrived within \(timeout) s")
        }
        return items
    }

    struct PeerError: Error, CustomStringConvertible {
        let description: String
    }

    func stop() {
        peer.stop()
    }
}
