import Foundation
import HTTPCore
import HTTPCoreObservation
import HTTPCoreTesting
import LokiObserver
import XCTest

/// Pushes go through any `HTTPTransport` given to the logger, and are never observed.
final class LokiTransportTests: XCTestCase {
    func testPushesGoThroughTheGivenTransportWithTheirHeadersAndNoEvents() async throws {
        let transport = MockTransport(default: .status(204))
        transport.enqueue(.status(503), .status(429, headers: ["Retry-After": "0"]))
        var configuration = LokiConfiguration(url: URL(string: "https://logs.example.com/")!, app: "api")
        configuration.tenantID = "team-a"
        configuration.authorization = .bearer("t0k3n")
        configuration.delivery.backoff = Backoff(initial: 0.01, maximum: 0.05, jitter: .none)
        configuration.diagnostics = { _ in }
        let logger = LokiLogger(configuration: configuration, transport: transport)
        let events = RecordingObserver()
        let subscription = HTTPEventDispatcher.shared.subscribe(events)
        defer { subscription.cancel() }

        logger.info("hello")
        await logger.flush()
        let requests = transport.requests
        XCTAssertEqual(requests.count, 3, "a 503 and a 429, each retried")
        XCTAssertEqual(requests.map(\.url.absoluteString), Array(repeating: "https://logs.example.com/loki/api/v1/push", count: 3))
        XCTAssertEqual(requests.last?.method, .post)
        XCTAssertEqual(requests.last?.headers["X-Scope-OrgID"], "team-a")
        XCTAssertEqual(requests.last?.headers["Authorization"], "Bearer t0k3n")
        XCTAssertEqual(requests.last?.headers["Content-Type"], "application/json")
        XCTAssertEqual(logger.statistics.delivered, 1)
        XCTAssertEqual(logger.statistics.retried, 2)
        await HTTPEventDispatcher.shared.flush()
        XCTAssertEqual(events.events.count, 0, "a push is not an observed exchange")
    }
}
