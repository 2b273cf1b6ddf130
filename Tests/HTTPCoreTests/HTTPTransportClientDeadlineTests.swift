import Foundation
import HTTPCore
import HTTPCoreTesting
import XCTest

/// Who bounds an exchange's deadline: the client's timer, or a transport that declares
/// ``HTTPTransport/enforcesTimeout`` with middlewares that stay within the deadline.
final class HTTPTransportClientDeadlineTests: XCTestCase {
    private let url = URL(string: "https://api.example.com/users/42")!
    private var dispatcher: HTTPEventDispatcher!
    private var recorder: RecordingObserver!

    override func setUp() {
        dispatcher = HTTPEventDispatcher()
        recorder = RecordingObserver()
        dispatcher.subscribe(recorder)
    }

    private func client<Transport: HTTPTransport>(
        _ transport: Transport, _ middlewares: [any HTTPMiddleware] = []
    ) -> HTTPTransportClient<Transport> {
        HTTPTransportClient(transport: transport, middlewares: middlewares, dispatcher: dispatcher, policy: .debug)
    }

    func testATransportThatEnforcesTimeoutsIsTrustedWithoutATimer() async throws {
        // It declares enforcement but answers after its timeout: only a client timer could cut it.
        let response = try await client(LateTransport(delay: 0.3)).send(HTTPRequest(url: url, timeout: 0.05))
        XCTAssertEqual(response.statusCode, 200)
        let events = try await recorder.waitForTerminalEvents(count: 1)
        XCTAssertEqual(events.map(\.name), [.requestCreated, .requestStarted, .responseReceived, .requestSucceeded])
    }

    func testMiddlewaresThatStayWithinTheDeadlineAddNoTimer() async throws {
        let middlewares: [any HTTPMiddleware] = [
            DefaultHeadersMiddleware(["X-App": "1"]), TraceContextMiddleware(), RetryMiddleware(),
        ]
        XCTAssertTrue(middlewares.allSatisfy(\.staysWithinDeadline))
        let response = try await client(LateTransport(delay: 0.3), middlewares).send(HTTPRequest(url: url, timeout: 0.05))
        XCTAssertEqual(response.statusCode, 200)
    }

    func testAMiddlewareThatMayWaitKeepsTheClientsTimer() async throws {
        let mayWait = ClosureMiddleware { request, next in try await next(request) }
        XCTAssertFalse(mayWait.staysWithinDeadline)
        XCTAssertFalse(AuthorizationMiddleware(credential: { "token" }, refresh: { _ in "token" }).staysWithinDeadline)
        do {
            _ = try await client(LateTransport(delay: 30), [mayWait]).send(HTTPRequest(url: url, timeout: 0.1))
            XCTFail("expected a timeout")
        } catch let error as HTTPError {
            XCTAssertEqual(error, .timeout)
        }
        let events = try await recorder.waitForTerminalEvents(count: 1)
        XCTAssertEqual(events.map(\.name), [.requestCreated, .requestStarted, .requestFailed])
        XCTAssertEqual(events.last?.error, .timeout)
    }

    func testEachAttemptIsHandedWhatRemainsOfTheDeadline() async throws {
        let transport = MockTransport(enforcesTimeout: true)
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
        let transport = MockTransport(default: .status(200, after: 30), enforcesTimeout: true)
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
        let transport = MockTransport(default: .status(200, after: 30), enforcesTimeout: true)
        let insists = BoundedInsistingMiddleware()
        do {
            _ = try await client(transport, [insists]).send(HTTPRequest(url: url, timeout: 0.1))
            XCTFail("expected a timeout")
        } catch let error as HTTPError {
            XCTAssertEqual(error, .timeout)
        }
        XCTAssertEqual(transport.requests.count, 1)
        let events = try await recorder.waitForTerminalEvents(count: 1)
        XCTAssertEqual(events.map(\.name), [.requestCreated, .requestStarted, .requestFailed])
    }
}

/// Declares that it enforces timeouts, then answers after `delay` whatever the timeout: a
/// broken transport that only a client timer could cut short.
private struct LateTransport: HTTPTransport {
    let delay: TimeInterval
    var enforcesTimeout: Bool { true }

    func perform(_ request: HTTPRequest) async throws -> HTTPResponse {
        try await Task.sleep(nanoseconds: UInt64(delay * 1_000_000_000))
        return HTTPResponse(requestID: request.id, statusCode: 200, url: request.url)
    }
}

/// Calls `next` again after any failure, and declares it stays within the deadline: the
/// client must still refuse an attempt that would start after it.
private struct BoundedInsistingMiddleware: HTTPMiddleware {
    var staysWithinDeadline: Bool { true }

    func intercept(_ request: HTTPRequest, context: HTTPMiddlewareContext, next: HTTPMiddlewareNext) async throws -> HTTPResponse {
        do {
            return try await next(request)
        } catch {
            return try await next(request)
        }
    }
}
