#if canImport(Darwin)
import Darwin
#endif
import DevSeeObserver
import ExampleSupport
import Foundation
import HTTPCore
import HTTPCoreObservation
import HTTPCoreHAR
import HTTPCoreURLSession

/// `swift run streaming`: a streamed download or a server-sent event stream from the loopback
/// demo API, through `URLSessionClient` with dev-see and HAR observers subscribed.
@main
struct StreamingExample {
    static let usage = """
        usage: streaming --download MIB | --sse [--devsee URL]

        Starts the loopback demo API and streams from it through URLSessionClient, with a
        DevSeeObserver and a HARRecorder subscribed.

          --download MIB  streams MIB MiB from /download, then prints MiB/s and the peak
                          resident memory of this process
          --sse           prints each server-sent event of /events with its arrival time, as it comes
          --devsee URL    the dev-see server (default: the paired endpoint, else http://127.0.0.1:9090)
          --help          this text
        """

    enum Mode: Equatable {
        case download(mebibytes: Int)
        case serverSentEvents
        case help
    }

    struct Options: Equatable {
        var mode: Mode?
        var devSeeURL: URL?

        init(arguments: [String]) throws {
            var remaining = arguments[...]
            while let argument = remaining.popFirst() {
                switch argument {
                case "--help", "-h": mode = .help
                case "--sse": mode = .serverSentEvents
                case "--download":
                    guard let value = remaining.popFirst(), let mebibytes = Int(value), (1...1_048_576).contains(mebibytes) else {
                        throw UsageError("--download needs a count of MiB such as 1024")
                    }
                    mode = .download(mebibytes: mebibytes)
                case "--devsee":
                    guard let value = remaining.popFirst(), let url = URL(string: value), url.host != nil else {
                        throw UsageError("--devsee needs a URL such as http://127.0.0.1:9090")
                    }
                    devSeeURL = url
                default:
                    throw UsageError("unknown argument '\(argument)'")
                }
            }
            guard mode != nil else { throw UsageError("say --download MIB or --sse") }
        }
    }

    struct UsageError: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    static func main() async {
        let status = await run(arguments: Array(CommandLine.arguments.dropFirst()), print: lineWriter(to: .standardOutput))
        exit(status)
    }

    /// Writes each line to `handle` at once, with one `write` and no buffer, also when it is
    /// a pipe (`swift run streaming --sse | tee log`), where `print` would hold the lines in
    /// stdio's buffer until exit: the events show as they arrive.
    static func lineWriter(to handle: FileHandle) -> @Sendable (String) -> Void {
        { line in handle.write(Data((line + "\n").utf8)) }
    }

    /// Runs the example and returns the exit status; `print` receives every output line.
    static func run(arguments: [String], print: @escaping @Sendable (String) -> Void) async -> Int32 {
        let options: Options
        do {
            options = try Options(arguments: arguments)
        } catch {
            print("streaming: \(error)\n\n\(usage)")
            return 64
        }
        guard let mode = options.mode, mode != .help else {
            print(usage)
            return 0
        }

        let dispatcher = HTTPEventDispatcher()
        dispatcher.subscribe(HARRecorder())
        var configuration = DevSeeLoggerConfiguration(appId: "com.example.streaming", serverURL: options.devSeeURL)
        configuration.isEnabled = true
        configuration.diagnostics = { _ in }
        if options.devSeeURL != nil { configuration.endpointStore = nil }
        let logger = DevSeeLogger(configuration: configuration)
        dispatcher.subscribe(DevSeeObserver(logger: logger))
        let client = URLSessionClient(dispatcher: dispatcher)

        let status: Int32
        do {
            let api = try DemoAPI.start()
            defer { api.stop() }
            switch mode {
            case .download(let mebibytes): try await download(mebibytes, from: api, with: client, print: print)
            case .serverSentEvents: try await printEvents(from: api, with: client, print: print)
            case .help: break
            }
            status = 0
        } catch {
            print("streaming: \(error)")
            status = 1
        }
        await dispatcher.flush()
        await logger.flush()
        await logger.shutdown()
        return status
    }

    /// Streams `mebibytes` MiB, counting them as they pass, and prints the rate and peak memory.
    static func download(
        _ mebibytes: Int, from api: DemoServer, with client: URLSessionClient, print: @Sendable (String) -> Void
    ) async throws {
        let started = ContinuousClock.now
        let request = HTTPRequest(url: api.url("/download?mib=\(mebibytes)"), timeout: 3_600)
        let byteCount = try await client.send(request) { _, body in
            var count = 0
            for try await chunk in body { count += chunk.count }
            return count
        }
        let elapsed = started.duration(to: .now)
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        let mib = Double(byteCount) / 1_048_576
        print(String(format: "downloaded %.0f MiB in %.2f s: %.1f MiB/s", mib, seconds, mib / max(seconds, 1e-9)))
        if let peak = peakResidentMebibytes() {
            print(String(format: "peak resident memory: %.1f MiB", peak))
        }
    }

    /// Prints each server-sent event of `/events` with the seconds since the request, as it
    /// arrives: `+200 ms  delta #2: , world`.
    static func printEvents(from api: DemoServer, with client: URLSessionClient, print: @Sendable (String) -> Void) async throws {
        let started = ContinuousClock.now
        try await client.send(HTTPRequest(url: api.url("/events"), timeout: 60)) { _, body in
            // The body's events, split as they arrive; each is read when the loop asks for it.
            for try await event in body.serverSentEvents(maximumEventBytes: 64 * 1024) {
                let elapsed = started.duration(to: .now)
                let milliseconds = elapsed.components.seconds * 1_000 + elapsed.components.attoseconds / 1_000_000_000_000_000
                print("+\(milliseconds) ms  \(event.event ?? "message") #\(event.id ?? "-"): \(event.data)")
            }
        }
    }

    /// The process's peak resident memory in MiB: `VmHWM` on Linux, `ru_maxrss` on Darwin.
    static func peakResidentMebibytes() -> Double? {
        #if canImport(Darwin)
        var usage = rusage()
        guard getrusage(RUSAGE_SELF, &usage) == 0 else { return nil }
        return Double(usage.ru_maxrss) / 1_048_576    // bytes on Darwin
        #else
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
            // `VmHWM:\t  123456 kB`: the number is right-aligned in 8 columns, so a large one
            // follows the tab without a space.
            let kibibytes = Double(String(line.filter(\.isNumber)))
        else { return nil }
        return kibibytes / 1_024
        #endif
    }
}
