import Foundation
import HTTPCore
import HTTPCoreObservation
import HTTPCoreTesting
import HTTPCoreTracing
import InMemoryTracing
import Tracing
import XCTest

/// One client span per request, through swift-distributed-tracing's in-memory tracer.
final class TracingMiddlewareTests: XCTestCase {
    private func client(_ tracer: InMemoryTracer, _ transport: MockTransport, retrying: Bool = true) -> HTTPTransportClient<MockTransport> {
        let retry = RetryMiddleware(maximumAttempts: 2, backoff: Backoff(initial: 0, maximum: 0))
        return HTTPTransportClient(
            transport: transport,
            middlewares: [TracingMiddleware(tracer: tracer)] + (retrying ? [retry] : []),
            dispatcher: HTTPEventDispatcher()
        )
    }

    /// `url.full` is redacted by the client's policy, the one place redaction is configured:
    /// a query item the policy names is masked in the span as in every event.
    func testTheSpansURLIsRedactedByTheClientsPolicy() async throws {
        let tracer = InMemoryTracer()
        let policy = HTTPCorePolicy(redactor: Redactor(sensitiveQueryNames: ["customer"]))
        let client = HTTPTransportClient(
            transport: MockTransport(), middlewares: [TracingMiddleware(tracer: tracer)], dispatcher: HTTPEventDispatcher(), policy: policy
        )
        _ = try await client.send(HTTPRequest(url: URL(string: "https://api.example.com/orders?customer=4711&page=2")!))
        let span = try XCTUnwrap(tracer.finishedSpans.first)
        XCTAssertEqual(span.attributes["url.full"]?.toSpanAttribute(), "https://api.example.com/orders?customer=[REDACTED]&page=2")
    }

    func testASpanPerRequestWithConventionsAttributesAndPropagation() async throws {
        let tracer = InMemoryTracer()
        let transport = MockTransport()
        transport.enqueue(.status(503), .status(200, body: Data("ok".utf8)))
        let url = URL(string: "https://user:pw@api.example.com/users/42?token=S3CR3T&page=2")!
        let parent = tracer.startSpan("job", ofKind: .internal)
        let response = try await ServiceContext.withValue(parent.context) {
            try await client(tracer, transport).send(HTTPRequest(url: url, headers: ["Authorization": "Bearer S3CR3T"]))
        }
        parent.end()
        XCTAssertEqual(response.statusCode, 200)

        let spans = tracer.finishedSpans
        let span = try XCTUnwrap(spans.first { $0.operationName == "GET" })
        XCTAssertEqual(span.kind, .client)
        XCTAssertEqual(span.parentSpanID, parent.spanContext.spanID, "a child of the caller's span")
        XCTAssertEqual(span.traceID, parent.spanContext.traceID)
        XCTAssertEqual(span.attributes["http.request.method"]?.toSpanAttribute(), "GET")
        XCTAssertEqual(span.attributes["url.full"]?.toSpanAttribute(), "https://api.example.com/users/42?token=[REDACTED]&page=2")
        XCTAssertEqual(span.attributes["server.address"]?.toSpanAttribute(), "api.example.com")
        XCTAssertEqual(span.attributes["server.port"]?.toSpanAttribute(), 443)
        XCTAssertEqual(span.attributes["http.response.status_code"]?.toSpanAttribute(), 200)
        XCTAssertEqual(span.attributes["http.response.body.size"]?.toSpanAttribute(), 2)
        XCTAssertNil(span.status, "one span over both attempts, ending in a 200")
        XCTAssertFalse("\(span.attributes)".contains("S3CR3T"))
        // Both attempts carried the span's context.
        let sent = transport.requests.map { $0.headers[InMemoryTracer.spanIDKey] }
        XCTAssertEqual(sent, [span.spanID, span.spanID])
    }

    func testAfterTheRetriesEachAttemptIsASpanWithItsResendCount() async throws {
        let tracer = InMemoryTracer()
        let transport = MockTransport()
        transport.enqueue(.status(503), .failure(.transport(.connectionLost, message: "reset")), .status(200))
        let retry = RetryMiddleware(maximumAttempts: 3, backoff: Backoff(initial: 0, maximum: 0))
        let client = HTTPTransportClient(transport: transport, middlewares: [retry, TracingMiddleware(tracer: tracer)], dispatcher: HTTPEventDispatcher())
        _ = try await client.send(HTTPRequest(method: .put, url: URL(string: "https://api.example.com/users/42")!))

        let spans = tracer.finishedSpans
        XCTAssertEqual(spans.map(\.operationName), ["PUT", "PUT", "PUT"])
        XCTAssertNil(spans[0].attributes["http.request.resend_count"], "the first attempt is no resend")
        XCTAssertEqual(spans[1].attributes["http.request.resend_count"]?.toSpanAttribute(), 1)
        XCTAssertEqual(spans[2].attributes["http.request.resend_count"]?.toSpanAttribute(), 2)
        XCTAssertEqual(spans[0].attributes["http.response.status_code"]?.toSpanAttribute(), 503)
        XCTAssertEqual(spans[0].attributes["error.type"]?.toSpanAttribute(), "503", "a retried answer is its status, not a stopped body")
        XCTAssertEqual(spans[0].attributes["http.response.body.size"]?.toSpanAttribute(), 0)
        XCTAssertEqual(spans[1].attributes["error.type"]?.toSpanAttribute(), "connection_lost")
        XCTAssertEqual(Set(spans.map(\.spanID)).count, 3)
        // Each attempt carried its own span's context.
        XCTAssertEqual(transport.requests.map { $0.headers[InMemoryTracer.spanIDKey] }, spans.map(\.spanID))
        // The in-memory tracer propagates no W3C traceparent, so no ids are put in the metadata.
        XCTAssertEqual(transport.requests.map(\.metadata), [[:], [:], [:]])
    }

    func testFailuresAndServerErrorsMarkTheSpan() async throws {
        let tracer = InMemoryTracer()
        let transport = MockTransport()
        transport.enqueue(.status(500), .failure(.timeout), .status(404))
        let client = client(tracer, transport, retrying: false)
        let url = URL(string: "http://api.example.com:8080/x")!
        _ = try await client.send(HTTPRequest(url: url))
        _ = try? await client.send(HTTPRequest(url: url))
        _ = try await client.send(HTTPRequest(method: try XCTUnwrap(HTTPMethod("PURGE")), url: url))
        let spans = tracer.finishedSpans
        XCTAssertEqual(spans.count, 3)
        XCTAssertEqual(spans[0].status?.code, .error)
        XCTAssertEqual(spans[0].attributes["error.type"]?.toSpanAttribute(), "500")
        XCTAssertEqual(spans[0].attributes["server.port"]?.toSpanAttribute(), 8080)
        XCTAssertEqual(spans[1].status?.code, .error)
        XCTAssertEqual(spans[1].attributes["error.type"]?.toSpanAttribute(), "timeout")
        XCTAssertNil(spans[2].status, "a 4xx is not an error for a client span")
        XCTAssertEqual(spans[2].operationName, "HTTP")
        XCTAssertEqual(spans[2].attributes["http.request.method"]?.toSpanAttribute(), "_OTHER")
        XCTAssertEqual(spans[2].attributes["http.request.method_original"]?.toSpanAttribute(), "PURGE")
    }

    func testABufferedCallsSpanEndsWithTheResponseAndTheBodyComesBackWhole() async throws {
        let tracer = InMemoryTracer()
        let transport = MockTransport()
        transport.enqueue(.status(201, body: Data("created".utf8)))
        let client = client(tracer, transport, retrying: false)
        let request = HTTPRequest(method: .post, url: URL(string: "https://api.example.com/orders")!, body: Data("{\"id\":7}".utf8))
        let response = try await client.send(request)
        XCTAssertEqual(String(decoding: response.body, as: UTF8.self), "created")
        let span = try XCTUnwrap(tracer.finishedSpans.first)
        XCTAssertEqual(tracer.finishedSpans.count, 1)
        XCTAssertEqual(span.attributes["http.request.body.size"]?.toSpanAttribute(), 8)
        XCTAssertEqual(span.attributes["http.response.body.size"]?.toSpanAttribute(), 7)
        XCTAssertEqual(span.attributes["http.response.status_code"]?.toSpanAttribute(), 201)
        XCTAssertNil(span.attributes["error.type"])
        XCTAssertNil(span.status)
    }

    /// A buffered transport hands a streamed call its body in memory: the transfer is over, so
    /// the span ends with the head, and the body is the caller's to read, unchanged.
    func testAStreamedCallsBodyAlreadyInMemoryEndsTheSpanWithTheHead() async throws {
        let tracer = InMemoryTracer()
        let transport = MockTransport()
        transport.enqueue(.status(200, body: Data("whole".utf8)))
        let client = client(tracer, transport, retrying: false)
        let text = try await client.send(HTTPRequest(url: URL(string: "https://api.example.com/report")!), body: nil) { _, body in
            XCTAssertEqual(tracer.finishedSpans.count, 1, "ended before the body was read")
            return String(decoding: try await body.collect(upTo: 100), as: UTF8.self)
        }
        XCTAssertEqual(text, "whole")
        let span = try XCTUnwrap(tracer.finishedSpans.first)
        XCTAssertEqual(tracer.finishedSpans.count, 1)
        XCTAssertEqual(span.attributes["http.response.body.size"]?.toSpanAttribute(), 5)
        XCTAssertNil(span.attributes["error.type"])
    }

    /// A streamed exchange through a client whose transport streams, the writer to feed it,
    /// and the task that reads the response body.
    private func streamed(
        _ tracer: InMemoryTracer, upload: HTTPBody? = nil
    ) async throws -> (writer: HTTPBody.Writer, read: Task<Int, any Error>, transport: StreamingMockTransport) {
        let transport = StreamingMockTransport(headers: ["Content-Type": "text/event-stream"])
        let client = HTTPTransportClient(transport: transport, middlewares: [TracingMiddleware(tracer: tracer)], dispatcher: HTTPEventDispatcher())
        let request = HTTPRequest(method: .post, url: URL(string: "https://api.example.com/v1/chat")!)
        let read = Task { try await client.send(request, body: upload) { _, body in try await body.collect(upTo: 1 << 20).count } }
        return (try await transport.nextWriter(), read, transport)
    }

    func testAStreamedResponsesSpanEndsWhenItsBodyEndsWithTheBytesThatWentThrough() async throws {
        let tracer = InMemoryTracer()
        let upload = HTTPBody(Data("{\"stream\":true}".utf8))
        let (writer, read, _) = try await streamed(tracer, upload: upload)
        try await writer.write(HTTPBody.ByteChunk("data: one\n\n".utf8))
        XCTAssertEqual(tracer.finishedSpans.count, 0, "the head arrived; the body has not ended: the span is open")
        try await writer.write(HTTPBody.ByteChunk("data: two\n\n".utf8))
        writer.finish()
        let count = try await read.value
        XCTAssertEqual(count, 22)
        let span = try XCTUnwrap(tracer.finishedSpans.first)
        XCTAssertEqual(tracer.finishedSpans.count, 1)
        XCTAssertEqual(span.attributes["http.response.body.size"]?.toSpanAttribute(), 22)
        XCTAssertEqual(span.attributes["http.request.body.size"]?.toSpanAttribute(), 15)
        XCTAssertEqual(span.attributes["http.response.status_code"]?.toSpanAttribute(), 200)
        XCTAssertNil(span.status)
    }

    func testAFailureInTheBodyMarksTheStreamedSpanAsAnError() async throws {
        let tracer = InMemoryTracer()
        let (writer, read, _) = try await streamed(tracer)
        try await writer.write(HTTPBody.ByteChunk("data: one\n\n".utf8))
        writer.finish(throwing: HTTPError.transport(.connectionLost, message: "reset"))
        let result = await read.result
        XCTAssertThrowsError(try result.get())
        let span = try XCTUnwrap(tracer.finishedSpans.first)
        XCTAssertEqual(span.status?.code, .error)
        XCTAssertEqual(span.attributes["error.type"]?.toSpanAttribute(), "connection_lost")
        XCTAssertEqual(span.attributes["http.response.body.size"]?.toSpanAttribute(), 11)
    }

    struct DecoderGaveUp: Error {}

    func testABodyFailureThatIsNotAnHTTPErrorIsNamedByItsType() async throws {
        let tracer = InMemoryTracer()
        let (writer, read, _) = try await streamed(tracer)
        try await writer.write(HTTPBody.ByteChunk("data: one\n\n".utf8))
        writer.finish(throwing: DecoderGaveUp())
        _ = await read.result
        let span = try XCTUnwrap(tracer.finishedSpans.first)
        XCTAssertEqual(span.status?.code, .error)
        XCTAssertEqual(span.attributes["error.type"]?.toSpanAttribute(), "HTTPCoreTracingTests.TracingMiddlewareTests.DecoderGaveUp")
    }

    func testARetriedUploadCountsTheBytesOfOneSendingNotEveryAttempts() async throws {
        let tracer = InMemoryTracer()
        let transport = StreamingMockTransport(statusCodes: [503, 200])
        let retry = RetryMiddleware(maximumAttempts: 2, backoff: Backoff(initial: 0, maximum: 0, jitter: .none))
        let client = HTTPTransportClient(transport: transport, middlewares: [TracingMiddleware(tracer: tracer), retry], dispatcher: HTTPEventDispatcher())
        let request = HTTPRequest(method: .put, url: URL(string: "https://api.example.com/v1/upload")!)
        let upload = HTTPBody(Data("{\"stream\":true}".utf8))
        let read = Task { try await client.send(request, body: upload) { _, body in try await body.collect(upTo: 1 << 20).count } }
        _ = try await transport.nextWriter()
        let answer = try await transport.nextWriter()
        answer.finish()
        let count = try await read.value
        XCTAssertEqual(count, 0)
        XCTAssertEqual(transport.uploads.map(\.count), [15, 15], "the upload was sent twice")
        let span = try XCTUnwrap(tracer.finishedSpans.first)
        XCTAssertEqual(span.attributes["http.request.body.size"]?.toSpanAttribute(), 15)
    }

    func testAMiddlewareMadeBeforeTheTracerIsBootstrappedTracesOnceItIs() async throws {
        let middleware = TracingMiddleware()
        let transport = MockTransport()
        transport.enqueue(.status(200))
        transport.enqueue(.status(200))
        let client = HTTPTransportClient(transport: transport, middlewares: [middleware], dispatcher: HTTPEventDispatcher())
        // Nothing bootstrapped yet (`NoOpInstrument`): the request goes on untouched.
        _ = try await client.send(HTTPRequest(url: URL(string: "https://api.example.com/early")!))
        XCTAssertNil(transport.requests.last?.headers["traceparent"])
        XCTAssertEqual(transport.requests.last?.metadata, [:])
        // The process's one bootstrap, for this test: no other test of this package reads the global tracer.
        let tracer = InMemoryTracer()
        InstrumentationSystem.bootstrap(tracer)
        _ = try await client.send(HTTPRequest(url: URL(string: "https://api.example.com/late")!))
        XCTAssertEqual(tracer.finishedSpans.map { $0.attributes["url.full"]?.toSpanAttribute() }, ["https://api.example.com/late"])
    }
}
