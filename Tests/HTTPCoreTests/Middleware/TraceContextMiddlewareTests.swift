import Foundation
import HTTPCore
import HTTPCoreObservation
import HTTPCoreTesting
import HTTPCoreURLSession
import XCTest
import HTTPCoreLoopback
import HTTPCoreConcurrency

/// `TraceContextMiddleware` through `URLSessionClient` against a loopback server.
final class TraceContextMiddlewareTests: XCTestCase {
    private var server: LoopbackHTTPServer!
    private var dispatcher: HTTPEventDispatcher!
    private var recorder: RecordingObserver!
    private var client: URLSessionClient!
    private let parent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"

    override func setUpWithError() throws {
        server = try LoopbackHTTPServer()
        server.route("/traced") { _ in .text("ok") }
        dispatcher = HTTPEventDispatcher()
        recorder = RecordingObserver()
        dispatcher.subscribe(recorder)
        client = URLSessionClient(middlewares: [TraceContextMiddleware()], dispatcher: dispatcher, policy: .debug)
    }

    override func tearDown() {
        server.stop()
    }

    private func sentHeaders(_ request: HTTPRequest) async throws -> HTTPHeaders {
        _ = try await client.send(request)
        return try XCTUnwrap(server.requests.last).headers
    }

    func testEveryRequestStartsAValidTraceAndEventsCarryItsIDs() async throws {
        let first = try await sentHeaders(HTTPRequest(url: server.url("/traced")))
        let second = try await sentHeaders(HTTPRequest(url: server.url("/traced")))
        let traceparents = try [first, second].map { try XCTUnwrap($0["traceparent"]) }
        for traceparent in traceparents {
            XCTAssertTrue(TraceContextTests.isValidTraceparent(traceparent), traceparent)
            XCTAssertTrue(traceparent.hasSuffix("-01"), "sampled")
        }
        XCTAssertNotEqual(traceparents[0].dropFirst(3).prefix(32), traceparents[1].dropFirst(3).prefix(32), "a new trace each")
        XCTAssertNil(first["tracestate"])

        let events = try await recorder.waitForTerminalEvents(count: 2)
        let terminal = try XCTUnwrap(events.first { $0.name.isTerminal })
        XCTAssertEqual(terminal.metadata, [
            "trace_id": String(traceparents[0].dropFirst(3).prefix(32)),
            "span_id": String(traceparents[0].dropFirst(36).prefix(16)),
        ])
        XCTAssertEqual(terminal.request.headers["traceparent"], traceparents[0])
        XCTAssertEqual(events.first?.metadata, [:], "created shows the caller's request, before the middleware")
    }

    func testATaskLocalTraceIsContinuedWithANewSpan() async throws {
        let context = try XCTUnwrap(TraceContext(traceparent: parent, tracestate: "congo=t61rcWkgMzE"))
        let headers = try await TraceContext.$current.withValue(context) {
            try await sentHeaders(HTTPRequest(url: server.url("/traced")))
        }
        let sent = try XCTUnwrap(TraceContext(traceparent: headers["traceparent"] ?? ""))
        XCTAssertEqual(sent.traceID, context.traceID)
        XCTAssertNotEqual(sent.spanID, context.spanID)
        XCTAssertEqual(sent.flags, 1)
        XCTAssertEqual(headers["tracestate"], "congo=t61rcWkgMzE")
    }

    func testTheCallersValidTraceparentAndTracestateAreSentAsTheyAre() async throws {
        let headers = try await sentHeaders(HTTPRequest(
            url: server.url("/traced"), headers: ["traceparent": parent, "tracestate": "rojo=00f067aa0ba902b7"]
        ))
        XCTAssertEqual(headers.values(for: "traceparent"), [parent])
        XCTAssertEqual(headers.values(for: "tracestate"), ["rojo=00f067aa0ba902b7"])
        let events = try await recorder.waitForTerminalEvents(count: 1)
        XCTAssertEqual(events.last?.metadata["span_id"], "00f067aa0ba902b7")
    }

    func testAnInvalidTraceparentIsReplacedAndItsTracestateDropped() async throws {
        let headers = try await sentHeaders(HTTPRequest(
            url: server.url("/traced"),
            headers: ["traceparent": "00-00000000000000000000000000000000-00f067aa0ba902b7-01", "tracestate": "stale=1"]
        ))
        let traceparent = try XCTUnwrap(headers["traceparent"])
        XCTAssertTrue(TraceContextTests.isValidTraceparent(traceparent), traceparent)
        XCTAssertEqual(headers.values(for: "traceparent").count, 1)
        XCTAssertNil(headers["tracestate"])
    }

    func testATracestateWithoutItsTraceparentIsNotSentWithAnotherTrace() async throws {
        let alone = try await sentHeaders(HTTPRequest(url: server.url("/traced"), headers: ["tracestate": "orphan=1"]))
        XCTAssertNil(alone["tracestate"])
        let context = try XCTUnwrap(TraceContext(traceparent: parent, tracestate: "congo=1"))
        let continued = try await TraceContext.$current.withValue(context) {
            try await sentHeaders(HTTPRequest(url: server.url("/traced"), headers: ["tracestate": "orphan=1"]))
        }
        XCTAssertEqual(continued.values(for: "tracestate"), ["congo=1"], "the state of the trace the request joins")
    }

    func testUnsampledNewTracesWhenConfigured() async throws {
        client = URLSessionClient(middlewares: [TraceContextMiddleware(samplesNewTraces: false)], dispatcher: dispatcher)
        let headers = try await sentHeaders(HTTPRequest(url: server.url("/traced")))
        XCTAssertEqual(headers["traceparent"]?.suffix(3), "-00")
    }

    func testBeforeRetryEveryAttemptCarriesTheSameTrace() async throws {
        server.route("/flaky", answering: [.text("busy", status: 503), .text("ok")])
        let retry = RetryMiddleware(backoff: Backoff(initial: 0.01, maximum: 0.01, jitter: .none))
        client = URLSessionClient(middlewares: [TraceContextMiddleware(), retry], dispatcher: dispatcher)
        _ = try await client.send(HTTPRequest(url: server.url("/flaky")))
        let sent = server.requests.map { $0.headers["traceparent"] }
        XCTAssertEqual(sent.count, 2)
        XCTAssertEqual(sent[0], sent[1])
        XCTAssertTrue(TraceContextTests.isValidTraceparent(sent[0] ?? ""))
    }

    func testAfterRetryWithAParentEachAttemptIsItsOwnSpanOfTheParentsTrace() async throws {
        server.route("/flaky", answering: [.text("busy", status: 503), .text("ok")])
        let retry = RetryMiddleware(backoff: Backoff(initial: 0.01, maximum: 0.01, jitter: .none))
        client = URLSessionClient(middlewares: [retry, TraceContextMiddleware()], dispatcher: dispatcher)
        let context = try XCTUnwrap(TraceContext(traceparent: parent))
        _ = try await TraceContext.$current.withValue(context) {
            try await client.send(HTTPRequest(url: server.url("/flaky")))
        }
        let sent = try server.requests.map { try XCTUnwrap(TraceContext(traceparent: $0.headers["traceparent"] ?? "")) }
        XCTAssertEqual(sent.map(\.traceID), [context.traceID, context.traceID])
        XCTAssertNotEqual(sent[0].spanID, sent[1].spanID)
        let events = try await recorder.waitForTerminalEvents(count: 1)
        XCTAssertEqual(events.filter { $0.name == .requestStarted }.map { $0.metadata["span_id"] }, sent.map(\.spanID))
    }

    // MARK: The request the middleware passes on, field by field

    /// The request `TraceContextMiddleware` hands to `next` for `request`.
    private func passedOn(_ request: HTTPRequest) async throws -> HTTPRequest {
        let passed = Locked<HTTPRequest?>(nil)
        _ = try await TraceContextMiddleware().intercept(request, body: nil, context: HTTPMiddlewareContext()) { request, _ in
            passed.withLock { $0 = request }
            return (HTTPResponse.Head(requestID: request.id, statusCode: 200, url: request.url), HTTPBody())
        }
        return try XCTUnwrap(passed.withLock { $0 })
    }

    func testANewTraceKeepsTheCallersFieldsInOrderAndAppendsOneTraceparent() async throws {
        let url = try XCTUnwrap(URL(string: "https://api.example.com/users"))
        let request = HTTPRequest(
            url: url, headers: ["Accept": "application/json", "tracestate": "orphan=1", "X-Feature": "search"], metadata: ["route": "/users"]
        )
        let passed = try await passedOn(request)
        XCTAssertEqual(passed.headers.map(\.name), ["Accept", "X-Feature", "traceparent"])
        XCTAssertEqual(Array(passed.headers.prefix(2)), Array(request.headers.fields[0...0] + request.headers.fields[2...2]))
        let sent = try XCTUnwrap(TraceContext(traceparent: passed.headers["traceparent"] ?? ""))
        XCTAssertEqual(passed.metadata, ["route": "/users", "trace_id": sent.traceID, "span_id": sent.spanID])
    }

    func testAnInvalidTraceparentIsReplacedInItsPlace() async throws {
        let url = try XCTUnwrap(URL(string: "https://api.example.com/users"))
        let passed = try await passedOn(HTTPRequest(
            url: url, headers: ["Accept": "application/json", "traceparent": "00-invalid", "X-Feature": "search", "Traceparent": "again"]
        ))
        XCTAssertEqual(passed.headers.map(\.name), ["Accept", "traceparent", "X-Feature"])
        XCTAssertTrue(TraceContextTests.isValidTraceparent(passed.headers["traceparent"] ?? ""))
    }

    func testAContinuedTraceAppendsTraceparentThenItsTracestate() async throws {
        let url = try XCTUnwrap(URL(string: "https://api.example.com/users"))
        let context = try XCTUnwrap(TraceContext(traceparent: parent, tracestate: "congo=t61rcWkgMzE"))
        let passed = try await TraceContext.$current.withValue(context) {
            try await passedOn(HTTPRequest(url: url, headers: ["Accept": "application/json", "tracestate": "orphan=1"]))
        }
        XCTAssertEqual(passed.headers.map(\.name), ["Accept", "traceparent", "tracestate"])
        XCTAssertEqual(passed.headers.values(for: "tracestate"), ["congo=t61rcWkgMzE"])
        let sent = try XCTUnwrap(TraceContext(traceparent: passed.headers["traceparent"] ?? ""))
        XCTAssertEqual(passed.metadata, ["trace_id": context.traceID, "span_id": sent.spanID])
    }

    func testTheCallersValidTraceparentLeavesEveryFieldAsItWas() async throws {
        let url = try XCTUnwrap(URL(string: "https://api.example.com/users"))
        let request = HTTPRequest(url: url, headers: ["Accept": "application/json", "traceparent": " \(parent)\t", "tracestate": "rojo=1"])
        let passed = try await passedOn(request)
        XCTAssertEqual(passed.headers, request.headers)
        XCTAssertEqual(passed.metadata, ["trace_id": "4bf92f3577b34da6a3ce929d0e0e4736", "span_id": "00f067aa0ba902b7"])
    }
}
