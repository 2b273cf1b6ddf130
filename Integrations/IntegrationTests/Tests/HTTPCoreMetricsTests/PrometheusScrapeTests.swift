import Foundation
import HTTPCore
import HTTPCoreObservation
import HTTPCoreMetrics
import HTTPCoreTesting
import Prometheus
import XCTest

@testable import CoreMetrics
import HTTPCoreLoopback
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The observer's metrics through swift-prometheus, scraped by a real Prometheus server
/// (Debian's `prometheus`, which `.ci/run` installs) and read back with its query API.
final class PrometheusScrapeTests: XCTestCase {
    func testARealPrometheusScrapesTheClientMetrics() async throws {
        guard let binary = Self.prometheusBinary() else {
            if ProcessInfo.processInfo.environment["HTTPCORE_REQUIRE_PEERS"] != nil {
                return XCTFail("prometheus is not installed (apt-get install prometheus)")
            }
            throw XCTSkip("prometheus is not installed (apt-get install prometheus); .ci/run installs it")
        }
        // Prometheus names allow no dots: the OpenTelemetry names become http_client_requests, ...
        let registry = PrometheusCollectorRegistry()
        var factory = PrometheusMetricsFactory(registry: registry)
        factory.nameAndLabelSanitizer = { name, labels in
            (name.replacingOccurrences(of: ".", with: "_"), labels.map { ($0.0.replacingOccurrences(of: ".", with: "_"), $0.1) })
        }
        // The conventions' duration buckets, keyed by the name as the sanitizer makes it.
        factory.durationHistogramBuckets["http_client_request_duration"] = MetricsObserver.durationBucketBoundaries.map {
            .nanoseconds(Int64($0 * 1e9))
        }
        factory.valueHistogramBuckets["http_client_response_body_size"] = MetricsObserver.bodySizeBucketBoundaries
        MetricsSystem.bootstrapInternal(factory)

        let dispatcher = HTTPEventDispatcher()
        dispatcher.subscribe(MetricsObserver())
        let transport = MockTransport()
        transport.enqueue(.status(200, body: Data("12345".utf8)), .status(200), .status(200, body: Data(count: 100)), .status(503))
        let client = HTTPTransportClient(transport: transport, dispatcher: dispatcher)
        for index in 0..<4 {
            _ = try await client.send(HTTPRequest(url: URL(string: "https://api.example.com/orders/\(index)?token=S3CR3T")!))
        }
        await dispatcher.flush()

        let target = try LoopbackHTTPServer()
        defer { target.stop() }
        let (scrapes, scraped) = AsyncStream.makeStream(of: Void.self)
        target.route("/metrics") { _ in
            scraped.yield()
            var response = LoopbackResponse.text(registry.emitToString())
            response.headers.set(name: "Content-Type", value: "text/plain; version=0.0.4")
            return response
        }
        let prometheus = try PrometheusProcess(binary: binary, scraping: "127.0.0.1:\(target.port)")
        defer { prometheus.stop() }
        // Prometheus commits a scrape's samples before it starts the next scrape: once the
        // second scrape has begun, the first one's samples answer queries.
        try await Self.awaitScrapes(2, from: scrapes, timeout: 60)

        let ok = try await prometheus.value(
            of: #"http_client_requests{http_request_method="GET",http_response_status_class="2xx",server_address="api.example.com"}"#
        )
        XCTAssertEqual(ok, "3")
        let failed = try await prometheus.value(of: #"http_client_requests{http_response_status_class="5xx",error_type="503"}"#)
        XCTAssertEqual(failed, "1")
        let durations = try await prometheus.value(of: "sum(http_client_request_duration_count)")
        XCTAssertEqual(durations, "4")
        // 14 boundaries and +Inf for each of the two outcomes seen (2xx, 5xx).
        let durationBuckets = try await prometheus.value(of: "count(http_client_request_duration_bucket)")
        XCTAssertEqual(durationBuckets, "30")
        let withinTenSeconds = try await prometheus.value(of: #"sum(http_client_request_duration_bucket{le=~"10(\\.0)?"})"#)
        XCTAssertEqual(withinTenSeconds, "4", "the last boundary, 10 s")
        let received = try await prometheus.value(of: "sum(http_client_response_body_size_sum)")
        XCTAssertEqual(received, "105")
        let bodyBuckets = try await prometheus.value(of: "count(http_client_response_body_size_bucket)")
        XCTAssertEqual(bodyBuckets, "22", "10 boundaries and +Inf, two outcomes")
        let series = try await prometheus.get("/api/v1/series?match[]=http_client_requests")
        XCTAssertFalse(series.contains("orders") || series.contains("S3CR3T"), "no path or query in any label: \(series)")
    }

    /// Returns once `count` scrapes have reached the target; fails after `timeout` seconds.
    private static func awaitScrapes(_ count: Int, from scrapes: AsyncStream<Void>, timeout: TimeInterval) async throws {
        try await withThrowingTaskGroup(of: Bool.self) { group in
            group.addTask {
                var seen = 0
                for await _ in scrapes {
                    seen += 1
                    if seen == count { return true }
                }
                return false
            }
            group.addTask {
                try await Task.sleep(nanoseconds: UInt64(timeout * 1_000_000_000))
                return false
            }
            let scraped = try await group.next() ?? false
            group.cancelAll()
            if !scraped { throw PrometheusProcess.TimeoutError(description: "Prometheus did not scrape \(count) times within \(timeout) s") }
        }
    }

    private static func prometheusBinary() -> String? {
        ["/usr/bin/prometheus", "/usr/local/bin/prometheus", "/opt/homebrew/bin/prometheus"].first { FileManager.default.isExecutableFile(atPath: $0) }
    }
}

/// A Prometheus server on 127.0.0.1 with its storage in a temporary folder, scraping one target
/// every second.
private final class PrometheusProcess: Sendable {
    let port: UInt16
    private let process: Process
    private let folder: URL

    init(binary: String, scraping target: String) throws {
        // A free port: bind one, release it, and hand it to Prometheus.
        let probe = try LoopbackHTTPServer()
        port = probe.port
        probe.stop()
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("prometheus-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let config = """
            global:
              scrape_interval: 1s
            scrape_configs:
              - job_name: httpcore
                static_configs:
                  - targets: ["\(target)"]
            """
        try Data(config.utf8).write(to: folder.appendingPathComponent("prometheus.yml"))
        process = Process()
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = [
            "--config.file=\(folder.appendingPathComponent("prometheus.yml").path)",
            "--storage.tsdb.path=\(folder.appendingPathComponent("data").path)",
            "--web.listen-address=127.0.0.1:\(port)",
        ]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
    }

    /// The value of an instant query; fails with Prometheus's answer when it has none.
    func value(of query: String) async throws -> String {
        let encoded = query.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? query
        let answer = try await get("/api/v1/query?query=\(encoded)")
        guard let object = try? JSONSerialization.jsonObject(with: Data(answer.utf8)) as? [String: Any],
            let data = object["data"] as? [String: Any], let result = data["result"] as? [[String: Any]],
            let value = result.first?["value"] as? [Any], value.count == 2, let text = value[1] as? String
        else {
            throw QueryError(description: "no value for \(query); Prometheus answered: \(answer)")
        }
        return text
    }

    func get(_ pathAndQuery: String) async throws -> String {
        let url = URL(string: "http://127.0.0.1:\(port)\(pathAndQuery)")!
        let (data, _) = try await URLSession.shared.data(from: url)
        return String(decoding: data, as: UTF8.self)
    }

    func stop() {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        try? FileManager.default.removeItem(at: folder)
    }

    struct TimeoutError: Error, CustomStringConvertible {
        let description: String
    }

    struct QueryError: Error, CustomStringConvertible {
        let description: String
    }
}
