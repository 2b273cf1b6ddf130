import Foundation
import HTTPCore
import LokiObserver
import HTTPCoreLoopback

/// Section 6: what a `LokiLogger` line costs the caller, and how fast lines reach a loopback
/// receiver answering pushes as Loki does (204), with and without gzip.
struct LokiBenchmark {
    private let lines: Int
    private let rounds: Int

    init(quick: Bool) {
        lines = quick ? 5_000 : 20_000
        rounds = quick ? 1 : 3
    }

    private struct Run {
        var callNanoseconds = 0.0
        var seconds = 0.0
        var delivered = 0
        var pushes = 0
        var wireBytes = 0
    }

    func run() async throws -> SectionReport {
        var report = SectionReport(key: "loki", title: "6. LokiLogger to a loopback push receiver", columns: [
            Column(header: "Bodies", key: "bodies"),
            Column(header: "Lines", key: "lines"),
            Column(header: "Delivered", key: "delivered"),
            Column(header: "Pushes", key: "pushes"),
            Column(header: "Wire bytes/line", key: "wire_bytes_per_line"),
            Column(header: "ns per call", key: "call_ns"),
            Column(header: "lines/s", key: "lines_per_second"),
        ])
        for compresses in [false, true] {
            _ = try await runOnce(compresses: compresses, count: 1_000)
            var total = Run()
            for _ in 0..<rounds {
                let run = try await runOnce(compresses: compresses, count: lines)
                total.callNanoseconds += run.callNanoseconds / Double(rounds)
                total.seconds += run.seconds
                total.delivered += run.delivered
                total.pushes += run.pushes
                total.wireBytes += run.wireBytes
            }
            report.rows.append([
                .text(compresses ? "gzip" : "plain JSON"), .integer(lines * rounds), .integer(total.delivered), .integer(total.pushes),
                .number(Double(total.wireBytes) / Double(max(1, total.delivered)), decimals: 0),
                .number(total.callNanoseconds, decimals: 0), .number(Double(total.delivered) / total.seconds, decimals: 0),
            ])
            report.targets.append(TargetCheck(
                name: "LokiLogger.info cost per call (\(compresses ? "gzip" : "plain"))", measured: total.callNanoseconds,
                comparison: .below, limit: 5_000, unit: "ns"
            ))
        }
        report.notes = [
            "Each call: logger.info with two metadata items (redacted, rendered as logfmt, queued); ns per call is the logging loop alone.",
            "lines/s: from the first call to the end of flush(); default batching (100 entries or 1 s), one push at a time.",
            "Wire bytes/line: push bodies as sent, divided by lines delivered. \(rounds) rounds after a warm-up.",
            "The buffer is raised to 1,000,000 entries and 256 MiB: with the defaults (10,000 entries) a loop this tight outruns "
                + "the single push worker and the oldest lines are dropped and counted.",
        ]
        return report
    }

    private func runOnce(compresses: Bool, count: Int) async throws -> Run {
        let server = try LoopbackHTTPServer()
        defer { server.stop() }
        server.route("/loki/api/v1/push") { _ in LoopbackResponse(status: 204) }
        var configuration = LokiConfiguration(url: server.url("/"), app: "bench")
        configuration.compressesBodies = compresses
        configuration.diagnostics = { FileHandle.standardError.write(Data("loki: \($0)\n".utf8)) }
        // The loop logs faster than one push at a time drains: room for all, as in section 3.
        configuration.delivery.bufferLimit = 1_000_000
        configuration.delivery.bufferByteLimit = 256 * 1024 * 1024
        let logger = LokiLogger(configuration: configuration)
        let start = nowNanoseconds()
        for index in 0..<count {
            logger.info("request finished", metadata: ["path": "/v1/orders/\(index)", "status": "200"])
        }
        let callNanoseconds = Double(nowNanoseconds() - start) / Double(count)
        await logger.flush()
        let seconds = secondsSince(start)
        let statistics = logger.statistics
        if statistics.delivered != count { FileHandle.standardError.write(Data("loki: \(statistics)\n".utf8)) }
        await logger.shutdown()
        let pushes = server.requests
        return Run(
            callNanoseconds: callNanoseconds, seconds: seconds, delivered: statistics.delivered, pushes: pushes.count,
            wireBytes: pushes.reduce(0) { $0 + $1.body.count }
        )
    }
}
