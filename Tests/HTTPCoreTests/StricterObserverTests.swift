import Foundation
import HTTPCore
import HTTPCoreObservation
import HTTPCoreTesting
import XCTest

/// An observer that applies a stricter privacy level than the client's policy, next to one
/// that shows what the policy exposes (the PrivacyLevels article's analytics observer, as written there).
final class StricterObserverTests: XCTestCase {
    func testAnAnalyticsObserverMasksAtStrictWhatTheClientsPolicyShowsAtStandard() async throws {
        let dispatcher = HTTPEventDispatcher()
        let logging = RecordingObserver()
        dispatcher.subscribe(logging)
        let sent = AnalyticsLog()
        dispatcher.subscribe(AnalyticsObserver { sent.append($0) })
        let client = HTTPTransportClient(transport: MockTransport(), dispatcher: dispatcher)   // policy: .standard
        let url = URL(string: "https://api.example.com/search?q=coffee&token=S3CR3T")!
        _ = try await client.send(HTTPRequest(url: url, headers: ["X-Customer-Tier": "gold", "Authorization": "Bearer S3CR3T"]))
        await dispatcher.flush()

        // Logging sees what `.standard` exposes: the search term and the tier.
        let outcome = try XCTUnwrap(logging.events.last)
        XCTAssertEqual(outcome.requestURL, "https://api.example.com/search?q=coffee&token=[REDACTED]")
        XCTAssertEqual(outcome.requestHeaders["X-Customer-Tier"], "gold")
        // Analytics, at `.strict` over the same event, sees neither.
        XCTAssertEqual(sent.records, [[
            "url": "https://api.example.com/search?q=[REDACTED]&token=[REDACTED]",
            "tier": Redactor.mask,
            "status": "200",
        ]])
    }
}

/// The PrivacyLevels article's analytics observer.
struct AnalyticsObserver: HTTPObserver {
    let strict = Redactor(level: .strict)
    let send: @Sendable ([String: String]) -> Void

    func handle(_ event: HTTPEvent) {
        guard event.name.isTerminal else { return }
        send([
            "url": strict.redactedURL(string: event.requestURL),
            "tier": strict.redactedHeaders(event.requestHeaders)["X-Customer-Tier"] ?? "",
            "status": event.statusCode.map { String($0) } ?? event.errorTypeName ?? "none",
        ])
    }
}

/// What the analytics observer sent.
private final class AnalyticsLog: @unchecked Sendable {   // safe: `sent` is touched only under `lock`
    private let lock = NSLock()
    private var sent: [[String: String]] = []

    var records: [[String: String]] { lock.withLock { sent } }

    func append(_ record: [String: String]) {
        lock.withLock { sent.append(record) }
    }
}
