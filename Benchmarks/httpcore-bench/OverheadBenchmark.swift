import DevSeeObserver
import Foundation
import HTTPCore
import HTTPCoreObservation
import HTTPCoreURLSession
import HTTPCoreLoopback
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Section 1: the time per request of `URLSessionClient`, with and without observers,
/// against the same GET through a bare `URLSession`, on one loopback server.
///
/// Variants run in interleaved rounds, each round starting with a different variant, so
/// drift (CPU frequency, the server's thread pool) spreads over all of them.
struct OverheadBenchmark {
    let requestsPerRound: Int
    let rounds: Int
    let warmupRequests: Int
    let concurrencies = [1, 8]

    init(quick: Bool) {
        requestsPerRound = quick ? 200 : 1_000
        rounds = quick ? 3 : 12
        warmupRequests = quick ? 100 : 300
    }

    /// One way of performing the benchmark's GET; `perform` returns whether it got a 200.
    private struct Variant: Sendable {
        let name: String
        /// The most time per request allowed relative to bare, when the variant has a target.
        let targetRatio: Double?
        let perform: @Sendable () async -> Bool
    }

    /// Time and failures accumulated by one variant over every round.
    private struct Totals {
        var requests = 0
        var roundSeconds: [Double] = []
        var latencySeconds = 0.0
        var failures = 0
        var seconds: Double { roundSeconds.reduce(0, +) }
    }

    func run() async throws -> SectionReport {
        var report = SectionReport(key: "overhead", title: "1. Stack overhead: GET of a ~100-byte JSON body over loopback", columns: [
            Column(header: "Variant", key: "variant"),
            Column(header: "Concurrency", key: "concurrency"),
            Column(header: "Requests", key: "requests"),
            Column(header: "Failures", key: "failures"),
            Column(header: "req/s", key: "requests_per_second"),
            Column(header: "Mean latency µs", key: "mean_latency_us"),
            Column(header: "Time/req vs bare", key: "ratio_to_bare"),
        ])
        for concurrency in concurrencies {
            try await measure(concurrency: concurrency, into: &report)
        }
        report.notes = [
            "Stack variants: URLSessionClient(session: makeDefaultSession(), policy: .debug), each with its own dispatcher and session.",
            "Bare: URLSession with the same ephemeral configuration, no delegate, completion-handler dataTask.",
            "DevSee: DevSeeObserver whose logger points at a stopped loopback port (server down, logs buffered and dropped).",
            "\(rounds) interleaved rounds of \(requestsPerRound) requests per variant after \(warmupRequests) warm-up requests; "
                + "req/s and latency over all rounds;",
            "time/req vs bare = median over rounds of the round's wall time / bare's in the same round (1.05 = 5% slower).",
        ]
        return report
    }

    /// Runs every variant at one concurrency and appends its rows and targets to `report`.
    private func measure(concurrency: Int, into report: inout SectionReport) async throws {
        let server = try LoopbackHTTPServer()
        defer { server.stop() }
        let body = #"{"id":42,"name":"Roy Kent","email":"roy@example.com","team":"AFC Richmond","active":true,"n":7}"#
        server.route("GET", "/item") { _ in .json(body) }
        let url = server.url("/item")

        let bareSession = BenchmarkEnvironment.makeBareSession()
        let bare = Variant(name: "bare URLSession", targetRatio: nil) {
            let result = try? await BenchmarkEnvironment.bareDataTask(bareSession, URLRequest(url: url))
            return result?.status == 200
        }
        let plain = HTTPEventDispatcher()
        let noOp = HTTPEventDispatcher()
        noOp.subscribe { _ in }
        let devSee = HTTPEventDispatcher()
        let logger = BenchmarkEnvironment.makeLogger(serverURL: try BenchmarkEnvironment.unreachableServerURL())
        devSee.subscribe(DevSeeObserver(logger: logger))
        let stacks: [(name: String, targetRatio: Double?, dispatcher: HTTPEventDispatcher)] = [
            ("stack, no observer", 1.05, plain), ("stack, no-op observer", nil, noOp), ("stack, DevSeeObserver", 1.10, devSee),
        ]
        let clients = stacks.map { URLSessionClient(session: URLSessionClient.makeDefaultSession(), dispatcher: $0.dispatcher, policy: .debug) }
        let variants = [bare] + zip(stacks, clients).map { stack, client in
            Variant(name: stack.name, targetRatio: stack.targetRatio) {
                (try? await client.send(HTTPRequest(url: url)))?.statusCode == 200
            }
        }

        for variant in variants {
            _ = await Self.runBatch(variant, requests: warmupRequests, concurrency: concurrency)
        }
        var totals = Array(repeating: Totals(), count: variants.count)
        for round in 0..<rounds {
            for offset in variants.indices {
                let index = (round + offset) % variants.count
                let batch = await Self.runBatch(variants[index], requests: requestsPerRound, concurrency: concurrency)
                totals[index].requests += requestsPerRound
                totals[index].roundSeconds.append(batch.seconds)
                totals[index].latencySeconds += batch.latencySeconds
                totals[index].failures += batch.failures
            }
        }

        let bareRounds = totals[0].roundSeconds
        for (variant, total) in zip(variants, totals) {
            let timePerRequest = total.seconds / Double(max(1, total.requests))
            // Each round's time against bare's in the same round; the median ignores a round
            // disturbed by something else on the machine.
            let ratio = median(zip(total.roundSeconds, bareRounds).map { $0 / $1 })
            report.rows.append([
                .text(variant.name), .integer(concurrency), .integer(total.requests), .integer(total.failures),
                .number(1 / timePerRequest, decimals: 0),
                .number(total.latencySeconds / Double(max(1, total.requests)) * 1e6, decimals: 1),
                .number(ratio, decimals: 3),
            ])
            if let limit = variant.targetRatio {
                report.targets.append(TargetCheck(
                    name: "overhead \(variant.name), concurrency \(concurrency)",
                    measured: ratio, comparison: .atMost, limit: limit, unit: "x bare"
                ))
            }
        }
        await logger.shutdown()
        bareSession.finishTasksAndInvalidate()
        for client in clients { client.session.finishTasksAndInvalidate() }
    }

    /// Performs `requests` requests with `concurrency` closed-loop workers; returns the wall
    /// time, the sum of per-request latencies and the number of failed requests.
    private static func runBatch(
        _ variant: Variant,
        requests: Int,
        concurrency: Int
    ) async -> (seconds: Double, latencySeconds: Double, failures: Int) {
        let start = nowNanoseconds()
        let perWorker = await withTaskGroup(of: (Double, Int).self) { group in
            for worker in 0..<concurrency {
                // Spread the remainder so exactly `requests` requests are made.
                let count = requests / concurrency + (worker < requests % concurrency ? 1 : 0)
                group.addTask {
                    var latency = 0.0
                    var failures = 0
                    for _ in 0..<count {
                        let requestStart = nowNanoseconds()
                        if await !variant.perform() { failures += 1 }
                        latency += secondsSince(requestStart)
                    }
                    return (latency, failures)
                }
            }
            return await group.reduce(into: [(Double, Int)]()) { $0.append($1) }
        }
        return (secondsSince(start), perWorker.reduce(0) { $0 + $1.0 }, perWorker.reduce(0) { $0 + $1.1 })
    }
}
