import Foundation
import HTTPCore
import HTTPCoreObservation
import HTTPCoreTesting
import XCTest

/// Who bounds an exchange's deadline: the transport, handed what remains of it (the buffered
/// adapter with a timer), and each middleware for its own waits; never a client timer.
final class HTTPTransportClientDeadlineTests: XCTestCase {
    private let url = URL(string: "https://api.example.com/users/42")!
    private var dispatcher: HTTPEventDispatcher!
    private var recorder: RecordingObserver!

    override func setUp() {
        startOver()
    }

    /// A new dispatcher and recorder, for a test's next case.
    private func startOver() {
        dispatcher = HTTPEventDispatcher()
        recorder = RecordingObserver()
        dispatcher.subscribe(recorder)
    }

    private func client<Transport: HTTPTransport>(
        _ transport: Transport, _ middlewares: [any HTTPMiddleware] = []
    ) -> HTTPTransportClient<Transport> {
        HTTPTransportClient(transport: transport, middlewares: middlewares, dispatcher: dispatcher, policy: .debug)
    }

    func testTheClientRacesNoTimerAgainstATransport() async throws {
        // A streaming transport that answers after its timeout: only a client timer could cut it.
        let response = try await client(LateTransport(delay: 0.3)).send(HTTPRequest(url: url, timeout: 0.05))
        XCTAssertEqual(response.statusCode, 200)
        let events = try await recorder.waitForTerminalEvents(count: 1)
        XCTAssertEqual(events.map(\.name), [.requestCreated, .requestStarted, .responseReceived, .requestSucceeded])
    }

    func testABufferedTransportIsEndedAtTheDeadlineByItsAdapter() async throws {
        for middlewares in [[], [RetryMiddleware(), TraceContextMiddleware()]] as [[any HTTPMiddleware]] {
            do {
                _ = try await client(LateBufferedTransport(delay: 30), middlewares).send(HTTPRequest(method: .post, url: url, timeout: 0.1))
                XCTFail("expected a timeout")
            } catch let error as HTTPError {
                XCTAssertEqual(error, .timeout)
            }
            let events = try await recorder.waitForTerminalEvents(count: 1)
            XCTAssertEqual(events.map(\.name), [.requestCreated, .requestStarted, .requestFailed])
            XCTAssertEqual(events.last?.error, .timeout)
            startOver()
        }
    }

    func testAMiddlewareBoundsItsOwnWaitsByTheDeadline() async throws {
        let waitsLong = WaitingMiddleware()
        let hangingProvider = AuthorizationMiddleware(
            credential: { try await Task.sleep(nanoseconds: 30_000_000_000); return "token" }, refresh: { _ in "token" }
        )
        for middleware in [waitsLong, hangingProvider] as [any HTTPMiddleware] {
            let transport = MockTransport()
            do {
                _ = try await client(transport, [middleware]).send(HTTPRequest(url: url, timeout: 0.1))
                XCTFail("expected a timeout")
            } catch let error as HTTPError {
                XCTAssertEqual(error, .timeout)
            }
            XCTAssertEqual(transport.requests.count, 0)
            let events = try await recorder.waitForTerminalEvents(count: 1)
            XCTAssertEqual(events.map(\.name), [.requestCreated, .requestFailed])
            startOver()
        }
    }

    func testEachAttemptIsHandedWhatRemainsOfTheDeadline() async throws {
        let transport = MockTransport()
        transport.enqueue(.status(503))
        let retry = RetryMiddleware(backoff: Backoff(initial: 0.05, maximum: 0.05, jitter: .none))
        let response = try await client(transport, [retry]).send(HTTPRequest(url: url, timeout: 20))
        XCTAssertEqual(response.statusCode, 200)
        let timeouts = transport.requests.compactMap(\.timeout)
        XCTAssertEqual(timeouts.count, 2)
        XCTAssertTrue(timeouts[0] <= 20 && timeouts[0] > 10, "\(timeouts)")
        // The second attempt starts after the first and a 50 ms backoff.
        XCTAssertTrue(timeouts[1] <= timeouts[0] - 0.05, "\(timeouts)")
    }

    func testTheTransportsTimeoutIsATimeoutAndTheCallersCancelIsCancelled() async throws {
        let transport = MockTransport(default: .status(200, after: 30))
        do {
            _ = try await client(transport).send(HTTPRequest(url: url, timeout: 0.1))
            XCTFail("expected a timeout")
        } catch let error as HTTPError {
            XCTAssertEqual(error, .timeout)
        }
        let timedOut = try await recorder.waitForTerminalEvents(count: 1)
        XCTAssertEqual(timedOut.map(\.name), [.requestCreated, .requestStarted, .requestFailed])
        XCTAssertEqual(timedOut.last?.error, .timeout)

        let client = client(transport, [RetryMiddleware()])
        let url = url
        let task = Task { try await client.send(HTTPRequest(url: url, timeout: 20)) }
        try await recorder.waitForEvents(count: 5)
        task.cancel()
        let result = await task.result
        guard case .failure(HTTPError.cancelled) = result else { return XCTFail("expected cancelled, got \(result)") }
        let events = try await recorder.waitForTerminalEvents(count: 2)
        XCTAssertEqual(events.last?.name, .requestCancelled)
    }

    func testAnAttemptAfterTheDeadlineFailsWithTimeoutWithoutReachingTheTransport() async throws {
        let transport = MockTransport(default: .status(200, after: 30))
        let insists = BoundedInsistingMiddleware()
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
    }
}

/// Answers after `delay` whatever the timeout: a streaming transport that breaks the
/// contract, which only a client timer could cut short.
private struct LateTransport: HTTPTransport {
    let delay: TimeInterval

    func perform(_ request: HTTPRequest, body: HTTPBody?) async throws -> (HTTPResponse.Head, HTTPBody) {
        try await Task.sleep(nanoseconds: UInt64(delay * 1_000_000_000))
        return (HTTPResponse.Head(requestID: request.id, statusCode: 200, url: request.url), HTTPBody())
    }
}

/// Answers after `delay` whatever the timeout, through the buffered adapter.
private struct LateBufferedTransport: HTTPBufferedTransport {
    let delay: TimeInterval

    func perform(_ request: HTTPRequest) async throws -> HTTPResponse {
        try await Task.sleep(nanoseconds: UInt64(delay * 1_000_000_000))
        return HTTPResponse(requestID: request.id, statusCode: 200, url: request.url)
    }
}

/// Waits 30 s for something of its own, within the exchange's deadline, before calling `next`.
private struct WaitingMiddleware: HTTPMiddleware {
    func intercept(
        _ request: HTTPRequest, body: HTTPBody?, context: HTTPMiddlewareContext, next: HTTPMiddlewareNext
    ) async throws -> (HTTPResponse.Head, HTTPBody) {
        try await context.withinDeadline { try await Task.sleep(nanoseconds: 30_000_000_000) }
        return try await next(request, body)
    }
}

/// Calls `next` again after any failure: the client must refuse an attempt that would start
/// after the deadline.
private struct BoundedInsistingMiddleware: HTTPMiddleware {
    func intercept(
        _ request: HTTPRequest, body: HTTPBody?, context: HTTPMiddlewareContext, next: HTTPMiddlewareNext
    ) async throws -> (HTTPResponse.Head, HTTPBody) {
        do {
            return try await next(request, body)
        } catch {
            return try await next(request, body)
        }
    }
}
