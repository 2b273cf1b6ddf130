import Foundation
@_spi(Transports) import HTTPCore
import HTTPCoreObservation
import HTTPCoreTesting
import XCTest
import HTTPCoreConcurrency

final class HTTPTransportClientTests: XCTestCase {
    private let url = URL(string: "https://api.example.com/users?page=2")!
    private var dispatcher: HTTPEventDispatcher!
    private var recorder: RecordingObserver!

    override func setUp() {
        dispatcher = HTTPEventDispatcher()
        recorder = RecordingObserver()
        dispatcher.subscribe(recorder)
    }

    private func client(_ transport: MockTransport, policy: HTTPCorePolicy = .debug) -> HTTPTransportClient<MockTransport> {
        HTTPTransportClient(transport: transport, dispatcher: dispatcher, policy: policy)
    }

    func testSuccessEmitsFourEventsInOrderWithTimingAndSizes() async throws {
        let transport = MockTransport(default: .status(200, body: Data("hello".utf8), after: 0.02))
        let request = HTTPRequest(method: .post, url: url, body: Data("abc".utf8))
        let response = try await client(transport).send(request)
        XCTAssertEqual(response.statusCode, 200)
        XCTAssertEqual(response.requestID, request.id)

        let events = try await recorder.waitForEvents(count: 4)
        XCTAssertEqual(events.map(\.name), [.requestCreated, .requestStarted, .responseReceived, .requestSucceeded])
        XCTAssertEqual(Set(events.map(\.requestID)), [request.id])
        XCTAssertEqual(events.map(\.name.rawValue), [
            "http.request.created", "http.request.started", "http.response.received", "http.request.succeeded",
        ])
        let terminal = events[3]
        XCTAssertGreaterThanOrEqual(try XCTUnwrap(terminal.durationMilliseconds), 20)
        XCTAssertNotNil(terminal.startedAt)
        XCTAssertEqual(terminal.endedAt, terminal.timestamp)
        XCTAssertEqual(terminal.requestBodyByteCount, 3)
        XCTAssertEqual(terminal.responseBodyByteCount, 5)
        XCTAssertEqual(terminal.response?.statusCode, 200)
        XCTAssertNil(terminal.error)
        XCTAssertNil(events[0].startedAt)
        XCTAssertNil(events[0].durationMilliseconds)
        XCTAssertNil(events[1].response)
    }

    func testABufferedCallTakesNoMoreThanItsLimitOfAStreamedBody() async throws {
        struct TenBytes: HTTPTransport {
            func perform(_ request: HTTPRequest, body: HTTPBody?) async throws -> (HTTPResponse.Head, HTTPBody) {
                let chunks = AsyncStream { $0.yield(HTTPBody.ByteChunk("01234".utf8)); $0.yield(HTTPBody.ByteChunk("56789".utf8)); $0.finish() }
                return (HTTPResponse.Head(requestID: request.id, statusCode: 200, url: request.url), HTTPBody(chunks, length: .unknown))
            }
        }
        let within = HTTPTransportClient(transport: TenBytes(), dispatcher: dispatcher, maximumBufferedResponseBytes: 10)
        let whole = try await within.send(HTTPRequest(url: url))
        XCTAssertEqual(whole.body, Data("0123456789".utf8))
        let over = HTTPTransportClient(transport: TenBytes(), dispatcher: dispatcher, maximumBufferedResponseBytes: 9)
        do {
            _ = try await over.send(HTTPRequest(url: url))
            XCTFail("expected response_too_large")
        } catch let error as HTTPError {
            XCTAssertEqual(error, .transport(
                .responseTooLarge,
                message: "the response body is over 9 bytes, the most a buffered call takes "
                    + "(HTTPTransportClient.maximumBufferedResponseBytes); read it with send(_:body:)"
            ))
        }
        // A body a middleware streams into a buffered call is held to the same limit, named the same way.
        struct Streams: HTTPMiddleware {
            func intercept(
                _ request: HTTPRequest, body: HTTPBody?, context: HTTPMiddlewareContext, next: HTTPMiddlewareNext
            ) async throws -> (HTTPResponse.Head, HTTPBody) {
                let (head, _) = try await next(request, body)
                return (head, HTTPBody(AsyncStream { $0.yield(HTTPBody.ByteChunk("0123456789".utf8)); $0.finish() }, length: .unknown))
            }
        }
        let middlewareMade = HTTPTransportClient(
            transport: MockTransport(), middlewares: [Streams()], dispatcher: dispatcher, maximumBufferedResponseBytes: 9
        )
        do {
            _ = try await middlewareMade.send(HTTPRequest(url: url))
            XCTFail("expected response_too_large")
        } catch let error as HTTPError {
            XCTAssertEqual(error.message, "the response body is over 9 bytes, the most a buffered call takes "
                + "(HTTPTransportClient.maximumBufferedResponseBytes); read it with send(_:body:)")
        }
        let events = try await recorder.waitForTerminalEvents(count: 3)
        XCTAssertEqual(events.filter(\.name.isTerminal).map(\.name), [.requestSucceeded, .requestFailed, .requestFailed])
        XCTAssertEqual(HTTPTransportClient(transport: TenBytes()).maximumBufferedResponseBytes, 64 << 20)
    }

    func testABufferedCallTakesTheTransportsBufferedShortcutAndAStreamedCallItsOneMethod() async throws {
        struct Shortcut: BufferedShortcut {
            func perform(_ request: HTTPRequest, body: HTTPBody?) async throws -> (HTTPResponse.Head, HTTPBody) {
                (HTTPResponse.Head(requestID: request.id, statusCode: 200, url: request.url), HTTPBody("one method"))
            }

            func performBuffered(_ request: HTTPRequest, upTo maximumBytes: Int) async throws -> HTTPResponse {
                HTTPResponse(requestID: request.id, statusCode: 200, body: Data("shortcut up to \(maximumBytes)".utf8), url: request.url)
            }
        }
        for middlewares in [[], [RetryMiddleware()]] as [[any HTTPMiddleware]] {
            let client = HTTPTransportClient(transport: Shortcut(), middlewares: middlewares, dispatcher: dispatcher, maximumBufferedResponseBytes: 1234)
            let whole = try await client.send(HTTPRequest(url: url))
            // The shortcut is handed the client's limit, which it must hold to.
            XCTAssertEqual(whole.body, Data("shortcut up to 1234".utf8), "\(middlewares.count) middlewares")
            // Through the protocol, too: `send(_:)` takes the client's own buffered call.
            let existential: any HTTPClient = client
            let throughProtocol = try await existential.send(HTTPRequest(url: url))
            XCTAssertEqual(throughProtocol.body, Data("shortcut up to 1234".utf8), "\(middlewares.count) middlewares")
            let (_, streamed) = try await client.send(HTTPRequest(url: url), body: nil)
            let body = try await streamed.collect(upTo: .max)
            XCTAssertEqual(body, Data("one method".utf8), "\(middlewares.count) middlewares")
        }
    }

    func testClientAndServerErrorsAreResponsesThatSucceed() async throws {
        let transport = MockTransport()
        transport.enqueue(.status(404), .status(503))
        let first = try await client(transport).send(HTTPRequest(url: url))
        let second = try await client(transport).send(HTTPRequest(url: url))
        XCTAssertEqual([first.status.kind, second.status.kind], [.clientError, .serverError])
        let events = try await recorder.waitForTerminalEvents(count: 2)
        XCTAssertEqual(events.filter(\.name.isTerminal).map(\.name), [.requestSucceeded, .requestSucceeded])
    }

    func testTransportFailureEmitsFailedWithScrubbedError() async throws {
        let secretURL = URL(string: "https://user:pw@api.example.com/a?token=s3cr3t%20now&x=1")!
        // The transport quotes the query decoded: the scrubber removes that spelling too.
        let transport = MockTransport(default: .failure(.transport(.cannotConnect, message: "refused: \(secretURL.absoluteString) (token=s3cr3t now)")))
        do {
            _ = try await client(transport, policy: HTTPCorePolicy(redactor: .none)).send(HTTPRequest(url: secretURL))
            XCTFail("expected an error")
        } catch let error as HTTPError {
            XCTAssertEqual(error.code, .cannotConnect)
            let message = error.message ?? ""
            XCTAssertFalse(message.contains("s3cr3t"), message)
            XCTAssertFalse(message.contains("pw@"), message)
        }
        let events = try await recorder.waitForEvents(count: 3)
        XCTAssertEqual(events.map(\.name), [.requestCreated, .requestStarted, .requestFailed])
        XCTAssertEqual(events[2].error?.code, .cannotConnect)
        XCTAssertNil(events[2].response)
    }

    func testUnknownErrorsBecomeOtherTransportErrors() async throws {
        struct Boom: Error {}
        final class Throwing: HTTPBufferedTransport {
            func perform(_ request: HTTPRequest) async throws -> HTTPResponse { throw Boom() }
        }
        let client = HTTPTransportClient(transport: Throwing(), dispatcher: dispatcher)
        do {
            _ = try await client.send(HTTPRequest(url: url))
            XCTFail("expected an error")
        } catch let error as HTTPError {
            XCTAssertEqual(error, .transport(.other, message: "Boom"))
        }
    }

    func testErrorsThrownAsSwiftValuesAreDescribedWithoutTheirValues() async throws {
        enum AdapterError: Error { case rejected(token: String) }
        struct Credentials: Error { let password: String }
        struct Explained: LocalizedError {
            var errorDescription: String? { "login failed: password=hunter2 for https://api.example.com/x?token=abc" }
        }
        // The caller gets its own error's text; events get it scrubbed.
        let cases: [(any Error, thrown: String, observed: String)] = [
            (AdapterError.rejected(token: "t0k-S3CRET"), "AdapterError", "AdapterError"),
            (Credentials(password: "hunter2"), "Credentials", "Credentials"),
            (Explained(), "Explained: login failed: password=hunter2 for https://api.example.com/x?token=abc",
             "Explained: login failed: password=[REDACTED] for https://api.example.com/x?token=[REDACTED]"),
        ]
        for (thrown, expectedThrown, expectedObserved) in cases {
            let recorder = RecordingObserver()
            let dispatcher = HTTPEventDispatcher()
            dispatcher.subscribe(recorder)
            let client = HTTPTransportClient(transport: Throwing(thrown), dispatcher: dispatcher)
            do {
                _ = try await client.send(HTTPRequest(url: URL(string: "https://api.example.com/login")!))
                XCTFail("expected an error")
            } catch let error as HTTPError {
                XCTAssertEqual(error, .transport(.other, message: expectedThrown))
            }
            let failed = try await recorder.waitForTerminalEvents(count: 1).last
            XCTAssertEqual(failed?.error, .transport(.other, message: expectedObserved))
        }
    }

    func testLongMessagesAreCutAndScrubbedOnlyWhenObserved() async throws {
        struct Verbose: LocalizedError {
            var errorDescription: String? { String(repeating: "\u{00E9}", count: 3000) + " token=S3CR3T" }
        }
        let client = HTTPTransportClient(transport: Throwing(Verbose()), dispatcher: dispatcher)
        do {
            _ = try await client.send(HTTPRequest(url: url))
            XCTFail("expected an error")
        } catch let error as HTTPError {
            guard error.code == .other, let message = error.message else { return XCTFail("\(error)") }
            // "Verbose: " is 9 bytes; 2,043 two-byte characters fit in the remaining 4,087.
            XCTAssertEqual(message, "Verbose: " + String(repeating: "\u{00E9}", count: 2043) + "\u{2026}")
            XCTAssertLessThanOrEqual(message.utf8.count, HTTPError.maximumMessageBytes + 3)
        }
        let failed = try await recorder.waitForTerminalEvents(count: 1).last
        XCTAssertEqual(failed?.error, .transport(.other, message: "Verbose: " + String(repeating: "\u{00E9}", count: 2043) + "\u{2026}"))

        struct Secretive: LocalizedError {
            var errorDescription: String? { "rejected " + String(repeating: "x", count: 100) + " password=S3CR3T" }
        }
        let secretive = HTTPTransportClient(transport: Throwing(Secretive()), dispatcher: dispatcher)
        _ = try? await secretive.send(HTTPRequest(url: url))
        let observed = try await recorder.waitForTerminalEvents(count: 2).last
        XCTAssertEqual(observed?.error, .transport(.other, message: "Secretive: rejected " + String(repeating: "x", count: 100) + " password=[REDACTED]"))
    }

    func testAnExchangeThatStartsUnobservedIsNotObservedInPart() async throws {
        let quiet = HTTPEventDispatcher()
        let late = RecordingObserver()
        let transport = SubscribingTransport(dispatcher: quiet, observer: late)
        let client = HTTPTransportClient(transport: transport, dispatcher: quiet, policy: .debug)
        let first = try await client.send(HTTPRequest(url: url))
        XCTAssertEqual(first.statusCode, 200)
        _ = try await client.send(HTTPRequest(url: url))
        await quiet.flush()
        // The first exchange started before anyone listened: none of its events, not its end
        // alone. The second is seen whole.
        XCTAssertEqual(late.events.map(\.name), [.requestCreated, .requestStarted, .responseReceived, .requestSucceeded])
        XCTAssertEqual(Set(late.events.map(\.requestID)).count, 1)
    }

    func testAnUnobservedExchangeStillCarriesThePolicysCorrelationHeader() async throws {
        var policy = HTTPCorePolicy.debug
        policy.correlationHeaderName = "X-Correlation-ID"
        let transport = MockTransport()
        let client = HTTPTransportClient(transport: transport, dispatcher: HTTPEventDispatcher(), policy: policy)
        _ = try await client.send(HTTPRequest(url: url))
        _ = try await client.send(HTTPRequest(url: url, headers: ["X-Correlation-ID": "mine"]))
        let sent = transport.requests.map { $0.headers["X-Correlation-ID"] }
        XCTAssertEqual(sent.count, 2)
        XCTAssertEqual(sent[0].flatMap(UUID.init(uuidString:)) != nil, true, "a fresh UUID: \(sent)")
        XCTAssertEqual(sent[1], "mine")
    }

    func testDeadlineCancelsTheTransportAndFailsWithTimeout() async throws {
        let transport = MockTransport(default: .status(200, after: 30))
        let started = Date()
        do {
            _ = try await client(transport).send(HTTPRequest(url: url, timeout: 0.1))
            XCTFail("expected a timeout")
        } catch let error as HTTPError {
            XCTAssertEqual(error, .timeout)
        }
        XCTAssertLessThan(Date().timeIntervalSince(started), 10)
        let events = try await recorder.waitForEvents(count: 3)
        XCTAssertEqual(events.map(\.name), [.requestCreated, .requestStarted, .requestFailed])
        XCTAssertEqual(events[2].error, .timeout)
    }

    func testAlreadyCancelledTaskNeverReachesTheTransport() async throws {
        let transport = MockTransport()
        let client = client(transport)
        let url = url
        let result = await Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await client.send(HTTPRequest(url: url))
        }.result
        guard case .failure(HTTPError.cancelled) = result else { return XCTFail("expected cancelled, got \(result)") }
        XCTAssertTrue(transport.requests.isEmpty)
        let events = try await recorder.waitForEvents(count: 3)
        XCTAssertEqual(events.map(\.name), [.requestCreated, .requestStarted, .requestCancelled])
        XCTAssertEqual(events[2].error, .cancelled)
    }

    func testTaskCancellationInFlightThrowsCancelled() async throws {
        let client = client(MockTransport(default: .status(200, after: 30)))
        let request = HTTPRequest(url: url)
        let task = Task { try await client.send(request) }
        try await recorder.waitForEvents(count: 2)
        task.cancel()
        let result = await task.result
        guard case .failure(HTTPError.cancelled) = result else { return XCTFail("expected cancelled, got \(result)") }
        let events = try await recorder.waitForEvents(count: 3)
        XCTAssertEqual(events.map(\.name), [.requestCreated, .requestStarted, .requestCancelled])
    }

    func testCancelFromManyThreadsAtOnceEndsTheExchangeOnce() async throws {
        let client = client(MockTransport(default: .status(200, after: 30)))
        let request = HTTPRequest(url: url)
        let task = Task { try await client.send(request) }
        try await recorder.waitForEvents(count: 2)
        DispatchQueue.concurrentPerform(iterations: 100) { _ in task.cancel() }
        let result = await task.result
        guard case .failure(HTTPError.cancelled) = result else { return XCTFail("expected cancelled, got \(result)") }
        try await recorder.waitForTerminalEvents(count: 1)
        await dispatcher.flush()
        XCTAssertEqual(recorder.events.filter(\.name.isTerminal).map(\.name), [.requestCancelled])
    }

    func testTwoHundredConcurrentRequestsGiveTwoHundredCompleteSequences() async throws {
        let transport = MockTransport(default: .status(200, after: 0.001))
        let client = client(transport)
        let ids = try await withThrowingTaskGroup(of: HTTPRequest.ID.self) { group in
            for index in 0..<200 {
                group.addTask {
                    let request = HTTPRequest(url: URL(string: "https://api.example.com/\(index)")!)
                    let response = try await client.send(request)
                    XCTAssertEqual(response.requestID, request.id)
                    return request.id
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        try await recorder.waitForEvents(count: 800)
        for id in ids {
            let events = recorder.events(for: id)
            XCTAssertEqual(events.map(\.name), [.requestCreated, .requestStarted, .responseReceived, .requestSucceeded])
            XCTAssertEqual(Set(events.map(\.request.url)).count, 1)
        }
    }
}

extension Result {
    var failure: Failure? {
        if case .failure(let error) = self { error } else { nil }
    }
}

struct ConditionTimeout: Error, CustomStringConvertible {
    let description: String
}

extension AsyncCondition where State: Collection {
    /// Waits until the collection holds at least `count` elements, failing after 10 s.
    func waitForCount(_ count: Int, timeout: TimeInterval = 60) async throws -> State {
        try await wait(timeout: timeout, until: { $0.count >= count }) { state in
            ConditionTimeout(description: "waited \(timeout) s for \(count) elements, have \(state.count)")
        }
    }

}

/// A transport that fails every attempt with one error.
private final class Throwing: HTTPBufferedTransport {
    let error: any Error
    init(_ error: any Error) { self.error = error }
    func perform(_ request: HTTPRequest) async throws -> HTTPResponse { throw error }
}

/// Subscribes `observer` to `dispatcher` during its first exchange, as an app that starts
/// observing while a request is in flight does; answers 200.
private final class SubscribingTransport: HTTPBufferedTransport {
    let dispatcher: HTTPEventDispatcher
    let observer: RecordingObserver
    private let subscribed = Locked(false)

    init(dispatcher: HTTPEventDispatcher, observer: RecordingObserver) {
        self.dispatcher = dispatcher
        self.observer = observer
    }

    func perform(_ request: HTTPRequest) async throws -> HTTPResponse {
        let first = subscribed.withLock { subscribed in
            defer { subscribed = true }
            return !subscribed
        }
        if first { dispatcher.subscribe(observer) }
        return HTTPResponse(requestID: request.id, statusCode: 200, url: request.url)
    }
}
