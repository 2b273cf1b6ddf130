import Foundation
@testable import HTTPCore
@testable import HTTPCoreObservation
import HTTPCoreTesting
import XCTest
import HTTPCoreConcurrency

/// The middleware chain of `HTTPTransportClient`: order, what events show of each attempt,
/// and how deadlines and cancellation reach middlewares.
final class HTTPTransportClientMiddlewareTests: XCTestCase {
    private let url = URL(string: "https://api.example.com/users/42")!
    private var dispatcher: HTTPEventDispatcher!
    private var recorder: RecordingObserver!

    override func setUp() {
        dispatcher = HTTPEventDispatcher()
        recorder = RecordingObserver()
        dispatcher.subscribe(recorder)
    }

    private func client(_ transport: MockTransport, _ middlewares: [any HTTPMiddleware]) -> HTTPTransportClient<MockTransport> {
        HTTPTransportClient(transport: transport, middlewares: middlewares, dispatcher: dispatcher, policy: .debug)
    }

    func testTheFirstMiddlewareSeesTheRequestFirstAndTheResponseLast() async throws {
        let trail = Locked<[String]>([])
        let middlewares = ["a", "b", "c"].map { name in
            ClosureMiddleware { request, next in
                trail.withLock { $0.append("\(name) in") }
                var request = request
                request.headers.add(name: "X-Order", value: name)
                let response = try await next(request)
                trail.withLock { $0.append("\(name) out") }
                return response
            }
        }
        let transport = MockTransport()
        _ = try await client(transport, middlewares).send(HTTPRequest(url: url))
        XCTAssertEqual(trail.withLock { $0 }, ["a in", "b in", "c in", "c out", "b out", "a out"])
        XCTAssertEqual(transport.requests.first?.headers.values(for: "X-Order"), ["a", "b", "c"])
    }

    func testCreatedShowsTheCallersRequestAndStartedWhatWentOutRedacted() async throws {
        let addsHeaders = ClosureMiddleware { request, next in
            var request = request
            request.headers.set(name: "Authorization", value: "Bearer s3cret")
            request.headers.set(name: "X-Client", value: "ios")
            return try await next(request)
        }
        let transport = MockTransport()
        _ = try await client(transport, [addsHeaders]).send(HTTPRequest(url: url, headers: ["Accept": "application/json"]))

        XCTAssertEqual(transport.requests.first?.headers["Authorization"], "Bearer s3cret", "the transport gets the real value")
        let events = try await recorder.waitForTerminalEvents(count: 1)
        XCTAssertEqual(events.map(\.name), [.requestCreated, .requestStarted, .responseReceived, .requestSucceeded])
        XCTAssertEqual(events[0].request.headers, ["Accept": "application/json"])
        let sent: HTTPHeaders = ["Accept": "application/json", "Authorization": Redactor.mask, "X-Client": "ios"]
        XCTAssertEqual(events[1].request.headers, sent)
        XCTAssertEqual(events[3].request.headers, sent)
    }

    func testEachAttemptIsReportedAndTheRequestEndsOnce() async throws {
        let transport = MockTransport()
        transport.enqueue(.status(503), .failure(.transport(.connectionLost, message: "reset")), .status(200))
        let untilSuccess = ClosureMiddleware { request, next in
            while true {
                if let response = try? await next(request), response.statusCode == 200 { return response }
            }
        }
        let request = HTTPRequest(url: url)
        let response = try await client(transport, [untilSuccess]).send(request)
        XCTAssertEqual(response.statusCode, 200)

        let events = try await recorder.waitForTerminalEvents(count: 1)
        XCTAssertEqual(events.map(\.name), [
            .requestCreated,
            .requestStarted, .responseReceived, .requestRetried,
            .requestStarted, .requestRetried,
            .requestStarted, .responseReceived, .requestSucceeded,
        ])
        XCTAssertEqual(events.map(\.attempt), [0, 1, 1, 1, 2, 2, 3, 3, 3])
        XCTAssertEqual(Set(events.map(\.requestID)), [request.id])
        let retried = events.filter { $0.name == .requestRetried }
        XCTAssertEqual(retried[0].response?.statusCode, 503)
        XCTAssertNil(retried[0].error)
        XCTAssertEqual(retried[1].error, .transport(.connectionLost, message: "reset"))
        XCTAssertNil(retried[1].response)
        XCTAssertNotNil(retried[0].durationMilliseconds)
        XCTAssertEqual(events.last?.response?.statusCode, 200)
        XCTAssertEqual(events.filter(\.name.isTerminal).count, 1)
    }

    func testAMiddlewareAfterTheRetriesSeesEachAttemptsResendCountOneBeforeThemSeesZero() async throws {
        let transport = MockTransport()
        transport.enqueue(.status(503), .status(503), .status(200))
        let outer = AttemptsStartedMiddleware()
        let inner = AttemptsStartedMiddleware()
        let retry = RetryMiddleware(maximumAttempts: 3, backoff: Backoff(initial: 0, maximum: 0))
        let response = try await client(transport, [outer, retry, inner]).send(HTTPRequest(url: url))
        XCTAssertEqual(response.statusCode, 200)
        XCTAssertEqual(outer.seen, [0])
        XCTAssertEqual(inner.seen, [0, 1, 2])
        XCTAssertEqual(HTTPMiddlewareContext(attemptsStarted: 4).attemptsStarted, 4, "a context made by hand answers what it was given")
        XCTAssertEqual(HTTPMiddlewareContext().attemptsStarted, 0)
    }

    /// Every middleware is handed the client's policy's redactor; a context made by hand has
    /// the one it was given, else the default policy's.
    func testAMiddlewareRedactsWithTheClientsPolicy() async throws {
        let reader = RedactedURLMiddleware()
        let policy = HTTPCorePolicy(redactor: Redactor(sensitiveQueryNames: ["customer"]))
        let client = HTTPTransportClient(transport: MockTransport(), middlewares: [reader], dispatcher: HTTPEventDispatcher(), policy: policy)
        _ = try await client.send(HTTPRequest(url: URL(string: "https://a.example/orders?customer=4711&token=t")!))
        XCTAssertEqual(reader.seen.withLock { $0 }, ["https://a.example/orders?customer=[REDACTED]&token=[REDACTED]"])

        let orders = URL(string: "https://a.example/orders?customer=4711&token=t")!
        XCTAssertEqual(HTTPMiddlewareContext().redactor.redactedURL(orders), "https://a.example/orders?customer=4711&token=[REDACTED]")
        XCTAssertEqual(
            HTTPMiddlewareContext(redactor: Redactor(sensitiveQueryNames: ["customer"])).redactor.redactedURL(orders),
            "https://a.example/orders?customer=[REDACTED]&token=[REDACTED]"
        )
    }

    func testMetadataOfTheCallerAndOfMiddlewaresReachesEventsRedacted() async throws {
        let tags = ClosureMiddleware { request, next in
            var request = request
            request.metadata["feature"] = "profile"
            request.metadata["access_token"] = "t0k"
            return try await next(request)
        }
        _ = try await client(MockTransport(), [tags]).send(HTTPRequest(url: url, metadata: ["route": "/users/{id}"]))
        let events = try await recorder.waitForTerminalEvents(count: 1)
        XCTAssertEqual(events[0].metadata, ["route": "/users/{id}"])
        let sent = ["route": "/users/{id}", "feature": "profile", "access_token": Redactor.mask]
        XCTAssertEqual(events[1].metadata, sent)
        XCTAssertEqual(events.last?.metadata, sent)
    }

    func testTheOutcomeShowsTheResponseTheCallerGets() async throws {
        let rewrites = ClosureMiddleware { request, next in
            let response = try await next(request)
            return HTTPResponse(requestID: response.requestID, statusCode: 299, body: Data("rewritten".utf8), url: response.url)
        }
        let transport = MockTransport(default: .status(200, body: Data(String(repeating: "x", count: 100).utf8)))
        _ = try await client(transport, [rewrites]).send(HTTPRequest(url: url))
        let events = try await recorder.waitForTerminalEvents(count: 1)
        XCTAssertEqual(events.first { $0.name == .responseReceived }?.response?.statusCode, 200, "what the transport gave")
        XCTAssertEqual(events.last?.response?.statusCode, 299, "what the caller got")
        XCTAssertEqual(events.last?.response?.body, Data("rewritten".utf8))
    }

    func testAResponsePassedOnUnchangedIsRedactedOnceForAllItsEvents() async throws {
        let passes = ClosureMiddleware { request, next in try await next(request) }
        let transport = MockTransport(default: .status(200, body: Data(String(repeating: "x", count: 100).utf8)))
        _ = try await client(transport, [passes]).send(HTTPRequest(url: url))
        let events = try await recorder.waitForTerminalEvents(count: 1)
        let received = try XCTUnwrap(events.first { $0.name == .responseReceived }?.responseRecord)
        XCTAssertTrue(events.last?.responseRecord === received, "the terminal event shares the received event's record")
    }

    func testAMiddlewareThatAnswersItselfMakesNoAttempt() async throws {
        let cache = ClosureMiddleware { request, _ in
            HTTPResponse(requestID: request.id, statusCode: 200, body: Data("cached".utf8), url: request.url)
        }
        let transport = MockTransport()
        let response = try await client(transport, [cache]).send(HTTPRequest(url: url))
        XCTAssertEqual(response.body, Data("cached".utf8))
        XCTAssertTrue(transport.requests.isEmpty)
        let events = try await recorder.waitForTerminalEvents(count: 1)
        XCTAssertEqual(events.map(\.name), [.requestCreated, .requestSucceeded])
        XCTAssertEqual(events.map(\.attempt), [0, 0])
        XCTAssertEqual(events[1].response?.body, Data("cached".utf8))
    }

    func testNextThrowsTimeoutWhenTheDeadlinePasses() async throws {
        let watcher = ErrorWatchingMiddleware()
        let client = client(MockTransport(default: .status(200, after: 30)), [watcher])
        do {
            _ = try await client.send(HTTPRequest(url: url, timeout: 0.1))
            XCTFail("expected a timeout")
        } catch let error as HTTPError {
            XCTAssertEqual(error, .timeout)
        }
        XCTAssertEqual(watcher.seen, .timeout)
        let events = try await recorder.waitForTerminalEvents(count: 1)
        XCTAssertEqual(events.map(\.name), [.requestCreated, .requestStarted, .requestFailed])
        XCTAssertEqual(events.last?.error, .timeout)
        XCTAssertEqual(events.last?.attempt, 1)
    }

    func testNextThrowsCancelledWhenTheCallerCancels() async throws {
        let watcher = ErrorWatchingMiddleware()
        let client = client(MockTransport(default: .status(200, after: 30)), [watcher])
        let url = url
        let task = Task { try await client.send(HTTPRequest(url: url, timeout: 20)) }
        try await recorder.waitForEvents(count: 2)
        task.cancel()
        let result = await task.result
        guard case .failure(HTTPError.cancelled) = result else { return XCTFail("expected cancelled, got \(result)") }
        XCTAssertEqual(watcher.seen, .cancelled)
        let events = try await recorder.waitForTerminalEvents(count: 1)
        XCTAssertEqual(events.last?.name, .requestCancelled)
    }

    func testATimeoutOnTheAttemptsRequestBoundsThatAttemptOnly() async throws {
        let transport = MockTransport()
        transport.enqueue(.status(200, after: 30), .status(200))
        let shortFirstAttempt = ClosureMiddleware { request, next in
            var first = request
            first.timeout = 0.1
            do {
                return try await next(first)
            } catch HTTPError.timeout {
                return try await next(request)
            }
        }
        let response = try await client(transport, [shortFirstAttempt]).send(HTTPRequest(url: url))
        XCTAssertEqual(response.statusCode, 200)
        XCTAssertEqual(transport.requests.count, 2)
        let events = try await recorder.waitForTerminalEvents(count: 1)
        let retried = try XCTUnwrap(events.first { $0.name == .requestRetried })
        XCTAssertEqual(retried.error, .timeout)
        XCTAssertEqual(events.last?.attempt, 2)
    }

    func testWhatAMiddlewareThrowsReachesTheCallerAsHTTPError() async throws {
        struct Refused: Error {}
        let outer = ErrorWatchingMiddleware()
        let inner = ClosureMiddleware { _, _ in throw Refused() }
        do {
            _ = try await client(MockTransport(), [outer, inner]).send(HTTPRequest(url: url))
            XCTFail("expected an error")
        } catch let error as HTTPError {
            XCTAssertEqual(error, .transport(.other, message: "Refused"))
        }
        XCTAssertEqual(outer.seen, .transport(.other, message: "Refused"))
        let events = try await recorder.waitForTerminalEvents(count: 1)
        XCTAssertEqual(events.map(\.name), [.requestCreated, .requestFailed])
    }

    func testAnAlreadyCancelledTaskNeverReachesTheTransport() async throws {
        let transport = MockTransport()
        let client = client(transport, [ClosureMiddleware { request, next in try await next(request) }])
        let url = url
        let result = await Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await client.send(HTTPRequest(url: url))
        }.result
        guard case .failure(HTTPError.cancelled) = result else { return XCTFail("expected cancelled, got \(result)") }
        XCTAssertTrue(transport.requests.isEmpty)
        let events = try await recorder.waitForTerminalEvents(count: 1)
        XCTAssertEqual(events.map(\.name), [.requestCreated, .requestStarted, .requestCancelled])
    }

    func testTheReadmesMiddlewareWorksAsWritten() async throws {
        let transport = MockTransport()
        _ = try await client(transport, [APIVersionMiddleware(version: "2")]).send(HTTPRequest(url: url))
        XCTAssertEqual(transport.requests.first?.headers["API-Version"], "2")
        let events = try await recorder.waitForTerminalEvents(count: 1)
        XCTAssertEqual(events.last?.metadata, ["route": "/users/42"])
    }

    func testTheArticlesBodyReadingMiddlewareWorksBufferedAndStreamed() async throws {
        let embedded = MockTransport.Reply.status(200, body: Data(#"{"error":"quota"}"#.utf8), headers: ["Content-Type": "application/json"])
        let transport = MockTransport(default: embedded)
        let client = client(transport, [EmbeddedErrorMiddleware()])
        let buffered = try await client.send(HTTPRequest(url: url))
        XCTAssertEqual(buffered.statusCode, 502)
        XCTAssertEqual(buffered.body, Data(#"{"error":"quota"}"#.utf8))
        let (head, body) = try await client.send(HTTPRequest(url: url), body: nil)
        XCTAssertEqual(head.statusCode, 502)
        let streamed = try await body.collect(upTo: 100)
        XCTAssertEqual(streamed, Data(#"{"error":"quota"}"#.utf8))
        let ends = try await recorder.waitForTerminalEvents(count: 2)
        // The events show what the transport answered; the caller gets what the middleware made of it.
        XCTAssertEqual(ends.filter { $0.name == .responseReceived }.map(\.statusCode), [200, 200])
    }

    func testEveryAttemptKeepsTheRequestsIDWhateverTheMiddlewareBuilt() async throws {
        let rebuilds = ClosureMiddleware { request, next in
            try await next(HTTPRequest(method: request.method, url: request.url, headers: ["X-Signed": "1"]))
        }
        let transport = MockTransport()
        let request = HTTPRequest(url: url)
        let response = try await client(transport, [rebuilds]).send(request)
        XCTAssertEqual(transport.requests.map(\.id), [request.id])
        XCTAssertEqual(response.requestID, request.id)
        let events = try await recorder.waitForTerminalEvents(count: 1)
        XCTAssertEqual(Set(events.map(\.requestID)), [request.id])
        XCTAssertEqual(Set(events.map(\.request.id)), [request.id])
        XCTAssertEqual(events.last?.request.headers["X-Signed"], "1")
    }

    func testAfterTheDeadlineNoFurtherAttemptStarts() async throws {
        let insists = ClosureMiddleware { request, next in
            do {
                return try await next(request)
            } catch {
                return try await next(request)
            }
        }
        let transport = MockTransport(default: .status(200, after: 30))
        do {
            // Long enough that the first attempt reaches the transport on a loaded machine.
            _ = try await client(transport, [insists]).send(HTTPRequest(url: url, timeout: 1))
            XCTFail("expected a timeout")
        } catch let error as HTTPError {
            XCTAssertEqual(error, .timeout)
        }
        XCTAssertEqual(transport.requests.count, 1)
        let events = try await recorder.waitForTerminalEvents(count: 1)
        XCTAssertEqual(events.map(\.name), [.requestCreated, .requestStarted, .requestFailed])
        XCTAssertEqual(events.last?.attempt, 1)
    }

    /// With nobody subscribed when it starts, an exchange emits no event, even when an observer
    /// subscribes between its attempts; its middlewares still see every attempt, and its
    /// deadline still ends it with a timeout.
    func testAnUnobservedExchangeRunsItsMiddlewaresAndDeadlineWithoutEvents() async throws {
        let quiet = HTTPEventDispatcher()
        let late = RecordingObserver()
        let subscribed = Locked(false)
        let subscribeAfterTheFirstAttempt = ClosureMiddleware { request, next in
            let response = try await next(request)
            let isFirst = subscribed.withLock { done in
                defer { done = true }
                return !done
            }
            if isFirst { quiet.subscribe(late) }
            return response
        }
        let transport = MockTransport()
        transport.enqueue(.status(503), .status(503), .status(200))
        let inner = AttemptsStartedMiddleware()
        let retry = RetryMiddleware(maximumAttempts: 3, backoff: Backoff(initial: 0, maximum: 0))
        let client = HTTPTransportClient(transport: transport, middlewares: [retry, inner, subscribeAfterTheFirstAttempt], dispatcher: quiet)
        let response = try await client.send(HTTPRequest(url: url))
        XCTAssertEqual(response.statusCode, 200)
        XCTAssertEqual(inner.seen, [0, 1, 2])
        XCTAssertEqual(transport.requests.count, 3)
        await quiet.flush()
        XCTAssertEqual(late.events.map(\.name), [], "the exchange started unobserved")

        _ = try await client.send(HTTPRequest(url: url))
        let seen = try await late.waitForTerminalEvents(count: 1)
        XCTAssertEqual(seen.map(\.name), [.requestCreated, .requestStarted, .responseReceived, .requestSucceeded], "the next one is seen whole")

        let watcher = ErrorWatchingMiddleware()
        let slow = HTTPTransportClient(transport: MockTransport(default: .status(200, after: 30)), middlewares: [watcher], dispatcher: HTTPEventDispatcher())
        do {
            _ = try await slow.send(HTTPRequest(url: url, timeout: 0.1))
            XCTFail("expected a timeout")
        } catch let error as HTTPError {
            XCTAssertEqual(error, .timeout)
        }
        XCTAssertEqual(watcher.seen, .timeout)
    }

    func testWithoutMiddlewaresTheOneAttemptIsNumberOne() async throws {
        _ = try await client(MockTransport(), []).send(HTTPRequest(url: url))
        let events = try await recorder.waitForTerminalEvents(count: 1)
        XCTAssertEqual(events.map(\.attempt), [0, 1, 1, 1])
    }
}

/// A middleware made of a closure over whole responses, for tests of the chain: `next`
/// hands the closure each attempt's response with its body collected.
struct ClosureMiddleware: HTTPMiddleware {
    typealias WholeNext = @Sendable (HTTPRequest) async throws -> HTTPResponse
    let body: @Sendable (HTTPRequest, WholeNext) async throws -> HTTPResponse

    init(_ body: @escaping @Sendable (HTTPRequest, WholeNext) async throws -> HTTPResponse) {
        self.body = body
    }

    func intercept(
        _ request: HTTPRequest, body requestBody: HTTPBody?, context: HTTPMiddlewareContext, next: HTTPMiddlewareNext
    ) async throws -> (HTTPResponse.Head, HTTPBody) {
        try await body(request) { request in
            let (head, responseBody) = try await next(request, requestBody)
            return HTTPResponse(head: head, body: try await responseBody.collect(upTo: .max))
        }.splitBody
    }
}

/// Passes requests on and keeps the context's `attemptsStarted` of each call.
final class AttemptsStartedMiddleware: HTTPMiddleware {
    private let counts = Locked<[Int]>([])

    /// `attemptsStarted` of each call, in order.
    var seen: [Int] { counts.withLock { $0 } }

    func intercept(
        _ request: HTTPRequest, body: HTTPBody?, context: HTTPMiddlewareContext, next: HTTPMiddlewareNext
    ) async throws -> (HTTPResponse.Head, HTTPBody) {
        counts.withLock { $0.append(context.attemptsStarted) }
        return try await next(request, body)
    }
}

/// Passes requests on and keeps the last error `next` threw.
final class ErrorWatchingMiddleware: HTTPMiddleware {
    private let error = Locked<HTTPError?>(nil)

    /// The last error `next` threw, if any.
    var seen: HTTPError? { error.withLock { $0 } }

    func intercept(
        _ request: HTTPRequest, body: HTTPBody?, context: HTTPMiddlewareContext, next: HTTPMiddlewareNext
    ) async throws -> (HTTPResponse.Head, HTTPBody) {
        do {
            return try await next(request, body)
        } catch let error as HTTPError {
            self.error.withLock { $0 = error }
            throw error
        }
    }
}

/// The body-reading middleware of the WritingAMiddleware article, as printed there.
struct EmbeddedErrorMiddleware: HTTPMiddleware {
    func intercept(
        _ request: HTTPRequest,
        body: HTTPBody?,
        context: HTTPMiddlewareContext,
        next: HTTPMiddlewareNext
    ) async throws -> (HTTPResponse.Head, HTTPBody) {
        let (response, responseBody) = try await next(request, body)
        guard response.statusCode == 200, response.headers["Content-Type"] == "application/json" else {
            return (response, responseBody)
        }
        let bytes = try await responseBody.collect(upTo: 1 << 20)
        var answer = response
        if bytes.starts(with: Data(#"{"error""#.utf8)) { answer.statusCode = 502 }
        return (answer, HTTPBody(bytes))
    }
}

/// The middleware of the WritingAMiddleware article, as printed there.
struct APIVersionMiddleware: HTTPMiddleware {
    let version: String

    func intercept(
        _ request: HTTPRequest,
        body: HTTPBody?,
        context: HTTPMiddlewareContext,
        next: HTTPMiddlewareNext
    ) async throws -> (HTTPResponse.Head, HTTPBody) {
        var request = request
        request.headers.set(name: "API-Version", value: version)
        request.metadata["route"] = request.url.path
        return try await next(request, body)
    }
}

/// Keeps the URL of each request it passes on, as the context's redactor redacts it.
private struct RedactedURLMiddleware: HTTPMiddleware {
    let seen = Locked<[String]>([])

    func intercept(
        _ request: HTTPRequest, body: HTTPBody?, context: HTTPMiddlewareContext, next: HTTPMiddlewareNext
    ) async throws -> (HTTPResponse.Head, HTTPBody) {
        seen.withLock { $0.append(context.redactor.redactedURL(request.url)) }
        return try await next(request, body)
    }
}
