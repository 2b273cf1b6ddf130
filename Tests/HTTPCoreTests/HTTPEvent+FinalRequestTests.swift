import Foundation
import HTTPCore
import HTTPCoreObservation
import HTTPCoreTesting
import XCTest

/// The request outputs show (`HTTPEvent.finalRequest`) for an attempt that failed before a
/// response: the header fields its transport reported adding, carried on the error
/// (`HTTPError.addedRequestHeaders`), after the request's own and redacted like them.
final class HTTPEventFinalRequestTests: XCTestCase {
    private let url = URL(string: "https://api.example.com/items")!
    private let added: HTTPHeaders = ["User-Agent": "mock/1", "Accept": "*/*", "Authorization": "Bearer s3cret"]

    private func events(_ replies: MockTransport.Reply..., middlewares: [any HTTPMiddleware] = [], terminals: Int = 1) async throws -> [HTTPEvent] {
        let dispatcher = HTTPEventDispatcher()
        let recorder = RecordingObserver()
        dispatcher.subscribe(recorder)
        let transport = MockTransport()
        for reply in replies { transport.enqueue(reply) }
        let client = HTTPTransportClient(transport: transport, middlewares: middlewares, dispatcher: dispatcher, policy: .default)
        _ = try? await client.send(HTTPRequest(url: url, headers: ["Accept": "application/json"]))
        return try await recorder.waitForTerminalEvents(count: terminals)
    }

    func testAFailedExchangeShowsTheHeadersItsTransportAddedAfterItsOwn() async throws {
        let reset = HTTPError.transport(.connectionLost, message: "reset").addingRequestHeaders(added)
        let recorded = try await events(.failure(reset))
        let failed = try XCTUnwrap(recorded.last)

        XCTAssertEqual(failed.name, .requestFailed)
        XCTAssertEqual(failed.error, .transport(.connectionLost, message: "reset"))
        XCTAssertEqual(
            failed.finalRequest.headers, ["Accept": "application/json", "User-Agent": "mock/1", "Authorization": "[REDACTED]"],
            "the request's own Accept wins; the added Authorization is masked like the request's own would be"
        )
        XCTAssertEqual(failed.request.headers, ["Accept": "application/json"], "the request itself is as the caller built it")
    }

    func testEachFailedAttemptOfARetriedRequestShowsTheHeadersItsTransportAdded() async throws {
        let timedOut = HTTPError.timeout.addingRequestHeaders(["User-Agent": "mock/1"])
        let reset = HTTPError.transport(.connectionLost, message: "reset").addingRequestHeaders(["User-Agent": "mock/2"])
        let retry = RetryMiddleware(backoff: Backoff(initial: 0, maximum: 0, jitter: .none))
        let events = try await events(.failure(timedOut), .failure(reset), .failure(reset), middlewares: [retry])

        let ends = events.filter { $0.name == .requestRetried || $0.name.isTerminal }
        XCTAssertEqual(ends.map(\.name), [.requestRetried, .requestRetried, .requestFailed])
        XCTAssertEqual(ends.map(\.attempt), [1, 2, 3])
        XCTAssertEqual(ends.map { $0.finalRequest.headers["User-Agent"] }, ["mock/1", "mock/2", "mock/2"])
    }

    func testAFailureWithoutAddedHeadersShowsTheRequestAsItIs() async throws {
        let recorded = try await events(.failure(.transport(.connectionLost, message: "reset")))
        let failed = try XCTUnwrap(recorded.last)
        XCTAssertEqual(failed.finalRequest.headers, ["Accept": "application/json"])
    }

    func testTheAddedHeadersTakeNoPartInAnErrorsEqualityOrDescription() {
        let plain = HTTPError.transport(.connectionLost, message: "reset")
        let carrying = plain.addingRequestHeaders(added)
        XCTAssertEqual(carrying, plain)
        XCTAssertEqual(carrying.hashValue, plain.hashValue)
        XCTAssertEqual(carrying.description, plain.description)
        XCTAssertEqual(carrying.addedRequestHeaders, added)
        XCTAssertEqual(HTTPError.cancelled.keepingAddedRequestHeaders(of: carrying).addedRequestHeaders, added)
        XCTAssertEqual(HTTPError.cancelled.keepingAddedRequestHeaders(of: CancellationError()).addedRequestHeaders, [:])
    }
}
