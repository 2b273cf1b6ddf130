import Foundation
@testable import HTTPCore
@testable import HTTPCoreObservation
import HTTPCoreTesting
import HTTPCoreURLSession
import XCTest
import HTTPCoreConcurrency
import HTTPCoreLoopback

/// `RetryMiddleware` through `URLSessionClient` against a loopback server.
final class RetryMiddlewareTests: XCTestCase {
    private var server: LoopbackHTTPServer!
    private var dispatcher: HTTPEventDispatcher!
    private var recorder: RecordingObserver!
    private let quick = Backoff(initial: 0.01, maximum: 0.05, jitter: .none)

    override func setUpWithError() throws {
        server = try LoopbackHTTPServer()
        dispatcher = HTTPEventDispatcher()
        recorder = RecordingObserver()
        dispatcher.subscribe(recorder)
    }

    override func tearDown() {
        server.stop()
    }

    private func client(_ retry: RetryMiddleware) -> URLSessionClient {
        URLSessionClient(middlewares: [retry], dispatcher: dispatcher, policy: .debug)
    }

    private static func busy(_ status: Int = 503, retryAfter: String? = nil) -> LoopbackResponse {
        var response = LoopbackResponse.text("busy", status: status)
        if let retryAfter { response.headers.add(name: "Retry-After", value: retryAfter) }
        return response
    }

    func test503Then200IsRetriedAndEveryAttemptIsReported() async throws {
        server.route("/flaky", answering: [Self.busy(), Self.busy(), .text("ok")])
        let request = HTTPRequest(url: server.url("/flaky"))
        let response = try await client(RetryMiddleware(backoff: quick)).send(request)

        XCTAssertEqual(response.statusCode, 200)
        XCTAssertEqual(String(decoding: response.body, as: UTF8.self), "ok")
        XCTAssertEqual(server.requests.count, 3)
        let events = try await recorder.waitForTerminalEvents(count: 1)
        XCTAssertEqual(events.map(\.name), [
            .requestCreated,
            .requestStarted, .responseReceived, .requestRetried,
            .requestStarted, .responseReceived, .requestRetried,
            .requestStarted, .responseReceived, .requestSucceeded,
        ])
        XCTAssertEqual(events.filter { $0.name == .requestRetried }.map(\.response?.statusCode), [503, 503])
        XCTAssertEqual(events.filter { $0.name == .requestRetried }.map(\.attempt), [1, 2])
        XCTAssertEqual(events.last?.attempt, 3)
        XCTAssertEqual(Set(events.map(\.requestID)), [request.id])
    }

    func test429WaitsAsLongAsRetryAfterSays() async throws {
        server.route("/limited", answering: [Self.busy(429, retryAfter: "1"), .text("ok")])
        let started = Date()
        let response = try await client(RetryMiddleware(backoff: quick)).send(HTTPRequest(url: server.url("/limited")))
        XCTAssertEqual(response.statusCode, 200)
        XCTAssertGreaterThanOrEqual(Date().timeIntervalSince(started), 1, "waited the second the server asked for")
        XCTAssertEqual(server.requests.count, 2)
        let events = try await recorder.waitForTerminalEvents(count: 1)
        let terminal = try XCTUnwrap(events.last)
        XCTAssertGreaterThanOrEqual(try XCTUnwrap(terminal.durationMilliseconds), 1000, "the whole exchange, the wait included")
        let retried = try XCTUnwrap(events.first { $0.name == .requestRetried })
        XCTAssertLessThan(try XCTUnwrap(retried.durationMilliseconds), try XCTUnwrap(terminal.durationMilliseconds) - 900)
    }

    func testRetryAfterAsAnHTTPDateIsHonoured() async throws {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        let inTwoSeconds = formatter.string(from: Date().addingTimeInterval(2))
        server.route("/limited", answering: [Self.busy(503, retryAfter: inTwoSeconds), .text("ok")])
        let started = Date()
        let response = try await client(RetryMiddleware(backoff: quick)).send(HTTPRequest(url: server.url("/limited")))
        XCTAssertEqual(response.statusCode, 200)
        XCTAssertGreaterThanOrEqual(Date().timeIntervalSince(started), 0.9, "waited until the date, to the whole second")
    }

    func testARetryAfterBeyondTheCapReturnsTheAnswerInsteadOfWaiting() async throws {
        // Honouring the 2 s asked would end in the 200; the cap of 0.5 s gives the 429 back.
        server.route("/limited", answering: [Self.busy(429, retryAfter: "2"), .text("ok")])
        let response = try await client(RetryMiddleware(backoff: quick, maximumRetryAfter: 0.5))
            .send(HTTPRequest(url: server.url("/limited")))
        XCTAssertEqual(response.statusCode, 429)
        XCTAssertEqual(server.requests.count, 1)
    }

    func testABackoffLongerThanTheDeadlineReturnsTheLastAnswerAtOnce() async throws {
        server.route("/flaky", answering: [Self.busy(), Self.busy(), .text("ok")])
        let client = client(RetryMiddleware(backoff: Backoff(initial: 60, maximum: 60, jitter: .none)))
        // Waiting 60 s would pass the 30 s deadline and end in a timeout; the 503 proves no wait.
        let response = try await client.send(HTTPRequest(url: server.url("/flaky"), timeout: 30))
        XCTAssertEqual(response.statusCode, 503)
        XCTAssertEqual(server.requests.count, 1)
        let events = try await recorder.waitForTerminalEvents(count: 1)
        XCTAssertEqual(events.last?.name, .requestSucceeded)
        XCTAssertEqual(events.last?.attempt, 1)
        // The control: a backoff of 1 s, with room for it before the same deadline, retries.
        let shorter = self.client(RetryMiddleware(backoff: Backoff(initial: 1, maximum: 1, jitter: .none)))
        let roomy = try await shorter.send(HTTPRequest(url: server.url("/flaky"), timeout: 30))
        XCTAssertEqual(roomy.statusCode, 200)
        XCTAssertEqual(server.requests.count, 3)
    }

    func testCancellingDuringTheBackoffEndsTheRequestAtOnce() async throws {
        server.route("/flaky", answering: [Self.busy()])
        let client = client(RetryMiddleware(backoff: Backoff(initial: 60, maximum: 60, jitter: .none)))
        let url = server.url("/flaky")
        let task = Task { try await client.send(HTTPRequest(url: url)) }
        _ = try await recorder.waitForEvents(count: 3)  // created, started, received: now in the 60 s wait
        task.cancel()
        let events = try await recorder.waitForTerminalEvents(count: 1)
        XCTAssertEqual(events.last?.name, .requestCancelled)
        XCTAssertEqual(events.last?.attempt, 1)
        let result = await task.result
        guard case .failure(HTTPError.cancelled) = result else { return XCTFail("expected cancelled, got \(result)") }
        XCTAssertEqual(server.requests.count, 1)
    }

    func testARequestCancelledBeforeTheWaitEndsCancelledNotWithTheOutcomeItWouldRetry() async throws {
        // The attempt cancels its own task, then answers 503: the 60 s wait that would follow
        // is never begun, and the 503 it would have replaced is not returned either.
        let retry = RetryMiddleware(maximumAttempts: 2, backoff: Backoff(initial: 60, maximum: 60, jitter: .none))
        let sends = Locked(0)
        let stopped = Locked(false)
        let url = server.url("/busy")
        let result = await Task {
            try await retry.intercept(HTTPRequest(url: url), body: nil, context: HTTPMiddlewareContext(deadline: .now() + 120)) { request, _ in
                sends.withLock { $0 += 1 }
                withUnsafeCurrentTask { $0?.cancel() }
                let body = HTTPBody(length: .unknown, iterationBehavior: .single, onStop: { stopped.withLock { $0 = true } }) {
                    AnyChunks(next: { nil })
                }
                return (HTTPResponse.Head(requestID: request.id, statusCode: 503, url: url), body)
            }
        }.result
        guard case .failure(let error as HTTPError) = result else { return XCTFail("expected cancelled, got \(result)") }
        XCTAssertEqual(error, .cancelled)
        XCTAssertEqual(sends.withLock { $0 }, 1)
        XCTAssertTrue(stopped.withLock { $0 }, "the replaced response's body is stopped")
    }

    func testPostIsRetriedOnlyWhenMarkedIdempotent() async throws {
        let created = LoopbackResponse.text("created", status: 201)
        server.route("/orders", answering: [Self.busy(), Self.busy(), created, Self.busy(), created])
        let client = client(RetryMiddleware(backoff: quick))
        let plain = try await client.send(HTTPRequest(method: .post, url: server.url("/orders"), body: Data("{}".utf8)))
        XCTAssertEqual(plain.statusCode, 503, "a POST is not repeated by default")

        var marked = HTTPRequest(method: .post, url: server.url("/orders"), body: Data("{}".utf8))
        marked.isIdempotent = true
        let markedResponse = try await client.send(marked)
        XCTAssertEqual(markedResponse.statusCode, 201)

        let keyed = HTTPRequest(method: .post, url: server.url("/orders"), headers: ["Idempotency-Key": "k1"], body: Data("{}".utf8))
        let keyedResponse = try await client.send(keyed)
        XCTAssertEqual(keyedResponse.statusCode, 201, "an Idempotency-Key makes a POST safe to repeat")
        XCTAssertEqual(server.requests.count, 5)
    }

    func testAttemptsAreBoundedByMaximumAttempts() async throws {
        server.route("/down", answering: [Self.busy(502)])
        let response = try await client(RetryMiddleware(maximumAttempts: 4, backoff: quick)).send(HTTPRequest(url: server.url("/down")))
        XCTAssertEqual(response.statusCode, 502)
        XCTAssertEqual(server.requests.count, 4)
        let events = try await recorder.waitForTerminalEvents(count: 1)
        XCTAssertEqual(events.filter { $0.name == .requestRetried }.count, 3)
        XCTAssertEqual(events.last?.attempt, 4)
    }

    func testASlowAttemptIsCutByTheAttemptTimeoutAndRetried() async throws {
        var slow = LoopbackResponse.text("late")
        slow.delay = 10
        server.route("/slow", answering: [slow, .text("ok")])
        // Two attempts: the second is the last, so no attempt timeout cuts it however slowly it
        // connects; without the first's, the call would end at the caller's 8 s as a timeout.
        let retry = RetryMiddleware(maximumAttempts: 2, backoff: quick, attemptTimeout: 0.3)
        let response = try await client(retry).send(HTTPRequest(url: server.url("/slow"), timeout: 8))
        XCTAssertEqual(String(decoding: response.body, as: UTF8.self), "ok")
        let events = try await recorder.waitForTerminalEvents(count: 1)
        XCTAssertEqual(events.first { $0.name == .requestRetried }?.error, .timeout)
        XCTAssertEqual(events.last?.attempt, 2)
    }

    func testTheAttemptTimeoutBoundsOnlyAttemptsThatARetryCanFollow() async throws {
        let retry = RetryMiddleware(maximumAttempts: 3, backoff: quick, attemptTimeout: 0.3)
        let url = URL(string: "https://api.example.com/orders")!
        func timeouts(of request: HTTPRequest, _ retry: RetryMiddleware = retry) async throws -> [TimeInterval?] {
            let transport = MockTransport(default: .status(503))
            let client = HTTPTransportClient(transport: transport, middlewares: [retry], dispatcher: dispatcher)
            _ = try await client.send(request)
            // An attempt is handed what remains of the caller's 5 s: 4.97 s, say.
            return transport.requests.map { $0.timeout.map { $0 > 1 ? $0.rounded(.up) : $0 } }
        }
        let get = try await timeouts(of: HTTPRequest(url: url, timeout: 5))
        XCTAssertEqual(get, [0.3, 0.3, 5], "the last attempt keeps the caller's deadline")
        let post = try await timeouts(of: HTTPRequest(method: .post, url: url, body: Data("{}".utf8), timeout: 5))
        XCTAssertEqual(post, [5], "a POST is never retried after a timeout, so it is never cut")
        let postWithoutDeadline = try await timeouts(of: HTTPRequest(method: .post, url: url, body: Data("{}".utf8)))
        XCTAssertEqual(postWithoutDeadline, [nil])
        var markedPost = HTTPRequest(method: .post, url: url, body: Data("{}".utf8), timeout: 5)
        markedPost.isIdempotent = true
        let marked = try await timeouts(of: markedPost)
        XCTAssertEqual(marked, [0.3, 0.3, 5])
        let single = try await timeouts(of: HTTPRequest(url: url, timeout: 5), RetryMiddleware(maximumAttempts: 1, attemptTimeout: 0.3))
        XCTAssertEqual(single, [5], "one allowed attempt is the last one")
    }

    func testAPostSlowerThanTheAttemptTimeoutRunsUntilTheCallersDeadline() async throws {
        let transport = MockTransport()
        transport.enqueue(.status(201, after: 0.5))
        let retry = RetryMiddleware(backoff: quick, attemptTimeout: 0.05)
        let client = HTTPTransportClient(transport: transport, middlewares: [retry], dispatcher: dispatcher)
        let response = try await client.send(HTTPRequest(method: .post, url: URL(string: "https://api.example.com/orders")!, timeout: 30))
        XCTAssertEqual(response.statusCode, 201)
        XCTAssertEqual(transport.requests.count, 1)
    }

    func testTheLastAttemptRunsUntilTheCallersDeadline() async throws {
        let transport = MockTransport()
        // The first two answer at once, well within their second even on a loaded machine; the
        // last answers after twice that.
        transport.enqueue(.status(503), .status(503), .status(200, after: 2))
        let retry = RetryMiddleware(maximumAttempts: 3, backoff: quick, attemptTimeout: 1)
        let client = HTTPTransportClient(transport: transport, middlewares: [retry], dispatcher: dispatcher)
        let response = try await client.send(HTTPRequest(url: URL(string: "https://api.example.com/items/1")!, timeout: 30))
        XCTAssertEqual(response.statusCode, 200)
        XCTAssertEqual(transport.requests.count, 3)
        let events = try await recorder.waitForTerminalEvents(count: 1)
        XCTAssertEqual(events.last?.name, .requestSucceeded)
        XCTAssertEqual(events.last?.attempt, 3)
    }

    func testTheDeadlineOfTheWholeRequestIsNotRetried() async throws {
        var slow = LoopbackResponse.text("late")
        slow.delay = 10
        server.route("/slow", answering: [slow])
        do {
            _ = try await client(RetryMiddleware(backoff: quick)).send(HTTPRequest(url: server.url("/slow"), timeout: 0.3))
            XCTFail("expected a timeout")
        } catch let error as HTTPError {
            XCTAssertEqual(error, .timeout)
        }
        XCTAssertEqual(server.requests.count, 1)
        let events = try await recorder.waitForTerminalEvents(count: 1)
        XCTAssertEqual(events.last?.name, .requestFailed)
        XCTAssertEqual(events.last?.error, .timeout)

        // The rule behind it: a timeout is retried while the deadline holds, never after.
        let retry = RetryMiddleware(backoff: quick)
        let get = HTTPRequest(url: server.url("/slow"))
        let open = HTTPMiddlewareContext(deadline: .now() + 60)
        let passed = HTTPMiddlewareContext(deadline: .now() - 0.001)
        XCTAssertNotNil(retry.wait(beforeRetry: 1, after: .failure(.timeout), of: get, open))
        XCTAssertNil(retry.wait(beforeRetry: 1, after: .failure(.timeout), of: get, passed))
    }

    func testAConnectionErrorIsRetried() async throws {
        var reset = LoopbackResponse()
        reset.fault = .reset
        server.route("/reset", answering: [reset, .text("ok")])
        let response = try await client(RetryMiddleware(backoff: quick)).send(HTTPRequest(url: server.url("/reset")))
        XCTAssertEqual(response.statusCode, 200)
        let events = try await recorder.waitForTerminalEvents(count: 1)
        guard events.first(where: { $0.name == .requestRetried })?.error?.code == .connectionLost else {
            return XCTFail("\(events.map(\.name))")
        }
    }

    func testAServerThatClosesWithoutAnsweringGetsAGetRetriedButNotAPost() async throws {
        var closes = LoopbackResponse()
        closes.fault = .raw(Data())  // reads the request, then closes without writing a byte
        server.route("/orders", answering: [closes, .text("created", status: 201)])
        server.route("/items", answering: [closes, .text("ok")])
        let client = client(RetryMiddleware(backoff: quick))
        // The POST goes first, on a fresh connection: curl re-sends a request whose reused
        // connection closed without an answer, and cannot re-send a body (see the WritingAMiddleware article).
        do {
            _ = try await client.send(HTTPRequest(method: .post, url: server.url("/orders"), body: Data("{}".utf8), timeout: 10))
            XCTFail("a POST the server may have processed must not be repeated")
        } catch let error as HTTPError {
            XCTAssertEqual(error.code, .connectionLost)
        }
        let get = try await client.send(HTTPRequest(url: server.url("/items"), timeout: 10))
        XCTAssertEqual(String(decoding: get.body, as: UTF8.self), "ok")
        XCTAssertEqual(server.requests.map { "\($0.method) \($0.path)" }, ["POST /orders", "GET /items", "GET /items"])
        let events = try await recorder.waitForTerminalEvents(count: 2)
        guard events.first(where: { $0.name == .requestRetried })?.error?.code == .connectionLost else {
            return XCTFail("\(events.map(\.name))")
        }
    }

    func testARequestThatNeverLeftIsRetriedWhateverItsMethodWhenAsked() async throws {
        let refused = MockTransport.Reply.failure(.transport(.cannotConnect, message: "refused"))
        let transport = MockTransport()
        transport.enqueue(refused, refused, .status(201))
        transport.enqueue(.failure(.transport(.connectionLost, message: "reset")), .status(201))
        let post = { HTTPRequest(method: .post, url: URL(string: "https://api.example.com/orders")!, body: Data("{}".utf8)) }
        let byDefault = HTTPTransportClient(transport: transport, middlewares: [RetryMiddleware(backoff: quick)], dispatcher: dispatcher)
        do {
            _ = try await byDefault.send(post())
            XCTFail("a POST is not retried by default, even when refused")
        } catch let error as HTTPError {
            XCTAssertEqual(error, .transport(.cannotConnect, message: "refused"))
        }
        let retry = RetryMiddleware(backoff: quick, retriesUnsentRequests: true)
        let client = HTTPTransportClient(transport: transport, middlewares: [retry], dispatcher: dispatcher)
        let refusedThenCreated = try await client.send(post())
        XCTAssertEqual(refusedThenCreated.statusCode, 201, "refused: nothing was sent, so it is retried")
        do {
            _ = try await client.send(post())
            XCTFail("a POST whose connection was lost must not be repeated")
        } catch let error as HTTPError {
            XCTAssertEqual(error, .transport(.connectionLost, message: "reset"))
        }
        XCTAssertEqual(transport.requests.count, 4)
    }

    func testWhichStatusesAndMethodsAreRetriedByDefault() async throws {
        let none = Backoff(initial: 0, maximum: 0, jitter: .none)
        let url = URL(string: "https://api.example.com/items/1")!
        func attempts(_ method: HTTPMethod, _ status: Int) async throws -> Int {
            let transport = MockTransport()
            transport.enqueue(.status(status), .status(200))
            let client = HTTPTransportClient(transport: transport, middlewares: [RetryMiddleware(backoff: none)], dispatcher: dispatcher)
            _ = try await client.send(HTTPRequest(method: method, url: url))
            return transport.requests.count
        }
        for status in [408, 429, 502, 503, 504] {
            let count = try await attempts(.get, status)
            XCTAssertEqual(count, 2, "\(status) is retried")
        }
        for status in [400, 401, 404, 500, 501] {
            let count = try await attempts(.get, status)
            XCTAssertEqual(count, 1, "\(status) is final")
        }
        for method in [HTTPMethod.get, .head, .options, .put, .delete, .trace] {
            let count = try await attempts(method, 503)
            XCTAssertEqual(count, 2, "\(method) is idempotent")
        }
        for method in [HTTPMethod.post, .patch, HTTPMethod("PURGE")!] {
            let count = try await attempts(method, 503)
            XCTAssertEqual(count, 1, "\(method) is not")
        }
    }

    func testAnExplicitNoForbidsEveryRetry() async throws {
        let transport = MockTransport()
        transport.enqueue(.failure(.transport(.cannotConnect, message: "refused")), .status(200))
        let retry = RetryMiddleware(backoff: quick, retriesUnsentRequests: true)
        let client = HTTPTransportClient(transport: transport, middlewares: [retry], dispatcher: dispatcher)
        var put = HTTPRequest(method: .put, url: URL(string: "https://api.example.com/doc")!, headers: ["Idempotency-Key": "k"])
        put.isIdempotent = false
        do {
            _ = try await client.send(put)
            XCTFail("a request marked not idempotent must not be repeated")
        } catch let error as HTTPError {
            XCTAssertEqual(error, .transport(.cannotConnect, message: "refused"))
        }
        XCTAssertEqual(transport.requests.count, 1)
    }
}
