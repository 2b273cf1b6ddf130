import Foundation
@testable import HTTPCore
@testable import HTTPCoreObservation
import HTTPCoreTesting
import XCTest

/// What an attempt through middlewares records of its request: the caller's record when the
/// middlewares left the request as it was, else a record that shares with the caller's the
/// redaction of the parts they left.
final class HTTPTransportClientAttemptRecordTests: XCTestCase {
    private let callers = HTTPRequest(
        method: .post, url: URL(string: "https://api.example.com/v1/items?token=t0ken")!,
        headers: ["Content-Type": "application/json"], body: Data(#"{"password":"hunter2"}"#.utf8), metadata: ["route": "/v1/items"]
    )

    /// The header a trace context middleware adds.
    private static let traceparent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"

    /// Adds ``traceparent`` after the caller's headers, as `TraceContextMiddleware` does.
    private static let traces = ClosureMiddleware { request, next in
        var request = request
        request.headers.add(name: "traceparent", value: traceparent)
        return try await next(request)
    }

    /// The events of one buffered exchange of `request` through `middlewares`.
    private func events(of request: HTTPRequest, through middlewares: [any HTTPMiddleware]) async throws -> [HTTPEvent] {
        let dispatcher = HTTPEventDispatcher()
        let recorder = RecordingObserver()
        dispatcher.subscribe(recorder)
        let client = HTTPTransportClient(transport: MockTransport(), middlewares: middlewares, dispatcher: dispatcher, policy: .debug)
        _ = try await client.send(request)
        return try await recorder.waitForTerminalEvents(count: 1)
    }

    func testEveryAttemptOfTheCallersRequestAsItWasCarriesTheCreatedRecord() async throws {
        let passes = ClosureMiddleware { request, next in try await next(request) }
        let retriesOnce = ClosureMiddleware { request, next in
            _ = try await next(request)
            return try await next(request)
        }
        let events = try await events(of: callers, through: [passes, retriesOnce])
        XCTAssertEqual(events.map(\.name), [
            .requestCreated, .requestStarted, .responseReceived, .requestRetried, .requestStarted, .responseReceived, .requestSucceeded,
        ])
        XCTAssertTrue(events.allSatisfy { $0.requestRecord === events[0].requestRecord }, "one record for the exchange")
        XCTAssertEqual(events[4].request.url, "https://api.example.com/v1/items?token=[REDACTED]")
    }

    func testAnAttemptWhoseMiddlewareAddedAHeaderSharesTheCreatedRecordsRedactedURLBodyAndMetadata() async throws {
        let events = try await events(of: callers, through: [Self.traces])
        let (created, started) = (events[0], events[1])
        XCTAssertFalse(started.requestRecord === created.requestRecord, "the attempt's request is not the caller's")
        XCTAssertEqual(created.request.url, "https://api.example.com/v1/items?token=[REDACTED]")
        XCTAssertEqual(created.request.body.map { String(decoding: $0, as: UTF8.self) }, #"{"password":"[REDACTED]"}"#)
        XCTAssertEqual(created.request.metadata, ["route": "/v1/items"])

        XCTAssertEqual(started.requestRecord.exposedFields, ["url", "body", "metadata"], "redacted with the created event's, not again")
        XCTAssertEqual(started.request.url, created.request.url)
        XCTAssertEqual(started.request.body, created.request.body)
        XCTAssertEqual(started.metadata, ["route": "/v1/items"])
        XCTAssertEqual(created.requestHeaders["traceparent"], nil, "created shows the caller's request")
        XCTAssertEqual(started.requestHeaders["traceparent"], Self.traceparent)
    }

    func testHeaderNamesThatHoldACredentialAreMaskedInTheCallersAndTheAddedFields() async throws {
        let jwt = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.abcdefghijk"
        let addsAJWTNamedHeader = ClosureMiddleware { request, next in
            var request = request
            request.headers.add(name: jwt, value: "1")
            return try await next(request)
        }
        var request = callers
        // A GitHub token pasted as a name: a valid token, so it is sent.
        request.headers.add(name: "ghp_0123456789abcdefghijABCDEFGHIJ012345", value: "2")
        let events = try await events(of: request, through: [addsAJWTNamedHeader])
        let (created, started) = (events[0], events[1])
        XCTAssertEqual(created.requestHeaders.map(\.name), ["Content-Type", "[REDACTED]"])
        XCTAssertEqual(started.requestHeaders.map(\.name), ["Content-Type", "[REDACTED]", "[REDACTED]"])
        XCTAssertEqual(started.requestHeaders.map(\.value), ["application/json", "2", "1"])
    }

    func testARetryOfTheRequestAMiddlewareChangedCarriesTheRecordOfTheAttemptBefore() async throws {
        let retriesOnce = ClosureMiddleware { request, next in
            _ = try await next(request)
            return try await next(request)
        }
        let events = try await events(of: callers, through: [Self.traces, retriesOnce])
        XCTAssertEqual(events.map(\.attempt), [0, 1, 1, 1, 2, 2, 2])
        XCTAssertFalse(events[1].requestRecord === events[0].requestRecord)
        XCTAssertTrue(events[1...].allSatisfy { $0.requestRecord === events[1].requestRecord }, "both attempts, and the end, carry one record")
        XCTAssertEqual(events[4].requestHeaders["traceparent"], Self.traceparent)
    }

    func testAnAttemptWhoseMiddlewareChangedTheURLAndReEncodedTheBodyShowsItsOwn() async throws {
        let moves = ClosureMiddleware { request, next in
            var request = request
            request.url = URL(string: "https://eu.example.com/v2/items?key=k3y")!
            request.body = Data(#"{"token":"abc"}"#.utf8)
            return try await next(request)
        }
        let events = try await events(of: callers, through: [moves])
        let (created, started) = (events[0], events[1])
        _ = created.request

        XCTAssertEqual(started.requestRecord.exposedFields, [], "a body of another length: nothing read from the caller's record")
        XCTAssertEqual(started.request.url, "https://eu.example.com/v2/items?key=[REDACTED]")
        XCTAssertEqual(started.request.body.map { String(decoding: $0, as: UTF8.self) }, #"{"token":"[REDACTED]"}"#)
        XCTAssertEqual(started.host, "eu.example.com")
        XCTAssertEqual(created.request.url, "https://api.example.com/v1/items?token=[REDACTED]")
        XCTAssertEqual(created.host, "api.example.com")
    }

    func testAStreamedAttemptOfTheCallersRequestWithoutABodyCarriesTheCreatedRecord() async throws {
        let dispatcher = HTTPEventDispatcher()
        let recorder = RecordingObserver()
        dispatcher.subscribe(recorder)
        let passes = PassThroughMiddleware()
        let client = HTTPTransportClient(transport: MockTransport(), middlewares: [passes], dispatcher: dispatcher, policy: .debug)
        let (_, body) = try await client.send(HTTPRequest(url: URL(string: "https://api.example.com/v1/items")!), body: nil)
        _ = try await body.collect(upTo: .max)
        let events = try await recorder.waitForTerminalEvents(count: 1)
        XCTAssertEqual(events.map(\.name), [.requestCreated, .requestStarted, .responseReceived, .requestSucceeded])
        XCTAssertTrue(events[1].requestRecord === events[0].requestRecord)
        XCTAssertTrue(events[2].requestRecord === events[0].requestRecord)
    }

    func testAStreamedAttemptWithABodySharesTheCreatedRecordsRedactedURL() async throws {
        let dispatcher = HTTPEventDispatcher()
        let recorder = RecordingObserver()
        dispatcher.subscribe(recorder)
        let client = HTTPTransportClient(transport: MockTransport(), middlewares: [PassThroughMiddleware()], dispatcher: dispatcher, policy: .debug)
        var request = callers
        request.body = nil
        let (_, body) = try await client.send(request, body: HTTPBody(Data(#"{"password":"hunter2"}"#.utf8)))
        _ = try await body.collect(upTo: .max)
        let events = try await recorder.waitForTerminalEvents(count: 1)
        XCTAssertEqual(events[0].requestURL, "https://api.example.com/v1/items?token=[REDACTED]")

        XCTAssertFalse(events[1].requestRecord === events[0].requestRecord, "its streamed body is the attempt's")
        XCTAssertEqual(events[1].requestRecord.exposedFields, ["url"])
        XCTAssertEqual(events[3].requestRecord.exposedFields, ["url"], "the terminal event's record, with the body seen, too")
        XCTAssertEqual(events[3].requestBodyByteCount, 22)
    }

    func testAPolicysCorrelationHeaderThatIsNoTokenFailsTheRequestBeforeAnyTransportSeesIt() async throws {
        var policy = HTTPCorePolicy.debug
        policy.correlationHeaderName = "X Correlation ID"
        for middlewares in [[], [PassThroughMiddleware()]] as [[any HTTPMiddleware]] {
            let transport = MockTransport()
            let client = HTTPTransportClient(transport: transport, middlewares: middlewares, dispatcher: HTTPEventDispatcher(), policy: policy)
            do {
                _ = try await client.send(HTTPRequest(url: URL(string: "https://api.example.com/v1/items")!))
                XCTFail("sent with \(middlewares.count) middlewares")
            } catch let error as HTTPError {
                XCTAssertEqual(error.code, .invalidRequest)
            }
            XCTAssertEqual(transport.requests.count, 0)
        }
    }
}

/// Hands the request and its body on unchanged.
private struct PassThroughMiddleware: HTTPMiddleware {
    func intercept(
        _ request: HTTPRequest, body: HTTPBody?, context: HTTPMiddlewareContext, next: HTTPMiddlewareNext
    ) async throws -> (HTTPResponse.Head, HTTPBody) {
        try await next(request, body)
    }
}
