import Foundation
import HTTPCore
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
}
