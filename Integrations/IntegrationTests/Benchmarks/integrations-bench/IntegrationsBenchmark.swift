import AsyncHTTPClient
import DevSeeObserver
import DevSeeServer
import Foundation
import HTTPCore
import HTTPCoreObservation
import HTTPCoreAsyncHTTPClient
import HTTPCoreHAR
import HTTPCoreLoopback
import HTTPCoreTestPeers

/// `swift run -c release --package-path Integrations/IntegrationTests integrations-bench
/// [--quick]`: a large streamed download over loopback, read by bare AsyncHTTPClient and by
/// HTTPCore over it with `DevSeeObserver` and `HARRecorder` subscribed; throughput and peak
/// resident memory.
///
/// Each download runs in a child process of its own (`--section VARIANT:MIB`) that serves the
/// body itself from a loopback server generating it; rounds alternate the two readers.
@main
struct IntegrationsBenchmark {
    /// The ways a download is read.
    enum Variant: String, CaseIterable {
        /// `HTTPClient.execute` and a loop over the response body's buffers.
        case bare
        /// `HTTPTransportClient(asyncHTTPClient:)`'s `send(_:receive:)`, reading every chunk,
        /// with `DevSeeObserver` posting to a loopback receiver and `HARRecorder` subscribed.
        case client
    }

    /// What one child measured; printed by it as one JSON line.
    struct Measurement: Codable {
        var bytes: Int64
        var seconds: Double
        var baselineBytes: Int
        var peakBytes: Int
    }

    static func main() async {
        let arguments = Array(CommandLine.arguments.dropFirst())
        if arguments.count == 2, arguments[0] == "--section" {
            exit(await runChild(arguments[1]))
        }
        guard arguments.allSatisfy({ $0 == "--quick" }) else {
            print("usage: integrations-bench [--quick]")
            exit(arguments.contains { $0 == "-h" || $0 == "--help" } ? 0 : 2)
        }
        let quick = !arguments.isEmpty
        let mebibytes = quick ? 256 : 1024
        let rounds = quick ? 1 : 3
        var measured: [Variant: [Measurement]] = [:]
        do {
            for _ in 0..<rounds {
                for variant in Variant.allCases {
                    let line = try ChildProcess.run(section: "\(variant.rawValue):\(mebibytes)")
                    guard let measurement = try? JSONDecoder().decode(Measurement.self, from: Data(line.utf8)) else {
                        throw BenchmarkFailure(description: "no measurement from \(variant): \(line)")
                    }
                    measured[variant, default: []].append(measurement)
                }
            }
        } catch {
            print("FAILED: \(error)")
            exit(1)
        }
        print("# integrations-bench: a \(mebibytes) MiB streamed download over loopback, median of \(rounds) alternating round(s)\n")
        print("| Reader | MiB/s | Peak above start MiB |")
        print("|---|---|---|")
        var speeds: [Variant: Double] = [:]
        var growths: [Variant: Double] = [:]
        for variant in Variant.allCases {
            let runs = measured[variant] ?? []
            speeds[variant] = median(runs.map { Double($0.bytes) / 1_048_576 / $0.seconds })
            growths[variant] = median(runs.map { Double($0.peakBytes - $0.baselineBytes) / 1_048_576 })
            print(String(format: "| %@ | %.0f | %.1f |", variant.rawValue, speeds[variant]!, growths[variant]!))
        }
        let ratio = speeds[.client]! / max(speeds[.bare]!, 1)
        print("")
        print(String(format: "%@ streamed download throughput vs bare AsyncHTTPClient: %.2fx (target at least 0.90x)", ratio >= 0.9 ? "PASS" : "MISS", ratio))
        print(String(format: "%@ streamed download peak memory above start: %.1f MiB (target below 64 MiB)", growths[.client]! < 64 ? "PASS" : "MISS", growths[.client]!))
    }

    private static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        return sorted.isEmpty ? 0 : sorted[sorted.count / 2]
    }

    /// The child's work for `spec` (`VARIANT:MIB`): prints a ``Measurement`` as one JSON line.
    static func runChild(_ spec: String) async -> Int32 {
        let parts = spec.split(separator: ":")
        guard parts.count == 2, let variant = Variant(rawValue: String(parts[0])), let mebibytes = Int64(parts[1]) else {
            print("error: bad section \(spec)")
            return 2
        }
        let http = AsyncHTTPClient.HTTPClient(eventLoopGroupProvider: .singleton)
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
            case .bare: measurement = try await downloadBare(url, with: http)
            case .client: measurement = try await downloadThroughClient(url, with: http)
            }
            try await http.shutdown()
            guard measurement.bytes == bytes else {
                print("error: got \(measurement.bytes) of \(bytes) bytes")
                return 1
            }
            print(String(decoding: try JSONEncoder().encode(measurement), as: UTF8.self))
            return 0
        } catch {
            try? await http.shutdown()
            print("error: \(error)")
            return 1
        }
    }

    private static func downloadBare(_ url: URL, with http: AsyncHTTPClient.HTTPClient) async throws -> Measurement {
        guard let baseline = ResidentMemory.current() else { throw BenchmarkFailure(description: "no resident memory") }
        let start = DispatchTime.now().uptimeNanoseconds
        let response = try await http.execute(HTTPClientRequest(url: url.absoluteString), timeout: .seconds(600))
        var count: Int64 = 0
        for try await buffer in response.body { count += Int64(buffer.readableBytes) }
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        return Measurement(bytes: count, seconds: seconds, baselineBytes: baseline, peakBytes: ResidentMemory.peak() ?? 0)
    }

    private static func downloadThroughClient(_ url: URL, with http: AsyncHTTPClient.HTTPClient) async throws -> Measurement {
        let receiver = try DevSeeReceiver()
        defer { receiver.stop() }
        var configuration = DevSeeLoggerConfiguration(appId: "com.example.integrations-bench", serverURL: receiver.baseURL)
        configuration.isEnabled = true
        configuration.endpointStore = nil
        configuration.diagnostics = { _ in }
        let logger = DevSeeLogger(configuration: configuration)
        let dispatcher = HTTPEventDispatcher()
        let har = HARRecorder()
        dispatcher.subscribe(DevSeeObserver(logger: logger))
        dispatcher.subscribe(har)
        let client = HTTPTransportClient(asyncHTTPClient: http, dispatcher: dispatcher, policy: .debug)
        guard let baseline = ResidentMemory.current() else { throw BenchmarkFailure(description: "no resident memory") }
        let start = DispatchTime.now().uptimeNanoseconds
        let count = try await client.send(HTTPRequest(url: url)) { _, body in
            var count: Int64 = 0
            for try await chunk in body { count += Int64(chunk.count) }
            return count
        }
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        await dispatcher.flush()
        await logger.flush()
        guard !har.harDocument().isEmpty, receiver.storedObjects().count == 1 else {
            throw BenchmarkFailure(description: "the observers did not record the download")
        }
        return Measurement(bytes: count, seconds: seconds, baselineBytes: baseline, peakBytes: ResidentMemory.peak() ?? 0)
    }
}

/// A benchmark step that could not run; the message says which.
struct BenchmarkFailure: Error, CustomStringConvertible {
    let description: String
}
