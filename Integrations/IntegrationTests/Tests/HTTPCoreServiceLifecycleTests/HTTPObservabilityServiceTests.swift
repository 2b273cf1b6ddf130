import DevSeeObserver
import DevSeeServer
import Foundation
import HTTPCore
import HTTPCoreObservation
import HTTPCoreServiceLifecycle
import HTTPCoreTestPeers
import HTTPCoreTesting
import Logging
import LokiObserver
import ServiceLifecycle
import XCTest

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A `ServiceGroup` that receives SIGTERM while the dev-see and Loki loggers still hold logs:
/// every accepted log reaches its server before the group's `run()` returns.
final class HTTPObservabilityServiceTests: XCTestCase {
    func testASigtermDeliversEveryAcceptedLogBeforeTheGroupEnds() async throws {
        let exchanges = 50
        let devSeeServer = try DevSeeReceiver()
        defer { devSeeServer.stop() }
        // Each dev-see upload is answered after 20 ms, one at a time: the uploads are still
        // under way when the signal arrives.
        devSeeServer.script(Array(repeating: .delay(0.02), count: exchanges))
        var devSeeConfiguration = DevSeeLoggerConfiguration(appId: "com.example.service", serverURL: devSeeServer.baseURL)
        devSeeConfiguration.isEnabled = true
        devSeeConfiguration.endpointStore = nil
        devSeeConfiguration.delivery.maximumConcurrentSends = 1
        let devSee = DevSeeLogger(configuration: devSeeConfiguration)

        let lokiServer = try LokiReceiver()
        defer { lokiServer.stop() }
        var lokiConfiguration = LokiConfiguration(url: lokiServer.url, app: "service")
        // Lines wait ten minutes for a full batch of 1,000: only the shutdown's flush sends them.
        lokiConfiguration.delivery.batching = .init(maximumCount: 1_000, maximumDelay: 600)
        let loki = LokiLogger(configuration: lokiConfiguration)

        let dispatcher = HTTPEventDispatcher()
        dispatcher.subscribe(DevSeeObserver(logger: devSee))
        dispatcher.subscribe(LokiObserver(logger: loki))
        let workload = Workload(client: HTTPTransportClient(transport: MockTransport(), dispatcher: dispatcher), exchanges: exchanges)
        let group = ServiceGroup(configuration: ServiceGroupConfiguration(
            services: [
                .init(service: HTTPObservabilityService(dispatcher: dispatcher, devSeeLogger: devSee, lokiLogger: loki)),
                .init(service: workload),
            ],
            gracefulShutdownSignals: [.sigterm],
            logger: Logger(label: "tests")
        ))
        let running = Task { try await group.run() }

        try await waitUntil("the workload sent its requests") { workload.progress.sent }
        let pushedBefore = try await lokiServer.received().pushes
        XCTAssertEqual(pushedBefore, 0, "nothing pushed to Loki before the shutdown")
        // The group ignores SIGTERM before it starts any service and handles it once its signal
        // source is resumed: until then a signal is lost, so it is sent again until the
        // workload sees the shutdown (a minute bounds a hang).
        let deadline = Date().addingTimeInterval(60)
        while !workload.progress.shutdownSeen, Date() < deadline {
            kill(getpid(), SIGTERM)
            try? await waitUntil(timeout: 0.2, "the workload saw the shutdown") { workload.progress.shutdownSeen }
        }
        XCTAssertTrue(workload.progress.shutdownSeen, "SIGTERM started the graceful shutdown")
        try await running.value

        XCTAssertEqual(devSeeServer.storedObjects().count, exchanges, "every dev-see log arrived")
        XCTAssertEqual(devSee.statistics.delivered, exchanges)
        XCTAssertEqual(devSee.statistics.dropped, 0)
        let received = try await lokiServer.received()
        XCTAssertEqual(received.lines.count, exchanges, "every Loki line arrived")
        XCTAssertEqual(loki.statistics.delivered, exchanges)
        XCTAssertEqual(loki.statistics.pending, 0)
    }
}

/// Sends its requests, then waits for the group's graceful shutdown.
private struct Workload: Service {
    let client: HTTPTransportClient<MockTransport>
    let exchanges: Int
    let progress = Progress()

    func run() async throws {
        for index in 0..<exchanges {
            _ = try await client.send(HTTPRequest(url: URL(string: "https://api.example.com/orders/\(index)")!))
        }
        progress.sent = true
        try? await gracefulShutdown()
        progress.shutdownSeen = true
    }
}

/// How far the workload got, read by the test while the group runs.
private final class Progress: @unchecked Sendable {   // safe: the flags are touched only under `lock`
    private let lock = NSLock()
    private var flags = (sent: false, shutdownSeen: false)

    var sent: Bool {
        get { lock.withLock { flags.sent } }
        set { lock.withLock { flags.sent = newValue } }
    }

    var shutdownSeen: Bool {
        get { lock.withLock { flags.shutdownSeen } }
        set { lock.withLock { flags.shutdownSeen = newValue } }
    }
}
