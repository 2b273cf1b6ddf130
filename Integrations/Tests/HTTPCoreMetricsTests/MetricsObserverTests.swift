import Foundation
import HTTPCore
import HTTPCoreMetrics
import HTTPCoreTesting
import MetricsTestKit
import XCTest

@testable import CoreMetrics

/// Durations, counts and active requests with low-cardinality dimensions, through the
/// swift-metrics test backend.
final class MetricsObserverTests: XCTestCase {
    func testDurationCountAndActiveRequestsWithLowCardinalityDimensions() async throws {
        let metrics = TestMetrics()
        MetricsSystem.bootstrapInternal(metrics)
        let dispatcher = HTTPEventDispatcher()
        dispatcher.subscribe(MetricsObserver())
        let transport = MockTransport()
        transport.enqueue(.status(200, after: 0.01), .status(503), .failure(.transport(.cannotConnect, message: "refused")))
        let client = HTTPTransportClient(transport: transport, dispatcher: dispatcher, policy: .debug)
        for path in ["/users/42?token=S3CR3T", "/users/43", "/users/44"] {
            _ = try? await client.send(HTTPCore.HTTPRequest(url: URL(string: "https://api.example.com\(path)")!))
        }
        await dispatcher.flush()

        let ok = [("http.request.method", "GET"), ("http.response.status_class", "2xx"), ("server.address", "api.example.com"), ("error.type", "")]
        let timer = try metrics.expectTimer(MetricsObserver.durationLabel, ok)
        XCTAssertEqual(timer.values.count, 1)
        XCTAssertGreaterThanOrEqual(timer.values[0], 10_000_000, "nanoseconds, at least the 10 ms the transport took")
        XCTAssertEqual(try metrics.expectCounter(MetricsObserver.requestsLabel, ok).totalValue, 1)
        let failed = [("http.request.method", "GET"), ("http.response.status_class", "none"), ("server.address", "api.example.com"), ("error.type", "cannot_connect")]
        XCTAssertEqual(try metrics.expectCounter(MetricsObserver.requestsLabel, failed).totalValue, 1)
        let server = [("http.request.method", "GET"), ("http.response.status_class", "5xx"), ("server.address", "api.example.com"), ("error.type", "503")]
        XCTAssertEqual(try metrics.expectCounter(MetricsObserver.requestsLabel, server).totalValue, 1)
        let active = try metrics.expectMeter(MetricsObserver.activeRequestsLabel, [("http.request.method", "GET"), ("server.address", "api.example.com")])
        XCTAssertEqual(active.lastValue, 0, "three started, three ended")
        XCTAssertEqual(active.values.max(), 1)
        XCTAssertFalse(metrics.counters.contains { "\($0.dimensions)".contains("users") }, "no path in any dimension")
    }
}
