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

/// Where `HTTPObservabilityService` stands in a `ServiceGroup` decides whether the logs of the
/// exchanges a server finishes while it shuts down are delivered, or dropped and reported.
final class HTTPObservabilityServiceOrderTests: XCTestCase {
    func testListedBeforeTheServerItStopsAfterItAndDeliversTheExchangesOfItsShutdown() async throws {
        let setup = try Setup()
        defer { setup.stop() }
        try await setup.run([setup.observability, setup.server])

        XCTAssertEqual(setup.serviceReports.reports, [], "the service stopped after every exchange")
        XCTAssertEqual(setup.devSeeServer.storedObjects().count, Setup.drained)
        let lines = try await setup.lokiServer.received().lines
        XCTAssertEqual(lines.count, Setup.drained)
        for statistics in [setup.devSee.statistics, setup.loki.statistics] {
            XCTAssertEqual([statistics.delivered, statistics.dropped, statistics.droppedAfterShutdown], [Setup.drained, 0, 0])
        }
        XCTAssertEqual(setup.loggerReports.reports, [], "nothing lost, nothing reported")
    }

    func testListedAfterTheServerItSaysItStoppedTooEarlyAndTheLoggersReportEveryDroppedLog() async throws {
        let setup = try Setup()
        defer { setup.stop() }
        try await setup.run([setup.server, setup.observability])

        XCTAssertEqual(setup.serviceReports.reports, [
            HTTPDiagnostic(
                source: "HTTPObservabilityService", level: .error,
                message: "an exchange (GET api.example.com) ended after the service had shut DevSeeLogger and LokiLogger down: "
                    + "its logs were dropped, as are those of later exchanges (DevSeeLogger and LokiLogger count and report them). "
                    + "Exchanges still ran when the service stopped: list it before the services that send requests, "
                    + "since a ServiceGroup shuts its services down in reverse order",
                metadata: ["exchange": "GET api.example.com", "loggers": "DevSeeLogger and LokiLogger"]
            ),
        ], "one report, however many exchanges ended late")
        XCTAssertEqual(setup.devSeeServer.storedObjects().count, 0)
        let lines = try await setup.lokiServer.received().lines
        XCTAssertEqual(lines.count, 0)
        for statistics in [setup.devSee.statistics, setup.loki.statistics] {
            XCTAssertEqual([statistics.accepted, statistics.dropped, statistics.droppedAfterShutdown], [Setup.drained, Setup.drained, Setup.drained])
        }
        // Each logger names what it lost: the first at once, the others together (when their
        // window ends, or at the flush), so the counts add up to every exchange.
        for (source, noun) in [("DevSeeLogger", "log"), ("LokiLogger", "line")] {
            let reports = setup.loggerReports.reports.filter { $0.source == source }
            XCTAssertEqual(reports.first?.message, "1 \(noun) arrived after shutdown and was dropped")
            XCTAssertEqual(reports.compactMap { Int($0.metadata["lost"] ?? "") }.reduce(0, +), Setup.drained, "\(reports)")
            XCTAssertEqual(reports.last?.metadata["lost_after_shutdown"], String(Setup.drained))
        }
    }
}

/// Two loggers on their receivers, a dispatcher they observe, the observability service and a
/// server that finishes `drained` exchanges once told to shut down, as one does with the
/// requests under way at SIGTERM.
private struct Setup {
    static let drained = 3

    let devSeeServer: DevSeeReceiver
    let lokiServer: LokiReceiver
    let devSee: DevSeeLogger
    let loki: LokiLogger
    let dispatcher = HTTPEventDispatcher()
    let serviceReports = DiagnosticsRecorder()
    let loggerReports = DiagnosticsRecorder()
    let observability: HTTPObservabilityService
    let server: DrainingServer

    init() throws {
        devSeeServer = try DevSeeReceiver()
        lokiServer = try LokiReceiver()
        let loggerReports = loggerReports
        var devSeeConfiguration = DevSeeLoggerConfiguration(appId: "com.example.service", serverURL: devSeeServer.baseURL)
        devSeeConfiguration.isEnabled = true
        devSeeConfiguration.endpointStore = nil
        devSeeConfiguration.uploadTimeout = 60
        devSeeConfiguration.diagnostics = { loggerReports.report($0) }
        devSee = DevSeeLogger(configuration: devSeeConfiguration)
        var lokiConfiguration = LokiConfiguration(url: lokiServer.url, app: "service")
        lokiConfiguration.timeout = 60
        lokiConfiguration.diagnostics = { loggerReports.report($0) }
        loki = LokiLogger(configuration: lokiConfiguration)
        dispatcher.subscribe(DevSeeObserver(logger: devSee))
        dispatcher.subscribe(LokiObserver(logger: loki))
        let serviceReports = serviceReports
        observability = HTTPObservabilityService(
            dispatcher: dispatcher, devSeeLogger: devSee, lokiLogger: loki, diagnostics: { serviceReports.report($0) }
        )
        server = DrainingServer(client: HTTPTransportClient(transport: MockTransport(), dispatcher: dispatcher), exchanges: Self.drained)
    }

    /// Runs a group of `services` in that order and shuts it down gracefully; returns once
    /// every event reached its observers and each logger reported what it dropped.
    func run(_ services: [any Service]) async throws {
        let group = ServiceGroup(configuration: ServiceGroupConfiguration(
            services: services.map { ServiceGroupConfiguration.ServiceConfiguration(service: $0) },
            logger: Logger(label: "tests")
        ))
        let running = Task { try await group.run() }
        await group.triggerGracefulShutdown()
        try await running.value
        await dispatcher.flush()
        await devSee.flush()
        await loki.flush()
    }

    func stop() {
        devSeeServer.stop()
        lokiServer.stop()
    }
}

/// Waits for the group's graceful shutdown, then finishes `exchanges` requests and returns.
private struct DrainingServer: Service {
    let client: HTTPTransportClient<MockTransport>
    let exchanges: Int

    func run() async throws {
        try? await gracefulShutdown()
        for index in 0..<exchanges {
            _ = try await client.send(HTTPRequest(url: URL(string: "https://api.example.com/orders/\(index)")!))
        }
    }
}
