import Foundation
import HTTPCore
import HTTPCoreObservation
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
            _ = try? await client.send(HTTPRequest(url: URL(string: "https://api.example.com\(path)")!))
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

    func testAnExchangeLeavesTheActiveRequestsMeterOfTheHostItWasCreatedForWhenAMiddlewareMovesIt() async throws {
        let metrics = TestMetrics()
        MetricsSystem.bootstrapInternal(metrics)
        let dispatcher = HTTPEventDispatcher()
        dispatcher.subscribe(MetricsObserver())
        let moved = HostRewritingMiddleware(host: "eu.api.example.com")
        let client = HTTPTransportClient(transport: MockTransport(), middlewares: [moved], dispatcher: dispatcher)
        _ = try await client.send(HTTPRequest(url: URL(string: "https://api.example.com/users")!))
        await dispatcher.flush()

        let original = try metrics.expectMeter(MetricsObserver.activeRequestsLabel, [("http.request.method", "GET"), ("server.address", "api.example.com")])
        XCTAssertEqual(original.values, [1, 0], "up at created, back down at the end, on the same meter")
        XCTAssertEqual(metrics.meters.count, 1, "no meter for the host the middleware moved the request to: \(metrics.meters.map(\.dimensions))")
        let ok = [("http.request.method", "GET"), ("http.response.status_class", "2xx"), ("server.address", "eu.api.example.com"), ("error.type", "")]
        XCTAssertEqual(try metrics.expectCounter(MetricsObserver.requestsLabel, ok).totalValue, 1, "the outcome is the host that answered")
    }

    func testTheSameRequestInFlightTwiceLeavesItsMetersFirstInFirstOut() throws {
        let metrics = TestMetrics()
        MetricsSystem.bootstrapInternal(metrics)
        let observer = MetricsObserver()
        let request = HTTPRequest(url: URL(string: "https://api.example.com/a")!)
        var again = request
        again.url = URL(string: "https://eu.api.example.com/a")!
        let started = Date(timeIntervalSince1970: 1_800_000_000)
        observer.handle(.requestCreated(request))
        observer.handle(.requestCreated(again))
        for _ in 0..<2 {
            let response = HTTPResponse(requestID: request.id, statusCode: 200, url: request.url)
            observer.handle(.requestSucceeded(response, to: request, startedAt: started, endedAt: started.addingTimeInterval(0.1)))
        }

        let first = try metrics.expectMeter(MetricsObserver.activeRequestsLabel, [("http.request.method", "GET"), ("server.address", "api.example.com")])
        let second = try metrics.expectMeter(MetricsObserver.activeRequestsLabel, [("http.request.method", "GET"), ("server.address", "eu.api.example.com")])
        XCTAssertEqual(first.values, [1, 0], "the first terminal event leaves the first created meter")
        XCTAssertEqual(second.values, [1, 0], "the second leaves the second, though both carry one request id")
        XCTAssertEqual(observer.untrackedActiveExchangeCount, 0)
    }

    func testAnExchangeCreatedBeyondTheActiveExchangeLimitIsLeftOffTheMeterAndCounted() async throws {
        let metrics = TestMetrics()
        MetricsSystem.bootstrapInternal(metrics)
        let diagnostics = DiagnosticsRecorder()
        let observer = MetricsObserver(maximumActiveExchanges: 1, diagnostics: diagnostics.report)
        let first = HTTPRequest(url: URL(string: "https://api.example.com/a")!)
        let second = HTTPRequest(url: URL(string: "https://api.example.com/b")!)
        let started = Date(timeIntervalSince1970: 1_800_000_000)
        observer.handle(.requestCreated(first))
        observer.handle(.requestCreated(second))
        for request in [second, first] {
            let response = HTTPResponse(requestID: request.id, statusCode: 200, url: request.url)
            observer.handle(.requestSucceeded(response, to: request, startedAt: started, endedAt: started.addingTimeInterval(0.1)))
        }

        let active = try metrics.expectMeter(MetricsObserver.activeRequestsLabel, [("http.request.method", "GET"), ("server.address", "api.example.com")])
        XCTAssertEqual(active.values, [1, 0], "the first exchange only: the second neither enters nor leaves")
        XCTAssertEqual(observer.untrackedActiveExchangeCount, 1)
        XCTAssertEqual(diagnostics.reports.map(\.source), ["MetricsObserver", "MetricsObserver"])
        XCTAssertEqual(diagnostics.reports.map(\.level), [.warning, .notice], "full when the second was created, room once the first ended")
        XCTAssertEqual(diagnostics.reports.last?.metadata["untracked"], "1")
    }

    func testBodySizesAreRecordedPerExchangeTheResponsesOnlyWhenOneArrived() async throws {
        let metrics = TestMetrics()
        MetricsSystem.bootstrapInternal(metrics)
        let dispatcher = HTTPEventDispatcher()
        dispatcher.subscribe(MetricsObserver())
        let transport = MockTransport()
        transport.enqueue(.status(201, body: Data(#"{"id":42}"#.utf8)), .failure(.transport(.cannotConnect, message: "refused")))
        let client = HTTPTransportClient(transport: transport, dispatcher: dispatcher)
        let url = URL(string: "https://api.example.com/users")!
        _ = try await client.send(HTTPRequest(method: .post, url: url, body: Data(#"{"name":"Ada"}"#.utf8)))
        _ = try? await client.send(HTTPRequest(method: .post, url: url, body: Data("abc".utf8)))
        await dispatcher.flush()

        let created = [("http.request.method", "POST"), ("http.response.status_class", "2xx"), ("server.address", "api.example.com"), ("error.type", "")]
        XCTAssertEqual(try metrics.expectRecorder(MetricsObserver.requestBodySizeLabel, created).values, [14])
        XCTAssertEqual(try metrics.expectRecorder(MetricsObserver.responseBodySizeLabel, created).values, [9])
        let failed = [("http.request.method", "POST"), ("http.response.status_class", "none"), ("server.address", "api.example.com"), ("error.type", "cannot_connect")]
        XCTAssertEqual(try metrics.expectRecorder(MetricsObserver.requestBodySizeLabel, failed).values, [3])
        XCTAssertEqual(try metrics.expectRecorder(MetricsObserver.responseBodySizeLabel, failed).values, [], "no response, no size")
    }

    func testTheBucketBoundariesAreTheConventionsAndPowersOfFour() {
        XCTAssertEqual(MetricsObserver.durationBucketBoundaries, [0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10])
        XCTAssertEqual(MetricsObserver.bodySizeBucketBoundaries, [64, 256, 1024, 4096, 16384, 65536, 262_144, 1_048_576, 4_194_304, 16_777_216])
    }

    func testHandlesAreMadeOncePerDimensionSetUpToTheLimit() async throws {
        let factory = CountingMetricsFactory()
        MetricsSystem.bootstrapInternal(factory)
        let dispatcher = HTTPEventDispatcher()
        let observer = MetricsObserver(maximumCachedDimensionSets: 2)
        dispatcher.subscribe(observer)
        let client = HTTPTransportClient(transport: MockTransport(), dispatcher: dispatcher)
        for host in ["a.example", "b.example", "c.example"] {
            for _ in 0..<5 {
                _ = try await client.send(HTTPRequest(url: URL(string: "https://\(host)/x")!))
            }
        }
        await dispatcher.flush()

        // Two hosts fit the cache: one meter, one timer, one counter and two recorders each,
        // made once. The third host's handles are made for each of its events, and still record.
        for host in ["a.example", "b.example"] {
            XCTAssertEqual(factory.made(host), ["meter": 1, "timer": 1, "counter": 1, "recorder": 2], host)
        }
        // Its meter is made once per exchange: the terminal event decrements the one its
        // created event incremented.
        XCTAssertEqual(factory.made("c.example"), ["meter": 5, "timer": 5, "counter": 5, "recorder": 10])
        let ok = [("http.request.method", "GET"), ("http.response.status_class", "2xx"), ("server.address", "c.example"), ("error.type", "")]
        XCTAssertEqual(try factory.metrics.expectCounter(MetricsObserver.requestsLabel, ok).totalValue, 5)
        XCTAssertEqual(observer.cachedDimensionSetCount, 4)
    }

    func testExchangesThatEachEndUnlikeTheOneBeforeAreEachRecordedOnTheirOwnHandles() async throws {
        let factory = CountingMetricsFactory()
        MetricsSystem.bootstrapInternal(factory)
        let dispatcher = HTTPEventDispatcher()
        dispatcher.subscribe(MetricsObserver())
        let transport = MockTransport()
        transport.enqueue(.status(200), .status(503), .status(200), .status(503), .status(200), .status(503))
        let client = HTTPTransportClient(transport: transport, dispatcher: dispatcher)
        // Each exchange ends with another status than the one before, or at another host.
        for host in ["a.example", "a.example", "b.example", "b.example", "a.example", "a.example"] {
            _ = try await client.send(HTTPRequest(url: URL(string: "https://\(host)/x")!))
        }
        await dispatcher.flush()

        for (host, count) in [("a.example", 2.0), ("b.example", 1.0)] {
            let ok = [("http.request.method", "GET"), ("http.response.status_class", "2xx"), ("server.address", host), ("error.type", "")]
            let failed = [("http.request.method", "GET"), ("http.response.status_class", "5xx"), ("server.address", host), ("error.type", "503")]
            XCTAssertEqual(try factory.metrics.expectCounter(MetricsObserver.requestsLabel, ok).totalValue, Int64(count), host)
            XCTAssertEqual(try factory.metrics.expectCounter(MetricsObserver.requestsLabel, failed).totalValue, Int64(count), host)
            let active = try factory.metrics.expectMeter(MetricsObserver.activeRequestsLabel, [("http.request.method", "GET"), ("server.address", host)])
            XCTAssertEqual(active.values, Array(repeating: [1.0, 0.0], count: Int(count) * 2).flatMap { $0 }, host)
            XCTAssertEqual(factory.made(host), ["meter": 1, "timer": 2, "counter": 2, "recorder": 4], host)
        }
    }

    func testACreatedEventTheFullActiveExchangeTableRefusesMakesNoMeter() throws {
        let factory = CountingMetricsFactory()
        MetricsSystem.bootstrapInternal(factory)
        let diagnostics = DiagnosticsRecorder()
        let observer = MetricsObserver(maximumActiveExchanges: 0, diagnostics: diagnostics.report)
        for path in ["a", "b", "c"] {
            observer.handle(.requestCreated(HTTPRequest(url: URL(string: "https://api.example.com/\(path)")!)))
        }

        XCTAssertEqual(factory.made("api.example.com"), [:], "no meter looked up or made for exchanges left off the meter")
        XCTAssertEqual(observer.untrackedActiveExchangeCount, 3)
        XCTAssertEqual(observer.cachedDimensionSetCount, 0)
        XCTAssertEqual(diagnostics.reports.map(\.level), [.warning])
    }

    func testTheMetricsFactoryMakesAMeterOutsideTheActiveExchangeTablesLock() async throws {
        let factory = CallingBackMetricsFactory()
        MetricsSystem.bootstrapInternal(factory)
        let observer = MetricsObserver()
        // The factory reads the observer's table as it makes the meter: under the table's lock,
        // that read would wait for itself.
        factory.onMakeMeter = { observer.untrackedActiveExchangeCount }
        let request = HTTPRequest(url: URL(string: "https://api.example.com/a")!)
        let finished = FinishedFlag()
        Thread.detachNewThread {
            observer.handle(.requestCreated(request))
            finished.set()
        }
        try await waitUntil("the created event is handled") { finished.isSet }

        let active = try factory.metrics.expectMeter(MetricsObserver.activeRequestsLabel, [("http.request.method", "GET"), ("server.address", "api.example.com")])
        XCTAssertEqual(active.values, [1])
        XCTAssertEqual(factory.madeMeters, 1)
        XCTAssertEqual(observer.cachedDimensionSetCount, 1)
    }
}

/// Sends every request to `host` instead of the one the caller chose, as a regional failover would.
private struct HostRewritingMiddleware: HTTPMiddleware {
    let host: String

    func intercept(
        _ request: HTTPRequest, body: HTTPBody?, context: HTTPMiddlewareContext, next: HTTPMiddlewareNext
    ) async throws -> (HTTPResponse.Head, HTTPBody) {
        var moved = request
        var components = URLComponents(url: request.url, resolvingAgainstBaseURL: false)
        components?.host = host
        moved.url = components?.url ?? request.url
        return try await next(moved, body)
    }
}

/// Swift-metrics' test backend, calling back the code under test each time it makes a meter.
private final class CallingBackMetricsFactory: MetricsFactory, @unchecked Sendable {   // safe: `callback` and `meters` are touched only under `lock`
    let metrics = TestMetrics()
    private let lock = NSLock()
    private var callback: @Sendable () -> Int = { 0 }
    private var meters = 0

    /// Called each time a meter is made, before it is returned.
    var onMakeMeter: @Sendable () -> Int {
        get { lock.withLock { callback } }
        set { lock.withLock { callback = newValue } }
    }

    /// How many meters were made.
    var madeMeters: Int { lock.withLock { meters } }

    func makeMeter(label: String, dimensions: [(String, String)]) -> MeterHandler {
        _ = onMakeMeter()
        lock.withLock { meters += 1 }
        return metrics.makeMeter(label: label, dimensions: dimensions)
    }

    func makeCounter(label: String, dimensions: [(String, String)]) -> CounterHandler {
        metrics.makeCounter(label: label, dimensions: dimensions)
    }

    func makeFloatingPointCounter(label: String, dimensions: [(String, String)]) -> FloatingPointCounterHandler {
        metrics.makeFloatingPointCounter(label: label, dimensions: dimensions)
    }

    func makeRecorder(label: String, dimensions: [(String, String)], aggregate: Bool) -> RecorderHandler {
        metrics.makeRecorder(label: label, dimensions: dimensions, aggregate: aggregate)
    }

    func makeTimer(label: String, dimensions: [(String, String)]) -> TimerHandler {
        metrics.makeTimer(label: label, dimensions: dimensions)
    }

    func destroyCounter(_ handler: CounterHandler) { metrics.destroyCounter(handler) }
    func destroyFloatingPointCounter(_ handler: FloatingPointCounterHandler) { metrics.destroyFloatingPointCounter(handler) }
    func destroyMeter(_ handler: MeterHandler) { metrics.destroyMeter(handler) }
    func destroyRecorder(_ handler: RecorderHandler) { metrics.destroyRecorder(handler) }
    func destroyTimer(_ handler: TimerHandler) { metrics.destroyTimer(handler) }
}

/// Set once by one thread, read by another.
private final class FinishedFlag: @unchecked Sendable {   // safe: `value` is touched only under `lock`
    private let lock = NSLock()
    private var value = false

    func set() { lock.withLock { value = true } }

    var isSet: Bool { lock.withLock { value } }
}
