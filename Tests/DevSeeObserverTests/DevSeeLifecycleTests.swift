import DevSeeObserver
import Foundation
import HTTPCore
import HTTPCoreObservation
import HTTPCoreTesting
import XCTest
import DevSeeServer
import HTTPCoreConcurrency
import HTTPCoreLoopback
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Lifecycle edges: shutdown, endpoint switches, the center.
final class DevSeeLifecycleTests: XCTestCase {
    func testShutdownWhileRetryingEndsAndCountsEverything() async throws {
        let receiver = try DevSeeReceiver()
        defer { receiver.stop() }
        receiver.script(Array(repeating: .status(503), count: 20))
        let harness = LoggerHarness(receiver: receiver) { $0.delivery.backoff.initial = 5; $0.delivery.backoff.maximum = 5; $0.delivery.maximumRetries = 10 }
        await harness.logger.log(request: request(), response: response(200))
        try await receiver.waitForPosts(count: 1)
        let shutdown = Task { await harness.logger.shutdown() }
        await shutdown.value
        await harness.logger.log(request: request(), response: response(200))
        await harness.logger.flush()
        let statistics = harness.logger.statistics
        XCTAssertEqual(statistics.accepted, 2)
        XCTAssertEqual(statistics.delivered, 0)
        XCTAssertEqual(statistics.failed + statistics.dropped, 2)
        XCTAssertEqual(statistics.pending, 0)
        XCTAssertTrue(statistics.isBalanced)
    }

    func testALogAfterShutdownIsDroppedCountedAndReportedAsALostLog() async throws {
        let receiver = try DevSeeReceiver()
        defer { receiver.stop() }
        let harness = LoggerHarness(receiver: receiver)
        await harness.logger.log(request: request("GET", "https://a.example/before"), response: response(200))
        await harness.logger.shutdown()
        await harness.logger.log(request: request("GET", "https://a.example/after"), response: response(200))
        await harness.logger.flush()   // returns after the reports made before it

        XCTAssertEqual(harness.reports.withLock { $0 }, [
            HTTPDiagnostic(
                source: "DevSeeLogger", level: .error, message: "1 log arrived after shutdown and was dropped",
                metadata: ["lost": "1", "lost_after_shutdown": "1"]
            ),
        ])
        let statistics = harness.logger.statistics
        XCTAssertEqual([statistics.delivered, statistics.dropped, statistics.droppedAfterShutdown], [1, 1, 1])
        XCTAssertEqual(receiver.storedObjects().compactMap { $0["url"] as? String }, ["https://a.example/before"])
    }

    func testPairingSwitchesAnEnabledLoggerToTheNewServerAtOnce() async throws {
        let receiver = try DevSeeReceiver()
        defer { receiver.stop() }
        let closed = try LoopbackHTTPServer()
        let unreachable = closed.baseURL
        closed.stop()
        let harness = LoggerHarness(receiver: receiver) {
            $0.serverURL = unreachable
            $0.delivery.backoff.initial = 30
            $0.delivery.backoff.maximum = 30
        }
        await harness.logger.log(request: request("GET", "https://a.example/before"), response: response(200))
        try await harness.waitForDiagnostic(containing: "unreachable")
        let link = URL(string: "dev-see-com.example.tests://connect?server_ip=127.0.0.1&server_port=\(receiver.port)")!
        XCTAssertEqual(harness.logger.connectionResult(for: link), .connected(DevSeeEndpoint(host: "127.0.0.1", port: Int(receiver.port))))
        await harness.logger.log(request: request("GET", "https://a.example/after"), response: response(200))
        try await receiver.waitForLogs(count: 2)
        XCTAssertEqual(Set(receiver.storedObjects().compactMap { $0["url"] as? String }), [
            "https://a.example/before", "https://a.example/after",
        ], "the log kept while offline goes to the new server too")
    }

    func testDefaultObserverFollowsTheCenterConfiguredLater() async throws {
        let receiver = try DevSeeReceiver()
        defer { receiver.stop() }
        let observer = DevSeeObserver()
        var configuration = DevSeeLoggerConfiguration(appId: "com.example.later", serverURL: receiver.baseURL)
        configuration.isEnabled = true
        configuration.endpointStore = InMemoryEndpointStore()
        DevSeeLoggerCenter.configure(configuration)
        let dispatcher = HTTPEventDispatcher()
        dispatcher.subscribe(observer)
        _ = try await HTTPTransportClient(transport: MockTransport(), dispatcher: dispatcher).send(HTTPRequest(url: URL(string: "https://a.example/x")!))
        await dispatcher.flush()
        await DevSeeLoggerCenter.shared.flush()
        XCTAssertEqual(receiver.storedObjects().first?["appId"] as? String, "com.example.later")
        XCTAssertTrue(observer.logger === DevSeeLoggerCenter.shared)
    }
}
