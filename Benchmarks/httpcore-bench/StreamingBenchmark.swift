import DevSeeObserver
import DevSeeServer
import Foundation
import HTTPCoreTestPeers
import HTTPCore
import HTTPCoreObservation
import HTTPCoreHAR
import HTTPCoreLoopback
import HTTPCoreURLSession
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Section 7: a large streamed download, bare URLSession against `URLSessionClient` with
/// `DevSeeObserver` and `HARRecorder` subscribed: throughput and peak resident memory.
///
/// Each download runs in a child process of its own (this executable with
/// `--section streaming:VARIANT:MIB`) that serves the body itself from a loopback server
/// generating it, so each peak is that download's alone. Rounds alternate the two variants.
struct StreamingBenchmark {
    let quick: Bool

    /// The ways a download is read.
    enum Variant: String, CaseIterable {
        /// URLSession with a data delegate that counts and drops each chunk.
        case bare
        /// `URLSessionClient.send(_:receive:)` reading the body chunk by chunk, with
        /// `DevSeeObserver` (to a live loopback dev-see receiver) and `HARRecorder` subscribed.
        case client
    }

    /// What one child measured; printed by it as one JSON line.
    struct Measurement: Codable {
        var variant: String
        var bytes: Int64
        var seconds: Double
        var baselineBytes: Int
        var peakBytes: Int
    }

    func run() throws -> SectionReport {
        let mebibytes = quick ? 256 : 1024
        let rounds = quick ? 1 : 3
        var measured: [Variant: [Measurement]] = [:]
        for _ in 0..<rounds {
            for variant in Variant.allCases {
                measured[variant, default: []].append(try Self.measureInChild(variant, mebibytes: mebibytes))
            }
        }
        let mebibyte = 1024.0 * 1024.0
        var report = SectionReport(
            key: "streaming",
            title: "7. Streaming: a \(mebibytes) MiB download over loopback, median of \(rounds) alternating round(s)",
            columns: [
                Column(header: "Reader", key: "reader"),
                Column(header: "MiB/s", key: "mib_per_second"),
                Column(header: "Peak above start MiB", key: "peak_growth_mib"),
            ]
        )
        var throughput: [Variant: Double] = [:]
        for variant in Variant.allCases {
            let runs = measured[variant] ?? []
            let speed = Self.median(runs.map { Double($0.bytes) / mebibyte / $0.seconds })
            let growth = Self.median(runs.map { Double($0.peakBytes - $0.baselineBytes) / mebibyte })
            throughput[variant] = speed
            report.rows.append([.text(variant.rawValue), .number(speed, decimals: 0), .number(growth, decimals: 1)])
            if variant == .client {
                report.targets.append(TargetCheck(
                    name: "streamed download peak memory above start", measured: growth, comparison: .below, limit: 64, unit: "MiB"
                ))
            }
        }
        if let bare = throughput[.bare], let client = throughput[.client], bare > 0 {
            report.targets.append(TargetCheck(
                name: "streamed download throughput vs bare URLSession", measured: client / bare, comparison: .atLeast, limit: 0.9,
                unit: "x"
            ))
        }
        report.notes = [
            "bare: a URLSession data delegate that counts and drops each chunk (no backpressure: it never needs any).",
            "client: URLSessionClient(policy: .debug).send(_:receive:) reading every chunk, DevSeeObserver posting to a loopback "
                + "DevSeeReceiver and HARRecorder subscribed (each sees the first 64 KiB, redacted, and the byte count).",
            "Each download runs in its own child process; peak = VmHWM at the end minus VmRSS after setup (ru_maxrss on Apple platforms).",
        ]
        return report
    }

    private static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        return sorted.isEmpty ? 0 : sorted[sorted.count / 2]
    }

    /// Relaunches this executable with `--section streaming:VARIANT:MIB` and decodes the
    /// line it prints.
    private static func measureInChild(_ variant: Variant, mebibytes: Int) throws -> Measurement {
        let line = try ChildProcess.run(section: "streaming:\(variant.rawValue):\(mebibytes)")
        guard let measurement = try? JSONDecoder().decode(Measurement.self, from: Data(line.utf8)) else {
            throw BenchmarkError(description: "the streaming child printed no measurement: \(line)")
        }
        return measurement
    }

    /// The child's work for `spec` (`VARIANT:MIB`): prints a ``Measurement`` as one JSON line.
    static func runChild(_ spec: Substring) async -> Int32 {
        let parts = spec.split(separator: ":")
        guard parts.count == 2, let variant = Variant(rawValue: String(parts[0])), let mebibytes = Int64(parts[1]) else {
            print("error: bad streaming spec \(spec)")
            return 2
        }
        do {
            let bytes = mebibytes << 20
            let server = try LoopbackHTTPServer()
            defer { server.stop() }
            server.route("GET", "/download", streaming: { _, writer in
                try writer.writeHead(headers: ["Content-Type": "application/octet-stream"], framing: .contentLength(bytes))
                try writer.writePattern(byteCount: bytes)
            })
            let url = server.url("/download")
            let measurement: Measurement
            switch variant {
            case .bare: measurement = try await downloadBare(url, expected: bytes)
            case .client: measurement = try await downloadThroughClient(url, expected: bytes)
            }
            print(String(decoding: try JSONEncoder().encode(measurement), as: UTF8.self))
            return 0
        } catch {
            print("error: \(error)")
            return 1
        }
    }

    private static func downloadBare(_ url: URL, expected: Int64) async throws -> Measurement {
        let counter = CountingDelegate()
        let session = URLSession(configuration: URLSessionClient.makeDefaultConfiguration(), delegate: counter, delegateQueue: nil)
        defer { session.finishTasksAndInvalidate() }
        guard let baseline = ResidentMemory.current() else { throw BenchmarkError(description: "cannot read resident memory") }
        let start = nowNanoseconds()
        let bytes = try await counter.download(url, in: session)
        let seconds = secondsSince(start)
        guard bytes == expected, let peak = ResidentMemory.peak() else {
            throw BenchmarkError(description: "bare download got \(bytes) of \(expected) bytes")
        }
        return Measurement(variant: Variant.bare.rawValue, bytes: bytes, seconds: seconds, baselineBytes: baseline, peakBytes: peak)
    }

    private static func downloadThroughClient(_ url: URL, expected: Int64) async throws -> Measurement {
        let receiver = try DevSeeReceiver()
        defer { receiver.stop() }
        let logger = BenchmarkEnvironment.makeLogger(serverURL: receiver.baseURL)
        let dispatcher = HTTPEventDispatcher()
        let har = HARRecorder()
        dispatcher.subscribe(DevSeeObserver(logger: logger))
        dispatcher.subscribe(har)
        let client = URLSessionClient(dispatcher: dispatcher, policy: .debug)
        guard let baseline = ResidentMemory.current() else { throw BenchmarkError(description: "cannot read resident memory") }
        let start = nowNanoseconds()
        let bytes = try await client.send(HTTPRequest(url: url)) { _, body in
            var count: Int64 = 0
            for try await chunk in body { count += Int64(chunk.count) }
            return count
        }
        let seconds = secondsSince(start)
        await dispatcher.flush()
        await logger.flush()
        guard bytes == expected, let peak = ResidentMemory.peak() else {
            throw BenchmarkError(description: "client download got \(bytes) of \(expected) bytes")
        }
        guard har.harDocument().count > 0, receiver.storedObjects().count == 1 else {
            throw BenchmarkError(description: "the observers did not record the download")
        }
        return Measurement(variant: Variant.client.rawValue, bytes: bytes, seconds: seconds, baselineBytes: baseline, peakBytes: peak)
    }
}

/// A session delegate that counts the bytes of one download and drops them.
private final class CountingDelegate: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    private let lock = NSLock()
    private var count: Int64 = 0
    private var completion: CheckedContinuation<Int64, any Error>?

    func download(_ url: URL, in session: URLSession) async throws -> Int64 {
        try await withCheckedThrowingContinuation { continuation in
            lock.withLock { completion = continuation }
            session.dataTask(with: url).resume()
        }
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        lock.withLock { count += Int64(data.count) }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        let (continuation, total) = lock.withLock { () -> (CheckedContinuation<Int64, any Error>?, Int64) in
            defer { completion = nil }
            return (completion, count)
        }
        if let error { continuation?.resume(throwing: error) } else { continuation?.resume(returning: total) }
    }
}
