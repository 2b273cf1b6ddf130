import AsyncHTTPClient
import Foundation
import HTTPCore
import HTTPCoreObservation
import HTTPCoreAsyncHTTPClient
import HTTPCoreLogging
import HTTPCoreLoopback
import HTTPCoreTracing
import InMemoryTracing
import Logging
import Tracing
import XCTest

/// The "Moving from AsyncHTTPClient" article's client, run against a loopback upstream: each
/// call gets a client span under the caller's context, its context sent upstream, and one log
/// line; a proxied stream's body outlives the call and ends the exchange. (`OTLPExportTests`
/// prove the same with swift-otel: `traceparent` and the trace ids on the log line.)
final class MovingFromAsyncHTTPClientTests: XCTestCase {
    /// The article's AHC client: its own tracing off.
    private var ahc: AsyncHTTPClient.HTTPClient!

    override func setUp() {
        ahc = AsyncHTTPClientTransport.makeHTTPClient()
    }

    override func tearDown() async throws {
        try await ahc.shutdown()
    }

    /// A log handler that keeps every line.
    private struct RecordingLogHandler: LogHandler {
        let lines: Lines
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            lines.append((event.level, "\(event.message)", metadata.merging(event.metadata ?? [:]) { $1 }))
        }
    }

    private final class Lines: @unchecked Sendable {   // safe: `stored` is only touched under `lock`
        typealias Line = (level: Logger.Level, message: String, metadata: Logger.Metadata)
        private let lock = NSLock()
        private var stored: [Line] = []

        func append(_ line: Line) { lock.withLock { stored.append(line) } }
        var all: [Line] { lock.withLock { stored } }
    }

    func testEachCallGetsItsSpanUnderTheCallersContextAndOneLogLineWithTheTrace() async throws {
        let upstream = try LoopbackHTTPServer()
        defer { upstream.stop() }
        // The span's context as the tracer propagates it (swift-otel: `traceparent`; the
        // in-memory tracer: its own header).
        upstream.route("/items/42") { request in
            .json(#"{"id":42,"seen":"\#(request.headers[InMemoryTracer.traceIDKey] ?? "none")"}"#)
        }
        let lines = Lines()
        let tracer = InMemoryTracer()
        let dispatcher = HTTPEventDispatcher()
        dispatcher.subscribe(LoggingObserver(logger: Logger(label: "upstream") { _ in RecordingLogHandler(lines: lines) }))
        let client = HTTPTransportClient(
            asyncHTTPClient: ahc, middlewares: [TracingMiddleware(tracer: tracer), RetryMiddleware()], dispatcher: dispatcher
        )

        let parent = tracer.startSpan("GET /orders/7", ofKind: .server)
        let response = try await ServiceContext.withValue(parent.context) {
            try await client.send(HTTPRequest(url: upstream.url("/items/42"), timeout: 30))
        }
        parent.end()
        await dispatcher.flush()

        let clientSpans = tracer.finishedSpans.filter { $0.kind == .client }
        XCTAssertEqual(clientSpans.count, 1, "one span per call: AHC's own tracing is off")
        let span = try XCTUnwrap(clientSpans.first)
        XCTAssertEqual(span.context.inMemorySpanContext?.parentSpanID, parent.context.inMemorySpanContext?.spanID, "a child of the caller's span")
        XCTAssertEqual(span.attributes["http.response.status_code"]?.toSpanAttribute(), 200)
        let traceID = try XCTUnwrap(span.context.inMemorySpanContext?.traceID)
        let sent = String(decoding: response.body, as: UTF8.self)
        XCTAssertEqual(sent, #"{"id":42,"seen":"\#(traceID)"}"#, "the upstream received the span's context")
        XCTAssertEqual(lines.all.count, 1)
        let line = try XCTUnwrap(lines.all.first)
        XCTAssertEqual(line.level, .info)
        XCTAssertTrue(line.message.hasPrefix("GET \(upstream.url("/items/42")) -> 200 ("), line.message)
        XCTAssertEqual(line.metadata["http.request.method"], "GET")
        XCTAssertEqual(line.metadata["http.response.status_code"], "200")
    }

    func testAProxiedStreamsBodyOutlivesTheCallAndEndsTheExchange() async throws {
        let upstream = try LoopbackHTTPServer()
        defer { upstream.stop() }
        upstream.route("GET", "/export", streaming: { _, writer in
            try writer.writeHead(headers: ["Content-Type": "text/csv"], framing: .contentLength(12))
            try writer.write("id,name\n")
            try writer.write("1,a\n")
        })
        let tracer = InMemoryTracer()
        let client = HTTPTransportClient(
            asyncHTTPClient: ahc, middlewares: [TracingMiddleware(tracer: tracer)], dispatcher: HTTPEventDispatcher()
        )

        let (head, body) = try await client.send(HTTPRequest(url: upstream.url("/export"), timeout: 300), body: nil)
        XCTAssertEqual(head.statusCode, 200)
        XCTAssertEqual(head.headers["Content-Length"], "12", "the length can be passed on")
        XCTAssertEqual(tracer.finishedSpans.count, 0, "the call returned; the body has not been read")
        var proxied = Data()
        for try await chunk in body { proxied.append(contentsOf: chunk) }   // as a server framework would
        XCTAssertEqual(String(decoding: proxied, as: UTF8.self), "id,name\n1,a\n")
        let span = try XCTUnwrap(tracer.finishedSpans.first)
        XCTAssertEqual(span.attributes["http.response.body.size"]?.toSpanAttribute(), 12)
    }
}
