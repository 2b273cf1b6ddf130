import DevSeeObserver
import Foundation
import HTTPCoreTestPeers

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Section 4: peak resident memory growth of `DevSeeLogger` while its server is down.
///
/// The logging runs in a child process (this executable with `--section memory`), so the
/// peak is not raised by what other sections allocated.
struct MemoryBenchmark {
    static let calls = 100_000
    static let bufferByteLimit = 16 * 1024 * 1024

    /// What the child process measured; printed by it as one JSON line.
    struct Measurement: Codable {
        var calls: Int
        var baselineBytes: Int
        var peakBytes: Int
        var bufferedBytes: Int
        var accepted: Int
        var dropped: Int
        var seconds: Double
    }

    /// Runs the child process and reports what it measured.
    func run() throws -> SectionReport {
        let measurement = try Self.measureInChild()
        let mebibyte = 1024.0 * 1024.0
        let growth = Double(measurement.peakBytes - measurement.baselineBytes)
        var report = SectionReport(
            key: "memory",
            title: "4. Memory: \(measurement.calls) log calls (1 KiB bodies), server down, bufferByteLimit 16 MiB",
            columns: [
                Column(header: "Calls", key: "calls"),
                Column(header: "Baseline MiB", key: "baseline_mib"),
                Column(header: "Peak MiB", key: "peak_mib"),
                Column(header: "Growth MiB", key: "growth_mib"),
                Column(header: "Growth/limit", key: "growth_to_limit"),
                Column(header: "Buffered MiB", key: "buffered_mib"),
                Column(header: "Dropped", key: "dropped"),
                Column(header: "log calls/s", key: "calls_per_second"),
            ]
        )
        report.rows.append([
            .integer(measurement.calls), .number(Double(measurement.baselineBytes) / mebibyte, decimals: 1),
            .number(Double(measurement.peakBytes) / mebibyte, decimals: 1), .number(growth / mebibyte, decimals: 1),
            .number(growth / Double(Self.bufferByteLimit), decimals: 2),
            .number(Double(measurement.bufferedBytes) / mebibyte, decimals: 1), .integer(measurement.dropped),
            .number(Double(measurement.calls) / measurement.seconds, decimals: 0),
        ])
        report.targets.append(TargetCheck(
            name: "memory growth with server down", measured: growth / mebibyte, comparison: .below, limit: 32, unit: "MiB"
        ))
        #if os(Linux)
        let source = "VmRSS before logging, VmHWM after (/proc/self/status)"
        #else
        let source = "ru_maxrss before and after logging"
        #endif
        report.notes = [
            "Measured in a child process: \(source); bufferLimit 1,000,000 so bytes are the binding limit.",
            "The baseline is taken after one logged call and a flush, so the upload session's one-time setup is not counted.",
            "Buffered = statistics.bufferedBytes after the last call; every call has its own 1 KiB body buffer.",
            "For comparison, the DevSee SDK reaches 1.3 GB in this test.",
        ]
        return report
    }

    /// Relaunches this executable with `--section memory` and decodes the line it prints.
    private static func measureInChild() throws -> Measurement {
        let line = try ChildProcess.run(section: "memory")
        guard let measurement = try? JSONDecoder().decode(Measurement.self, from: Data(line.utf8)) else {
            throw BenchmarkError(description: "the memory child process printed no measurement: \(line)")
        }
        return measurement
    }

    /// The child's work: logs `calls` calls to a stopped server and prints a ``Measurement``
    /// as one JSON line. Returns the process exit status.
    static func runChild() async -> Int32 {
        do {
            let logger = BenchmarkEnvironment.makeLogger(serverURL: try BenchmarkEnvironment.unreachableServerURL()) {
                $0.delivery.bufferLimit = 1_000_000
                $0.delivery.bufferByteLimit = bufferByteLimit
            }
            let template = JSONFixture.body(bytes: 1024)
            guard let url = URL(string: "https://api.example.com/users?page=1"),
                let response = HTTPURLResponse(
                    url: url, statusCode: 200, httpVersion: "HTTP/1.1", headerFields: ["Content-Type": "application/json"]
                )
            else { throw BenchmarkError(description: "could not build the logged response") }
            let request = URLRequest(url: url)
            // One call first, so the upload session's one-time setup (and its failed
            // connection) is in the baseline rather than counted as buffer growth.
            await logger.log(request: request, response: response, responseBody: template, startedAt: Date())
            await logger.flush()
            guard let baseline = ResidentMemory.current() else { throw BenchmarkError(description: "cannot read resident memory") }

            let start = nowNanoseconds()
            for _ in 0..<calls {
                // A body of its own per call, as real responses have: writing a byte (the
                // same one) makes the copy unique, so it gets storage of its own.
                var body = template
                body[body.startIndex] = UInt8(ascii: "{")
                await logger.log(request: request, response: response, responseBody: body, startedAt: Date())
            }
            let seconds = secondsSince(start)
            guard let peak = ResidentMemory.peak() else { throw BenchmarkError(description: "cannot read resident memory") }
            let statistics = logger.statistics
            let measurement = Measurement(
                calls: calls, baselineBytes: baseline, peakBytes: peak, bufferedBytes: statistics.bufferedBytes,
                accepted: statistics.accepted, dropped: statistics.dropped, seconds: seconds
            )
            print(String(decoding: try JSONEncoder().encode(measurement), as: UTF8.self))
            return 0
        } catch {
            print("error: \(error)")
            return 1
        }
    }
}
