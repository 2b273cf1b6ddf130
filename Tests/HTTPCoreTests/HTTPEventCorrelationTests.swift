import Foundation
import HTTPCore
import HTTPCoreObservation
import HTTPCoreTesting
import XCTest

/// What `HTTPEvent.correlationID` shows, by who set the value and how the header is judged.
final class HTTPEventCorrelationTests: XCTestCase {
    private let secret = "caller-S3CRET"

    private func correlationID(header: String, callerValue: String?, redactor: Redactor) async throws -> (event: String?, sent: String?) {
        let dispatcher = HTTPEventDispatcher()
        let recorder = RecordingObserver()
        dispatcher.subscribe(recorder)
        let transport = MockTransport()
        let policy = HTTPCorePolicy(redactor: redactor, correlationHeaderName: header)
        let client = HTTPTransportClient(transport: transport, dispatcher: dispatcher, policy: policy)
        var headers: HTTPHeaders = [:]
        if let callerValue { headers.add(name: header, value: callerValue) }
        _ = try await client.send(HTTPRequest(url: URL(string: "https://api.example.com")!, headers: headers))
        let events = try await recorder.waitForTerminalEvents(count: 1)
        XCTAssertEqual(Set(events.map(\.correlationID)).count, 1, "every event shows the same")
        return (events.last?.correlationID, transport.requests.first?.headers[header])
    }

    func testACallersValueIsShownOnlyWhereTheHeaderWouldBe() async throws {
        let cases: [(header: String, redactor: Redactor, shown: Bool)] = [
            ("X-Correlation-ID", .standard, true),
            ("Authorization", .standard, false),
            ("X-Api-Key", .standard, false),
            ("X-Trace", Redactor(level: .standard, sensitiveHeaderNames: ["x-trace"]), false),
            ("X-Correlation-ID", .strict, false),
            ("X-Correlation-ID", .none, true),
        ]
        for (header, redactor, shown) in cases {
            let result = try await correlationID(header: header, callerValue: secret, redactor: redactor)
            XCTAssertEqual(result.event, shown ? secret : Redactor.mask, "\(header) at \(redactor.level)")
            XCTAssertEqual(result.sent, secret, "the request itself is untouched")
        }
    }

    func testAGeneratedValueIsAlwaysShown() async throws {
        for redactor in [Redactor.standard, .strict] {
            let result = try await correlationID(header: "X-Correlation-ID", callerValue: nil, redactor: redactor)
            XCTAssertNotNil(UUID(uuidString: result.event ?? ""), "\(redactor.level)")
            XCTAssertEqual(result.event, result.sent)
        }
    }

    // MARK: Headers the app sets itself

    private func events(
        headers: HTTPHeaders, policy: HTTPCorePolicy, middlewares: [any HTTPMiddleware] = []
    ) async throws -> [HTTPEvent] {
        let dispatcher = HTTPEventDispatcher()
        let recorder = RecordingObserver()
        dispatcher.subscribe(recorder)
        let client = HTTPTransportClient(transport: MockTransport(), middlewares: middlewares, dispatcher: dispatcher, policy: policy)
        _ = try await client.send(HTTPRequest(url: URL(string: "https://api.example.com")!, headers: headers))
        return try await recorder.waitForTerminalEvents(count: 1)
    }

    func testAnAppSetCorrelationHeaderIsReportedWithoutAPolicyHeader() async throws {
        let cases: [(HTTPHeaders, String?)] = [
            (["X-Request-ID": "req-1"], "req-1"),
            (["x-correlation-id": "c-1", "X-Request-ID": "req-1"], "c-1"),
            (["traceparent": "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"], "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"),
            (["X-Other": "o"], nil),
        ]
        for (headers, expected) in cases {
            let observed = try await self.events(headers: headers, policy: HTTPCorePolicy())
            XCTAssertEqual(observed.map(\.correlationID), Array(repeating: expected, count: observed.count), "\(headers)")
        }
    }

    func testTheReportedListIsConfigurableAndRedactedLikeTheHeader() async throws {
        var policy = HTTPCorePolicy()
        policy.reportedCorrelationHeaderNames = ["X-Amzn-Trace-Id", "X-Session-Token"]
        let custom = try await self.events(headers: ["X-Amzn-Trace-Id": "Root=1-abc", "X-Request-ID": "r"], policy: policy)
        XCTAssertEqual(custom.last?.correlationID, "Root=1-abc")
        let sensitive = try await self.events(headers: ["X-Session-Token": secret], policy: policy)
        XCTAssertEqual(sensitive.last?.correlationID, Redactor.mask)
        let strict = try await self.events(headers: ["X-Request-ID": secret], policy: HTTPCorePolicy(redactor: .strict))
        XCTAssertEqual(strict.last?.correlationID, Redactor.mask, "strict shows only that one was present")
        policy.reportedCorrelationHeaderNames = []
        let none = try await self.events(headers: ["X-Request-ID": "r"], policy: policy)
        XCTAssertEqual(none.last?.correlationID, nil)
    }

    func testATraceparentAddedByAMiddlewareIsReportedFromTheFirstAttempt() async throws {
        let trace = try XCTUnwrap(TraceContext(traceparent: "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"))
        let observed: [HTTPEvent] = try await TraceContext.$current.withValue(trace) {
            try await self.events(headers: [:], policy: HTTPCorePolicy(), middlewares: [TraceContextMiddleware()])
        }
        XCTAssertEqual(observed.first?.name, .requestCreated)
        XCTAssertNil(observed.first?.correlationID, "created shows the caller's request, before middlewares")
        let sent = try XCTUnwrap(observed.last?.request.headers["traceparent"])
        XCTAssertTrue(sent.hasPrefix("00-4bf92f3577b34da6a3ce929d0e0e4736-"))
        XCTAssertEqual(observed.dropFirst().map(\.correlationID), Array(repeating: sent, count: observed.count - 1))
    }
}
