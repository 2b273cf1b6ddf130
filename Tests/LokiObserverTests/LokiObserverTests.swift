import Foundation
import HTTPCoreConcurrency
import HTTPCoreTesting
import HTTPCoreURLSession
import LokiObserver
import XCTest
import HTTPCoreLoopback
import HTTPCoreTestPeers

@testable import HTTPCore
@testable import HTTPCoreObservation

/// Real exchanges through URLSessionClient become one Loki line each, with low-cardinality
/// labels and the redacted exchange in the line.
final class LokiObserverTests: XCTestCase {
    func testEachExchangeIsOneLineLabelledByOutcome() async throws {
        let receiver = try LokiReceiver()
        defer { receiver.stop() }
        let server = try LoopbackHTTPServer()
        defer { server.stop() }
        server.route("/ok") { _ in .json(#"{"ok":true}"#) }
        server.route("/missing") { _ in .text("no", status: 404) }
        server.route("/broken") { _ in .text("boom", status: 500) }
        let down = try LoopbackHTTPServer()
        let downURL = down.url("/gone")
        down.stop()

        let harness = LokiHarness(receiver: receiver)
        let dispatcher = HTTPEventDispatcher()
        dispatcher.subscribe(LokiObserver(logger: harness.logger))
        let client = URLSessionClient(dispatcher: dispatcher)
        _ = try await client.send(HTTPRequest(
            url: server.url("/ok?api_key=S3CR3T&page=2"), headers: ["X-Request-ID": "corr-1"], metadata: ["trace_id": "4bf92f3577b34da6"]
        ))
        _ = try await client.send(HTTPRequest(url: server.url("/missing")))
        _ = try await client.send(HTTPRequest(method: .post, url: server.url("/broken"), body: Data("x".utf8)))
        _ = try? await client.send(HTTPRequest(url: downURL))
        await dispatcher.flush()
        await harness.logger.flush()

        let received = try await receiver.received()
        XCTAssertEqual(received.rejections, [])
        let host = "127.0.0.1"
        let base = ["app": "checkout", "kind": "http", "host": host]
        XCTAssertEqual(Set(received.labelSets), [
            base.merging(["method": "GET", "status_class": "2xx", "level": "info"]) { $1 },
            base.merging(["method": "GET", "status_class": "4xx", "level": "warning"]) { $1 },
            base.merging(["method": "POST", "status_class": "5xx", "level": "error"]) { $1 },
            base.merging(["method": "GET", "status_class": "failed", "level": "error"]) { $1 },
        ])
        let lines = received.lines
        XCTAssertEqual(lines.count, 4)
        XCTAssertFalse(lines.joined().contains("S3CR3T"))
        let ok = try XCTUnwrap(lines.first { $0.contains("/ok") })
        XCTAssertTrue(ok.hasPrefix("method=GET url=\"http://127.0.0.1:\(server.port)/ok?api_key=[REDACTED]&page=2\" status=200 outcome=succeeded duration_ms="), ok)
        XCTAssertTrue(ok.contains(" attempt=1 correlation_id=corr-1 request_bytes=0 response_bytes=11 trace_id=4bf92f3577b34da6"), ok)
        let failed = try XCTUnwrap(lines.first { $0.contains("/gone") })
        XCTAssertTrue(failed.contains("status=0 outcome=failed"), failed)
        XCTAssertTrue(failed.contains("error_type=cannot_connect error=\"transport error [cannot_connect]: could not connect to the host (127.0.0.1:\(down.port), URLError -1004)\""), failed)
    }

    func testTheIncomingRequestIdIsRequestIdAndTheClientsCounterIsHTTPRequestId() async throws {
        let receiver = try LokiReceiver()
        defer { receiver.stop() }
        let server = try LoopbackHTTPServer()
        defer { server.stop() }
        server.route("/ok") { _ in .text("fine") }
        let harness = LokiHarness(receiver: receiver)
        let dispatcher = HTTPEventDispatcher()
        dispatcher.subscribe(LokiObserver(logger: harness.logger))
        let request = HTTPRequest(url: server.url("/ok"), metadata: ["request_id": "req-7", "url": "from-metadata", "duration.ms": "9"])
        _ = try await URLSessionClient(dispatcher: dispatcher).send(request)
        harness.logger.info("order placed", metadata: ["msg": "from-metadata", "request_id": "req-8"])
        await dispatcher.flush()
        await harness.logger.flush()

        let received = try await receiver.received()
        XCTAssertEqual(received.rejections, [])
        let line = try XCTUnwrap(received.lines.first { $0.contains("/ok") })
        XCTAssertTrue(line.contains(" http_request_id=\(request.id) attempt=1 "), line)
        // Metadata after the line's fields; a key the line has (or that `| logfmt` reads as one) under `metadata.`.
        XCTAssertTrue(line.hasSuffix(" request_bytes=0 response_bytes=4 metadata.duration.ms=9 request_id=req-7 metadata.url=from-metadata"), line)
        let logged = try XCTUnwrap(received.lines.first { $0.contains("order placed") })
        XCTAssertEqual(logged, "msg=\"order placed\" metadata.msg=from-metadata request_id=req-8")
    }

    func testARedirectedPostIsTheLineOfTheGETThatGotTheStatus() async throws {
        let receiver = try LokiReceiver()
        defer { receiver.stop() }
        let server = try LoopbackHTTPServer()
        defer { server.stop() }
        server.route("/submit") { _ in .redirect(to: "/done", status: 303) }
        server.route("/done") { _ in .text("thanks") }
        let harness = LokiHarness(receiver: receiver)
        let dispatcher = HTTPEventDispatcher()
        dispatcher.subscribe(LokiObserver(logger: harness.logger))
        _ = try await URLSessionClient(dispatcher: dispatcher).send(HTTPRequest(method: .post, url: server.url("/submit"), body: Data("a=1".utf8)))
        await dispatcher.flush()
        await harness.logger.flush()

        let received = try await receiver.received()
        XCTAssertEqual(received.rejections, [])
        XCTAssertEqual(received.labelSets.map { $0["method"] }, ["GET"])
        let line = try XCTUnwrap(received.lines.first)
        XCTAssertTrue(line.hasPrefix("method=GET url=http://127.0.0.1:\(server.port)/done status=200 outcome=succeeded"), line)
        XCTAssertTrue(line.hasSuffix(" redirected_from=\"POST http://127.0.0.1:\(server.port)/submit\" redirects=303 request_bytes=3 response_bytes=6"), line)
    }

    func testABodyCutAfterA200IsAnErrorLine() async throws {
        let receiver = try LokiReceiver()
        defer { receiver.stop() }
        let server = try LoopbackHTTPServer()
        defer { server.stop() }
        server.route("/export") { _ in
            var response = LoopbackResponse.text(String(repeating: "x", count: 1000))
            response.fault = .closeAfterBodyBytes(10)
            return response
        }
        let harness = LokiHarness(receiver: receiver)
        let dispatcher = HTTPEventDispatcher()
        dispatcher.subscribe(LokiObserver(logger: harness.logger))
        let client = URLSessionClient(dispatcher: dispatcher)
        // Streamed, so the 200 head reaches the caller before the body breaks.
        let result = try? await client.send(HTTPRequest(url: server.url("/export")), body: nil) { response, body in
            XCTAssertEqual(response.status.code, 200)
            return try await body.collect(upTo: 1 << 20).count
        }
        XCTAssertNil(result, "the body was cut: the call fails")
        await dispatcher.flush()
        await harness.logger.flush()

        let received = try await receiver.received()
        XCTAssertEqual(received.labelSets, [["app": "checkout", "kind": "http", "host": "127.0.0.1", "method": "GET", "status_class": "failed", "level": "error"]])
        let line = try XCTUnwrap(received.lines.first)
        XCTAssertTrue(line.contains(" status=200 outcome=failed "), line)
        XCTAssertTrue(line.contains(" error_type="), line)
    }

    func testEachRetriedAttemptIsALineOfItsOwn() async throws {
        let receiver = try LokiReceiver()
        defer { receiver.stop() }
        let harness = LokiHarness(receiver: receiver)
        let dispatcher = HTTPEventDispatcher()
        dispatcher.subscribe(LokiObserver(logger: harness.logger))
        let transport = MockTransport()
        transport.enqueue(.status(503), .status(200))
        let retry = RetryMiddleware(backoff: Backoff(initial: 0.01, maximum: 0.01, jitter: .none))
        _ = try await HTTPTransportClient(transport: transport, middlewares: [retry], dispatcher: dispatcher)
            .send(HTTPRequest(url: URL(string: "https://a.example/orders")!))
        await dispatcher.flush()
        await harness.logger.flush()
        let received = try await receiver.waitForEntries(2)
        let lines = received.lines.sorted()
        XCTAssertEqual(lines.count, 2)
        XCTAssertTrue(lines[0].contains(" status=200 outcome=succeeded ") && lines[0].contains(" attempt=2 "), lines[0])
        XCTAssertTrue(lines[1].contains(" status=503 outcome=retried ") && lines[1].contains(" attempt=1 "), lines[1])
        XCTAssertEqual(Set(received.labelSets.map { $0["level"] ?? "" }), ["info", "warning"])
    }

    func testAnAttemptRetriedAfterALostConnectionIsARetriedLineWithNoStatus() async throws {
        let receiver = try LokiReceiver()
        defer { receiver.stop() }
        let harness = LokiHarness(receiver: receiver)
        let dispatcher = HTTPEventDispatcher()
        dispatcher.subscribe(LokiObserver(logger: harness.logger))
        let transport = MockTransport()
        transport.enqueue(.failure(.transport(.connectionLost, message: "reset")), .status(200))
        let retry = RetryMiddleware(backoff: Backoff(initial: 0.01, maximum: 0.01, jitter: .none))
        _ = try await HTTPTransportClient(transport: transport, middlewares: [retry], dispatcher: dispatcher)
            .send(HTTPRequest(url: URL(string: "https://a.example/orders")!))
        await dispatcher.flush()
        await harness.logger.flush()
        let received = try await receiver.waitForEntries(2)
        let retried = try XCTUnwrap(received.lines.first { $0.contains(" attempt=1 ") })
        XCTAssertTrue(retried.contains(" status=0 outcome=retried "), retried)
        XCTAssertTrue(retried.contains(" error_type=connection_lost "), retried)
        XCTAssertEqual(Set(received.labelSets.map { $0["status_class"] ?? "" }), ["2xx", "failed"])
    }

    func testEventsBeforeTheEndAreNotLogged() async throws {
        let receiver = try LokiReceiver()
        defer { receiver.stop() }
        let harness = LokiHarness(receiver: receiver)
        let dispatcher = HTTPEventDispatcher()
        dispatcher.subscribe(LokiObserver(logger: harness.logger))
        _ = try await HTTPTransportClient(transport: MockTransport(), dispatcher: dispatcher).send(HTTPRequest(url: URL(string: "https://a.example/x")!))
        await dispatcher.flush()
        await harness.logger.flush()
        XCTAssertEqual(harness.logger.statistics.accepted, 1, "created, started and response received are not lines")
    }

    /// The events of one exchange through a mock transport, each as the dispatcher delivered
    /// it, none read by any observer yet.
    private func events(of request: HTTPRequest, policy: HTTPCorePolicy = .debug) async throws -> [HTTPEvent] {
        let dispatcher = HTTPEventDispatcher()
        let kept = Locked<[HTTPEvent]>([])
        dispatcher.subscribe { event in kept.withLock { $0.append(event) } }
        _ = try await HTTPTransportClient(transport: MockTransport(), dispatcher: dispatcher, policy: policy).send(request)
        await dispatcher.flush()
        return kept.withLock { $0 }
    }

    func testHandleQueuesTheEventAndItsLineIsMadeWithItsBatchAsThePolicyExposedIt() async throws {
        let receiver = try LokiReceiver()
        defer { receiver.stop() }
        let harness = LokiHarness(receiver: receiver) { configuration in
            // Nothing leaves before `flush()`: a batch would wait an hour to fill.
            configuration.delivery.batching = .init(maximumCount: 100, maximumDelay: 3600)
            // The logger's names are for its plain messages: the exchange's line is the policy's.
            configuration.redactor = Redactor(level: .standard, sensitiveQueryNames: ["page"])
        }
        let request = HTTPRequest(url: URL(string: "https://a.example/items?page=2&token=t")!, metadata: ["session": "s3cret"])
        let events = try await events(of: request)
        let terminal = try XCTUnwrap(events.last)
        XCTAssertEqual(terminal.name, .requestSucceeded)

        LokiObserver(logger: harness.logger).handle(terminal)
        XCTAssertFalse(terminal.requestRecord.isExposed, "handle redacted nothing of the request")
        XCTAssertEqual(terminal.responseRecord?.isExposed, false, "nor of the response")
        XCTAssertEqual([harness.logger.statistics.accepted, harness.logger.statistics.pending], [1, 1])

        await harness.logger.flush()
        XCTAssertTrue(terminal.requestRecord.isExposed, "the line was made from the event when its batch was built")
        let lines = try await receiver.received().lines
        XCTAssertEqual(lines.count, 1)
        let line = try XCTUnwrap(lines.first)
        XCTAssertTrue(line.hasPrefix(#"method=GET url="https://a.example/items?page=2&token=[REDACTED]" status=200 outcome=succeeded "#), line)
        XCTAssertTrue(line.hasSuffix(" session=[REDACTED]"), line)
        XCTAssertEqual(harness.logger.statistics.delivered, 1)
    }

    func testPlainLinesAndObservedExchangesAreShippedFromOneBuffer() async throws {
        let receiver = try LokiReceiver()
        defer { receiver.stop() }
        let harness = LokiHarness(receiver: receiver) { configuration in
            configuration.delivery.batching = .init(maximumCount: 100, maximumDelay: 3600)
        }
        let events = try await events(of: HTTPRequest(url: URL(string: "https://a.example/x")!))
        let terminal = try XCTUnwrap(events.last)
        let start = Date()
        harness.logger.log(.info, "before", date: start)
        LokiObserver(logger: harness.logger).handle(terminal)
        harness.logger.log(.info, "after", date: start.addingTimeInterval(1))
        await harness.logger.flush()

        let received = try await receiver.received()
        XCTAssertEqual(received.lines.filter { $0.hasPrefix("msg=") }, ["msg=before", "msg=after"])
        XCTAssertEqual(received.lines.filter { $0.hasPrefix("method=GET url=https://a.example/x ") }.count, 1)
        XCTAssertEqual([harness.logger.statistics.accepted, harness.logger.statistics.delivered], [3, 3])
    }

    func testWithoutMessageLinesTheObserverIsNotHandedMessageEvents() {
        let configuration = LokiConfiguration(url: URL(string: "http://127.0.0.1:3100")!, app: "checkout")
        let logger = LokiLogger(configuration: configuration, transport: MockTransport())
        XCTAssertEqual(LokiObserver(logger: logger).handledEventNames, HTTPEvent.Name.terminal.union([.requestRetried]))
        var withMessages = configuration
        withMessages.maxMessageLinesPerExchange = 5
        let messageLogger = LokiLogger(configuration: withMessages, transport: MockTransport())
        XCTAssertEqual(LokiObserver(logger: messageLogger).handledEventNames, HTTPEvent.Name.terminal.union([.requestRetried, .responseMessage]))
    }
}
