import DevSeeObserver
import Foundation
import HTTPCore
import HTTPCoreConsole
import HTTPCoreHAR
import HTTPCoreLoopback
import HTTPCoreObservation
import HTTPCoreURLSession
import LokiObserver

/// Section `largebody`: what a 2 MiB POST's `send` costs the caller with every sink
/// subscribed (dev-see, Loki, HAR, the console), against the same call with no observer, one
/// request at a time over loopback: the time the caller waits, from `send` to its return.
///
/// Variants run in interleaved rounds, each starting with a different one, and each round's
/// time is compared with the no-observer round beside it, so drift spreads over all of them.
struct LargeBodyBenchmark {
    let requestsPerRound: Int
    let rounds: Int
    let warmupRequests: Int
    static let bodyBytes = 2 << 20

    init(quick: Bool) {
        requestsPerRound = quick ? 10 : 30
        rounds = quick ? 5 : 12
        warmupRequests = quick ? 5 : 20
    }

    func run() async throws -> SectionReport {
        var report = SectionReport(key: "largebody", title: "Large bodies: the caller's wait for a 2 MiB POST, one at a time", columns: [
            Column(header: "Variant", key: "variant"),
            Column(header: "Requests", key: "requests"),
            Column(header: "Failures", key: "failures"),
            Column(header: "Mean ms", key: "mean_ms"),
            Column(header: "Time/req vs no observer", key: "ratio_to_plain"),
        ])
        let server = try LoopbackHTTPServer()
        defer { server.stop() }
        server.route("POST", "/upload") { _ in .json(#"{"stored":true}"#) }
        let url = server.url("/upload")
        let unreachable = try BenchmarkEnvironment.unreachableServerURL()
        var json = Data(#"{"password":"hunter2","blob":""#.utf8)
        json.append(Data(repeating: UInt8(ascii: "b"), count: Self.bodyBytes))
        json.append(Data(#""}"#.utf8))
        let request = HTTPRequest(method: .post, url: url, headers: ["Content-Type": "application/json"], body: json)

        var loggers: [DevSeeLogger] = []
        var lokis: [LokiLogger] = []
        func everySink() -> HTTPEventDispatcher {
            let dispatcher = HTTPEventDispatcher()
            let devSee = BenchmarkEnvironment.makeLogger(serverURL: unreachable)
            var lokiConfiguration = LokiConfiguration(url: unreachable, app: "httpcore-bench")
            lokiConfiguration.diagnostics = { _ in }
            let loki = LokiLogger(configuration: lokiConfiguration)
            loggers.append(devSee)
            lokis.append(loki)
            dispatcher.subscribe(DevSeeObserver(logger: devSee))
            dispatcher.subscribe(LokiObserver(logger: loki))
            dispatcher.subscribe(HARRecorder())
            dispatcher.subscribe(ConsoleObserver(write: { _ in }))
            return dispatcher
        }
        let variants: [(name: String, targetRatio: Double?, client: URLSessionClient)] = [
            ("no observer", nil, URLSessionClient(session: URLSessionClient.makeDefaultSession(), dispatcher: HTTPEventDispatcher(), policy: .debug)),
            ("every sink, 64 KiB capture", 1.10, URLSessionClient(session: URLSessionClient.makeDefaultSession(), dispatcher: everySink(), policy: .debug)),
            ("every sink, 4 MiB capture", nil, URLSessionClient(
                session: URLSessionClient.makeDefaultSession(), dispatcher: everySink(),
                policy: HTTPCorePolicy(bodyCapture: .captured(maxBytes: 4 << 20))
            )),
        ]

        func batch(_ client: URLSessionClient, _ count: Int) async -> (seconds: Double, failures: Int) {
            let start = nowNanoseconds()
            var failures = 0
            for _ in 0..<count where (try? await client.send(request))?.statusCode != 200 { failures += 1 }
            return (secondsSince(start), failures)
        }
        for variant in variants { _ = await batch(variant.client, warmupRequests) }
        var seconds = Array(repeating: [Double](), count: variants.count)
        var failures = Array(repeating: 0, count: variants.count)
        for round in 0..<rounds {
            for offset in variants.indices {
                let index = (round + offset) % variants.count
                let result = await batch(variants[index].client, requestsPerRound)
                seconds[index].append(result.seconds)
                failures[index] += result.failures
            }
        }
        for (index, variant) in variants.enumerated() {
            let ratio = median(zip(seconds[index], seconds[0]).map { $0 / $1 })
            let requests = rounds * requestsPerRound
            report.rows.append([
                .text(variant.name), .integer(requests), .integer(failures[index]),
                .number(seconds[index].reduce(0, +) / Double(requests) * 1000, decimals: 2), .number(ratio, decimals: 3),
            ])
            if let limit = variant.targetRatio {
                report.targets.append(TargetCheck(
                    name: "largebody \(variant.name)", measured: ratio, comparison: .atMost, limit: limit, unit: "x no observer"
                ))
            }
        }
        report.notes = [
            "POST of \(Self.bodyBytes + 34) bytes of JSON (a password first) to a loopback server answering 15 bytes; URLSessionClient, .debug policy.",
            "Every sink: DevSeeObserver and LokiObserver with their servers down (logs buffered and dropped), HARRecorder, ConsoleObserver writing nowhere.",
            "\(rounds) interleaved rounds of \(requestsPerRound) requests per variant after \(warmupRequests) warm-up requests each;",
            "time/req vs no observer = median over rounds of the round's time / no observer's in the same round.",
        ]
        for logger in loggers { await logger.shutdown() }
        for loki in lokis { await loki.shutdown() }
        for variant in variants { variant.client.session.finishTasksAndInvalidate() }
        return report
    }
}
