import Foundation
import HTTPCoreLoopback
import HTTPCoreTesting
import HTTPCoreURLSession
import XCTest

@testable import HTTPCore
@testable import HTTPCoreObservation
import HTTPCoreConcurrency

final class HTTPEventTests: XCTestCase {
    func testRedactionRunsWhenAnObserverReadsNotOnTheRequestPath() async throws {
        let dispatcher = HTTPEventDispatcher()
        let kept = Locked<[HTTPEvent]>([])
        dispatcher.subscribe { event in kept.withLock { $0.append(event) } }
        let body = Data(#"{"password":"hunter2"}"#.utf8)
        let client = HTTPTransportClient(transport: MockTransport(default: .status(200, body: body)), dispatcher: dispatcher, policy: .debug)
        _ = try await client.send(HTTPRequest(method: .post, url: URL(string: "https://a.example/?token=t")!, body: body))
        await dispatcher.flush()

        let events = kept.withLock { $0 }
        XCTAssertEqual(events.count, 4)
        XCTAssertTrue(events.allSatisfy { !$0.requestRecord.isExposed }, "send returned and nothing was redacted yet")
        XCTAssertEqual(events[0].request.url, "https://a.example/?token=[REDACTED]")
        XCTAssertTrue(events.allSatisfy { $0.requestRecord.isExposed }, "one redaction, shared by every event of the exchange")
        XCTAssertTrue(events.allSatisfy { $0.requestRecord === events[0].requestRecord })
    }

    func testEachFieldIsRedactedWhenFirstReadAndOnlyThat() async throws {
        let dispatcher = HTTPEventDispatcher()
        let kept = Locked<[HTTPEvent]>([])
        dispatcher.subscribe { event in kept.withLock { $0.append(event) } }
        let body = Data(#"{"password":"hunter2"}"#.utf8)
        let transport = MockTransport(default: .status(200, body: body, headers: ["Set-Cookie": "id=s3cret", "Content-Type": "application/json"]))
        let client = HTTPTransportClient(transport: transport, dispatcher: dispatcher, policy: .debug)
        let request = HTTPRequest(
            method: .post, url: URL(string: "https://a.example/?token=t")!, headers: ["Authorization": "Bearer s3cret"], body: body,
            metadata: ["route": "/", "session": "s3cret"]
        )
        _ = try await client.send(request)
        await dispatcher.flush()
        let events = kept.withLock { $0 }
        let terminal = try XCTUnwrap(events.last)
        let record = terminal.requestRecord

        XCTAssertEqual(terminal.requestURL, "https://a.example/?token=[REDACTED]")
        XCTAssertEqual(record.exposedFields, ["url"])
        XCTAssertEqual(terminal.metadata, ["route": "/", "session": "[REDACTED]"])
        XCTAssertEqual(record.exposedFields, ["url", "metadata"])
        XCTAssertEqual(terminal.requestHeaders["Authorization"], "[REDACTED]")
        XCTAssertEqual(record.exposedFields, ["url", "headers", "metadata"])
        XCTAssertEqual(terminal.responseHeaders?["Set-Cookie"], "[REDACTED]")
        XCTAssertEqual(terminal.responseRecord?.exposedFields, ["headers"])
        // The whole request reuses what was redacted and adds the rest, for every event.
        XCTAssertEqual(events[0].request.exposed.url, terminal.requestURL)
        XCTAssertEqual(record.exposedFields, ["url", "headers", "body", "metadata"])
        XCTAssertEqual(terminal.request.body.map { String(decoding: $0, as: UTF8.self) }, #"{"password":"[REDACTED]"}"#)
    }

    func testTheStatusCodeIsReadWithoutRedactingTheResponse() async throws {
        let dispatcher = HTTPEventDispatcher()
        let kept = Locked<[HTTPEvent]>([])
        dispatcher.subscribe { event in kept.withLock { $0.append(event) } }
        let client = HTTPTransportClient(transport: MockTransport(default: .status(404, body: Data("{}".utf8))), dispatcher: dispatcher)
        _ = try await client.send(HTTPRequest(url: URL(string: "https://a.example/missing")!))
        await dispatcher.flush()

        let terminal = try XCTUnwrap(kept.withLock { $0 }.last)
        XCTAssertEqual(terminal.statusCode, 404)
        XCTAssertEqual(terminal.responseRecord?.isExposed, false, "the status alone redacts nothing")
        XCTAssertEqual(terminal.response?.statusCode, 404)
        XCTAssertEqual(terminal.responseRecord?.isExposed, false, "nor does the response view's status")
        XCTAssertEqual(terminal.response?.headers, [:])
        XCTAssertEqual(terminal.responseRecord?.isExposed, true)
        XCTAssertNil(kept.withLock { $0 }.first?.statusCode, "no status before a response")
    }

    /// Every event of one exchange through `client`, once it ended.
    private func events(of request: HTTPRequest, through client: (HTTPEventDispatcher) -> any HTTPClient) async throws -> [HTTPEvent] {
        let dispatcher = HTTPEventDispatcher()
        let recorder = RecordingObserver()
        dispatcher.subscribe(recorder)
        _ = try? await client(dispatcher).send(request)
        return try await recorder.waitForTerminalEvents(count: 1)
    }

    func testTheSummaryOfARealExchangeIsReadWithoutRedactingAnything() async throws {
        let server = try LoopbackHTTPServer()
        defer { server.stop() }
        server.route("/orders") { _ in LoopbackResponse(status: 201, headers: ["Set-Cookie": "session=s3cret"], body: Data("created!".utf8)) }
        let request = HTTPRequest(
            method: .post, url: server.url("/orders?token=s3cret"), headers: ["Authorization": "Bearer s3cret"], body: Data("{\"a\":1}".utf8)
        )
        let events = try await events(of: request) { URLSessionClient(dispatcher: $0, policy: .debug) }

        XCTAssertEqual(events.map(\.name), [.requestCreated, .requestStarted, .responseReceived, .requestSucceeded])
        let terminal = events[3]
        XCTAssertEqual(terminal.method, .post)
        XCTAssertEqual(terminal.scheme, "http")
        XCTAssertEqual(terminal.host, "127.0.0.1")
        XCTAssertEqual(terminal.port, Int(server.port))
        XCTAssertEqual(terminal.statusCode, 201)
        XCTAssertEqual(terminal.requestBodyByteCount, 7)
        XCTAssertEqual(terminal.responseBodyByteCount, 8)
        XCTAssertNil(terminal.errorTypeName)
        XCTAssertNotNil(terminal.durationMilliseconds)
        XCTAssertEqual(events.map(\.statusCode), [nil, nil, 201, 201])
        XCTAssertTrue(events.allSatisfy { $0.method == .post && $0.host == "127.0.0.1" && $0.port == Int(server.port) })
        XCTAssertFalse(terminal.requestRecord.isExposed, "method, scheme, host, port and body size redact nothing")
        XCTAssertEqual(terminal.responseRecord?.isExposed, false, "status and body size redact nothing")
    }

    func testEachEventReadsTheHostOfTheURLItsRequestHasWhenAMiddlewareKeepsOrMovesIt() async throws {
        let keeps = ClosureMiddleware { request, next in try await next(request) }
        let moves = ClosureMiddleware { request, next in
            var moved = request
            moved.url = URL(string: "https://b.example/x")!
            return try await next(moved)
        }
        for (middleware, attemptHost) in [(keeps, "a.example"), (moves, "b.example")] {
            let events = try await events(of: HTTPRequest(url: URL(string: "https://a.example/x")!)) {
                HTTPTransportClient(transport: MockTransport(), middlewares: [middleware], dispatcher: $0, policy: .debug)
            }
            XCTAssertEqual(events.map(\.name), [.requestCreated, .requestStarted, .responseReceived, .requestSucceeded])
            XCTAssertEqual(events.map(\.host), ["a.example", attemptHost, attemptHost, attemptHost])
            XCTAssertEqual(events.map(\.host), events.map { URL(string: $0.request.url)?.host }, "each event's host is its own request's")
        }
    }

    func testTheHostNeverShowsTheUserinfoAndThePortDefaultsByScheme() async throws {
        let transport = MockTransport()
        let cases: [(url: String, scheme: String?, host: String?, port: Int?)] = [
            ("https://user:pa55@api.example.com/a?token=t", "https", "api.example.com", 443),
            ("HTTP://API.example.com/a", "http", "API.example.com", 80),
            ("http://api.example.com:8080/a", "http", "api.example.com", 8080),
            ("wss://stream.example.com/", "wss", "stream.example.com", 443),
            ("ftp://files.example.com/x", "ftp", "files.example.com", nil),
        ]
        for item in cases {
            let events = try await events(of: HTTPRequest(url: URL(string: item.url)!)) {
                HTTPTransportClient(transport: transport, dispatcher: $0, policy: .debug)
            }
            let terminal = try XCTUnwrap(events.last)
            XCTAssertEqual(terminal.scheme, item.scheme, item.url)
            XCTAssertEqual(terminal.host, item.host, item.url)
            XCTAssertEqual(terminal.port, item.port, item.url)
            XCTAssertFalse(terminal.requestRecord.isExposed, item.url)
        }
    }

    func testTheErrorTypeNameIsReadWithoutScrubbingTheMessage() async throws {
        let failing = MockTransport(default: .failure(.transport(.cannotConnect, message: "refused https://u:p@a.example/?token=t")))
        let events = try await events(of: HTTPRequest(method: .delete, url: URL(string: "https://a.example/x")!)) {
            HTTPTransportClient(transport: failing, dispatcher: $0, policy: .debug)
        }
        let terminal = try XCTUnwrap(events.last)
        XCTAssertEqual(terminal.name, .requestFailed)
        XCTAssertEqual(terminal.errorTypeName, "cannot_connect")
        XCTAssertEqual(terminal.method, .delete)
        XCTAssertNil(terminal.statusCode)
        XCTAssertNil(terminal.responseBodyByteCount)
        XCTAssertEqual(terminal.errorRecord?.isExposed, false, "the type name scrubs nothing")
        XCTAssertFalse(terminal.requestRecord.isExposed)
        XCTAssertEqual(terminal.error?.typeName, "cannot_connect")
        XCTAssertEqual(terminal.errorRecord?.isExposed, true)
        XCTAssertNil(events.first?.errorTypeName, "no error before the end")
    }

    // MARK: Attempt times

    func testEveryEventAfterCreatedCarriesItsAttemptsTimesAndTheEndAgreesWithTheDuration() async throws {
        let transport = MockTransport(default: .status(200, after: 0.02))
        let events = try await events(of: HTTPRequest(url: URL(string: "https://a.example/x")!)) {
            HTTPTransportClient(transport: transport, dispatcher: $0)
        }
        XCTAssertEqual(events.map(\.name), [.requestCreated, .requestStarted, .responseReceived, .requestSucceeded])
        let (created, started, received, succeeded) = (events[0], events[1], events[2], events[3])
        XCTAssertNil(created.attemptStartedAt)
        XCTAssertNil(created.attemptEndedAt)
        XCTAssertEqual(started.attemptStartedAt, started.startedAt)
        XCTAssertNil(started.attemptEndedAt, "the attempt has not ended yet")
        XCTAssertNil(started.attemptDurationMilliseconds)
        let start = try XCTUnwrap(started.attemptStartedAt)
        let duration = try XCTUnwrap(received.attemptDurationMilliseconds)
        XCTAssertGreaterThanOrEqual(duration, 20, "the transport's 20 ms delay is inside the attempt")
        for event in [received, succeeded] {
            XCTAssertEqual(event.attemptStartedAt, start)
            XCTAssertEqual(event.attemptDurationMilliseconds, duration)
            XCTAssertEqual(event.attemptEndedAt, start.addingTimeInterval(duration / 1000), "wall-clock end = start + monotonic duration")
        }
        XCTAssertEqual(succeeded.startedAt, start, "without middlewares the exchange is its attempt")
    }

    func testRetriedAndTerminalEventsCarryTheirOwnAttemptsTimesThroughMiddlewares() async throws {
        let transport = MockTransport()
        transport.enqueue(.status(503), .failure(.transport(.connectionLost, message: "reset")), .status(200))
        let untilSuccess = ClosureMiddleware { request, next in
            while true {
                if let response = try? await next(request), response.statusCode == 200 { return response }
            }
        }
        let events = try await events(of: HTTPRequest(url: URL(string: "https://a.example/x")!)) {
            HTTPTransportClient(transport: transport, middlewares: [untilSuccess], dispatcher: $0)
        }
        let starts = events.filter { $0.name == .requestStarted }.map(\.attemptStartedAt)
        XCTAssertEqual(starts.count, 3)
        let ends = events.filter { $0.name != .requestCreated && $0.name != .requestStarted }
        XCTAssertEqual(ends.map(\.name), [.responseReceived, .requestRetried, .requestRetried, .responseReceived, .requestSucceeded])
        XCTAssertEqual(ends.map(\.attemptStartedAt), [starts[0], starts[0], starts[1], starts[2], starts[2]])
        for retried in ends where retried.name == .requestRetried {
            XCTAssertEqual(retried.attemptStartedAt, retried.startedAt)
            XCTAssertEqual(retried.attemptEndedAt, retried.endedAt)
            XCTAssertEqual(retried.attemptDurationMilliseconds, retried.durationMilliseconds)
        }
        let succeeded = ends[4]
        XCTAssertEqual(succeeded.attemptEndedAt, ends[3].attemptEndedAt, "the terminal event carries the last attempt's end")
        XCTAssertNotEqual(succeeded.startedAt, succeeded.attemptStartedAt, "and the exchange's own start")
        XCTAssertLessThanOrEqual(try XCTUnwrap(succeeded.attemptDurationMilliseconds), try XCTUnwrap(succeeded.durationMilliseconds))
    }

    func testATerminalEventWithoutAnAttemptCarriesNoAttemptTimes() async throws {
        let answers = ClosureMiddleware { request, _ in HTTPResponse(requestID: request.id, statusCode: 204, url: request.url) }
        let events = try await events(of: HTTPRequest(url: URL(string: "https://a.example/x")!)) {
            HTTPTransportClient(transport: MockTransport(), middlewares: [answers], dispatcher: $0)
        }
        XCTAssertEqual(events.map(\.name), [.requestCreated, .requestSucceeded])
        XCTAssertEqual(events[1].attempt, 0)
        XCTAssertNil(events[1].attemptStartedAt)
        XCTAssertNil(events[1].attemptEndedAt)
        XCTAssertNil(events[1].attemptDurationMilliseconds)
        XCTAssertNotNil(events[1].durationMilliseconds)
    }

    /// Built-in names compare by step; a name made from the same dotted text is the same name,
    /// in sets too, and any other text is another name.
    func testNamesMadeFromTheirTextAreTheBuiltInOnes() {
        XCTAssertEqual(HTTPEvent.Name("http.request.failed"), .requestFailed)
        XCTAssertTrue(HTTPEvent.Name("http.request.cancelled").isTerminal)
        XCTAssertTrue(HTTPEvent.Name.terminal.contains(HTTPEvent.Name("http.request.succeeded")))
        XCTAssertNotEqual(HTTPEvent.Name("http.request.created"), .requestStarted)
        XCTAssertEqual(HTTPEvent.Name("app.cache.hit"), HTTPEvent.Name("app.cache.hit"))
        XCTAssertNotEqual(HTTPEvent.Name("app.cache.hit"), HTTPEvent.Name("app.cache.miss"))
        XCTAssertFalse(HTTPEvent.Name("app.cache.hit").isTerminal)
        XCTAssertEqual(Set([HTTPEvent.Name("http.response.received"), .responseReceived]).count, 1)
    }

    func testAStreamsLaterMessagesCountInAQueueOnlyWhatTheyAdd() {
        let request = HTTPRequest(method: .post, url: URL(string: "https://api.example.com/v1/chat")!, body: Data(count: 100 * 1024))
        let response = HTTPResponse(requestID: request.id, statusCode: 200, headers: [:], body: Data(), url: request.url)
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        let first = HTTPEvent.responseMessage(#"{"t":"Hel"}"#, index: 0, of: response, to: request, startedAt: start)
        let second = HTTPEvent.responseMessage(#"{"t":"lo"}"#, index: 1, of: response, to: request, startedAt: start)
        let end = HTTPEvent.requestSucceeded(response, to: request, startedAt: start, endedAt: start + 1)
        XCTAssertGreaterThan(first.queuedByteCount, 100 * 1024, "the first message counts the request it shares")
        XCTAssertEqual(first.queuedByteCount, first.retainedByteCount)
        XCTAssertEqual(second.queuedByteCount, 10 + 2 * 64, "its data and its two allocations")
        XCTAssertEqual(end.queuedByteCount, end.retainedByteCount)
    }
}
