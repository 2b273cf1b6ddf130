import DevSeeObserver
import Foundation
import DevSeeServer
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Section 3: logs per second that `DevSeeLogger` delivers to a loopback `DevSeeReceiver`,
/// against a bare URLSession posting the same payloads one at a time, in order, as the
/// logger's ordered lane does (the viewer lists logs as they arrive), and, for reference,
/// two at a time, unordered.
///
/// Every run gets fresh receivers (they keep every stored log in memory). The bare client
/// posts payloads the logger itself produced in a warm-up run, so both send the same bytes.
struct ShippingBenchmark {
    /// One body size and how many logs each run sends.
    private struct Case {
        let label: String
        let bodyBytes: Int
        let logs: Int
    }

    private let cases: [Case]
    private let rounds: Int
    private let concurrency = DevSeeLoggerConfiguration(appId: "bench").delivery.maximumConcurrentSends

    init(quick: Bool) {
        cases = [
            Case(label: "1 KiB", bodyBytes: 1024, logs: quick ? 500 : 2_000),
            Case(label: "64 KiB", bodyBytes: 64 * 1024, logs: quick ? 80 : 300),
        ]
        rounds = quick ? 1 : 3
    }

    /// Logs delivered and the wall time of one run.
    private struct Run {
        var delivered = 0
        var seconds = 0.0
        var rate: Double { seconds > 0 ? Double(delivered) / seconds : 0 }

        /// Adds another run's logs and time.
        mutating func add(_ other: Run) {
            delivered += other.delivered
            seconds += other.seconds
        }
    }

    func run() async throws -> SectionReport {
        var report = SectionReport(key: "shipping", title: "3. Shipping throughput to a loopback DevSeeReceiver", columns: [
            Column(header: "Body", key: "body"),
            Column(header: "Client", key: "client"),
            Column(header: "Logs", key: "logs"),
            Column(header: "Delivered", key: "delivered"),
            Column(header: "Payload KiB", key: "payload_kib"),
            Column(header: "logs/s", key: "logs_per_second"),
            Column(header: "vs bare", key: "ratio_to_bare"),
        ])
        var unorderedNotes: [String] = []
        for testCase in cases {
            let body = JSONFixture.body(bytes: testCase.bodyBytes)
            let warmup = try await runLogger(body: body, count: min(testCase.logs, 100))
            let payloads = warmup.payloads
            guard !payloads.isEmpty else { throw BenchmarkError(description: "the warm-up delivered no logs") }
            _ = try await runBare(payloads: payloads, count: payloads.count, workers: 1)

            var logger = Run()
            var bare = Run()
            var unordered = Run()
            for round in 0..<rounds {
                // Alternate which client goes first, so neither always runs on a warmer machine.
                for turn in round % 2 == 0 ? [0, 1, 2] : [2, 1, 0] {
                    switch turn {
                    case 0: logger.add(try await runLogger(body: body, count: testCase.logs).run)
                    case 1: bare.add(try await runBare(payloads: payloads, count: testCase.logs, workers: 1))
                    default: unordered.add(try await runBare(payloads: payloads, count: testCase.logs, workers: concurrency))
                    }
                }
            }
            let ratio = bare.rate > 0 ? logger.rate / bare.rate : 0
            let unorderedRatio = unordered.rate > 0 ? logger.rate / unordered.rate : 0
            let payloadKiB = Double(payloads.reduce(0) { $0 + $1.count }) / Double(payloads.count) / 1024
            let logs = testCase.logs * rounds
            report.rows.append([
                .text(testCase.label), .text("DevSeeLogger"), .integer(logs), .integer(logger.delivered),
                .number(payloadKiB, decimals: 1), .number(logger.rate, decimals: 0), .number(ratio, decimals: 3),
            ])
            report.rows.append([
                .text(testCase.label), .text("bare URLSession, in order"), .integer(logs), .integer(bare.delivered),
                .number(payloadKiB, decimals: 1), .number(bare.rate, decimals: 0), .number(1, decimals: 3),
            ])
            report.rows.append([
                .text(testCase.label), .text("bare URLSession, \(concurrency) at once"), .integer(logs), .integer(unordered.delivered),
                .number(payloadKiB, decimals: 1), .number(unordered.rate, decimals: 0), .number(unordered.rate / max(bare.rate, 1), decimals: 3),
            ])
            report.targets.append(TargetCheck(
                name: "shipping \(testCase.label) DevSeeLogger vs bare in order", measured: ratio, comparison: .atLeast, limit: 0.8, unit: "x bare"
            ))
            unorderedNotes.append(
                "\(testCase.label): DevSeeLogger at \(String(format: "%.3f", unorderedRatio))x the unordered bare client"
            )
        }
        let burst = try await runBurst()
        report.rows.append([
            .text("1 KiB burst"), .text("DevSeeLogger, default buffer"), .integer(Self.burstLogs), .integer(burst.delivered),
            .number(burst.bytesPerBufferedLog / 1024, decimals: 1), .number(burst.run.rate, decimals: 0), .text("-"),
        ])
        report.targets.append(TargetCheck(
            name: "burst of \(Self.burstLogs) logs, default 16 MiB buffer: logs dropped", measured: Double(burst.dropped),
            comparison: .below, limit: 1, unit: "logs"
        ))
        report.notes = [
            "Burst: \(Self.burstLogs) calls of a 1 KiB exchange (6 request and 8 response headers) as fast as possible, default configuration; "
                + "its Payload KiB column is the buffer's accounted cost per waiting log at the peak (\(burst.dropped) dropped).",
            "DevSeeLogger: log(request:response:responseBody:startedAt:) per call, then flush(); time from the first log to the end of flush.",
            "Bare: URLSession POSTing the logger's own api_log payloads (Content-Type: application/json), one at a time "
                + "(the logger's ordered lane: the viewer lists logs as they arrive, so two uploads at once could swap them), "
                + "and \(concurrency) workers at once (delivery.maximumConcurrentSends, unordered) for reference; the target is against the first; "
                + "the second's \"vs bare\" is its rate over the first's. " + unorderedNotes.joined(separator: "; ") + ".",
            "\(rounds) alternating rounds per size after a warm-up; the logger's bufferByteLimit is raised to 256 MiB so nothing is dropped.",
            "The receiver parses and validates every payload on the same cores; with 64 KiB bodies that dominates both rates, "
                + "and the logger also redacts each body (section 5).",
        ]
        return report
    }

    /// Logs `count` calls with `body` as the response body, flushes, and returns the run and
    /// the payloads the receiver stored.
    private func runLogger(body: Data, count: Int) async throws -> (run: Run, payloads: [Data]) {
        let receiver = try DevSeeReceiver()
        defer { receiver.stop() }
        let logger = BenchmarkEnvironment.makeLogger(serverURL: receiver.baseURL) { $0.delivery.bufferByteLimit = 256 * 1024 * 1024 }
        guard let url = URL(string: "https://api.example.com/users?page=1"),
            let response = HTTPURLResponse(
                url: url, statusCode: 200, httpVersion: "HTTP/1.1", headerFields: ["Content-Type": "application/json"]
            )
        else { throw BenchmarkError(description: "could not build the logged response") }
        var request = URLRequest(url: url)
        request.setValue("application/json", forHTTPHeaderField: "Accept")

        let start = nowNanoseconds()
        for _ in 0..<count {
            await logger.log(request: request, response: response, responseBody: body, startedAt: Date())
        }
        await logger.flush()
        let seconds = secondsSince(start)
        let delivered = logger.statistics.delivered
        await logger.shutdown()
        return (Run(delivered: delivered, seconds: seconds), receiver.storedLogs)
    }

    static let burstLogs = 5_000

    /// Logs a burst with the default buffer limits and reports drops and the accounted cost
    /// per waiting log at the buffer's peak.
    private func runBurst() async throws -> (run: Run, delivered: Int, dropped: Int, bytesPerBufferedLog: Double) {
        let receiver = try DevSeeReceiver()
        defer { receiver.stop() }
        let logger = BenchmarkEnvironment.makeLogger(serverURL: receiver.baseURL)
        let url = URL(string: "https://api.example.com/v2/orders/8412?include=items&page=1")!
        var request = URLRequest(url: url)
        request.httpMethod = "POST"
        for (name, value) in [
            ("Accept", "application/json"), ("Content-Type", "application/json"), ("Authorization", "Bearer eyJhbGciOiJIUzI1NiJ9.e30.sig"),
            ("User-Agent", "MyApp/3.2 (iPhone; iOS 18.1)"), ("Accept-Language", "en-GB,en;q=0.9"), ("X-Request-ID", "9c3b1f2e-5d"),
        ] {
            request.setValue(value, forHTTPHeaderField: name)
        }
        request.httpBody = Data(#"{"items":[{"sku":"A-1","quantity":2}]}"#.utf8)
        guard let response = HTTPURLResponse(url: url, statusCode: 200, httpVersion: "HTTP/1.1", headerFields: [
            "Content-Type": "application/json; charset=utf-8", "Cache-Control": "no-store", "Date": "Mon, 23 Nov 2026 10:00:00 GMT",
            "ETag": "\"33a64df5\"", "Server": "nginx", "Vary": "Accept-Encoding", "X-Request-ID": "9c3b1f2e-5d", "Content-Length": "1024",
        ]) else { throw BenchmarkError(description: "could not build the burst response") }
        let body = JSONFixture.body(bytes: 1024)
        var peak = (bytes: 0, logs: 0)
        let start = nowNanoseconds()
        for index in 0..<Self.burstLogs {
            await logger.log(request: request, response: response, responseBody: body, startedAt: Date())
            if index % 50 == 0 {
                let statistics = logger.statistics
                if statistics.bufferedBytes > peak.bytes { peak = (statistics.bufferedBytes, statistics.pending) }
            }
        }
        await logger.flush()
        let statistics = logger.statistics
        await logger.shutdown()
        let run = Run(delivered: statistics.delivered, seconds: secondsSince(start))
        return (run, statistics.delivered, statistics.dropped, peak.logs > 0 ? Double(peak.bytes) / Double(peak.logs) : 0)
    }

    /// Posts `count` payloads (cycling through `payloads`) with `workers` workers to a fresh
    /// receiver; counts the 201 answers.
    private func runBare(payloads: [Data], count: Int, workers: Int) async throws -> Run {
        let receiver = try DevSeeReceiver()
        defer { receiver.stop() }
        let session = BenchmarkEnvironment.makeBareSession()
        defer { session.finishTasksAndInvalidate() }
        let url = receiver.baseURL.appendingPathComponent("api/logs")

        let start = nowNanoseconds()
        let delivered = await withTaskGroup(of: Int.self) { group in
            for worker in 0..<workers {
                group.addTask {
                    var stored = 0
                    for index in stride(from: worker, to: count, by: workers) {
                        var request = URLRequest(url: url)
                        request.httpMethod = "POST"
                        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
                        request.httpBody = payloads[index % payloads.count]
                        if (try? await BenchmarkEnvironment.bareDataTask(session, request))?.status == 201 { stored += 1 }
                    }
                    return stored
                }
            }
            return await group.reduce(0, +)
        }
        return Run(delivered: delivered, seconds: secondsSince(start))
    }
}
