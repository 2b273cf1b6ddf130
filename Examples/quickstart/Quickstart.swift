import DevSeeObserver
import Foundation
import HTTPCore
import HTTPCoreObservation
import HTTPCoreConsole
import HTTPCoreHAR
import HTTPCoreURLSession
import ExampleSupport

/// `swift run quickstart`: realistic calls through `URLSessionClient`, printed as redacted
/// lines, shipped to dev-see, and optionally written to a HAR file.
@main
struct Quickstart {
    static let usage = """
        usage: quickstart [URL] [--devsee URL | --no-devsee] [--privacy none|standard|strict] [--har PATH]

        With no URL, starts a loopback demo API and calls it: a JSON GET, a login POST with an
        Authorization header and a password, a 404, a 500, a timeout and a cancelled call.
        With a URL, makes one GET to it instead.

          --devsee URL    the dev-see server (default: the paired endpoint, else http://127.0.0.1:9090)
          --no-devsee     do not ship logs to dev-see
          --privacy LEVEL what logs, printed lines and the HAR file show: none, standard (default), strict
          --har PATH      also write the exchanges, redacted, to PATH as a HAR 1.2 file (for browser
                          dev tools and HAR viewers)
          --help          this text
        """

    struct Options: Equatable {
        var target: URL?
        var devSeeURL: URL?
        var shipsToDevSee = true
        var privacy: Redactor.Level = .standard
        var harPath: String?
        var showsHelp = false

        init(arguments: [String]) throws {
            var remaining = arguments[...]
            while let argument = remaining.popFirst() {
                switch argument {
                case "--help", "-h": showsHelp = true
                case "--no-devsee": shipsToDevSee = false
                case "--devsee":
                    guard let value = remaining.popFirst(), let url = URL(string: value), url.host != nil else {
                        throw UsageError("--devsee needs a URL such as http://127.0.0.1:9090")
                    }
                    devSeeURL = url
                case "--privacy":
                    guard let value = remaining.popFirst(), let level = Redactor.Level(rawValue: value) else {
                        throw UsageError("--privacy takes none, standard or strict")
                    }
                    privacy = level
                case "--har":
                    guard let value = remaining.popFirst(), !value.isEmpty, !value.hasPrefix("-") else {
                        throw UsageError("--har needs a file path such as out.har")
                    }
                    harPath = value
                default:
                    guard !argument.hasPrefix("-"), let url = URL(string: argument), url.scheme != nil else {
                        throw UsageError("unknown argument '\(argument)'")
                    }
                    target = url
                }
            }
        }
    }

    struct UsageError: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    static func main() async {
        let status = await run(arguments: Array(CommandLine.arguments.dropFirst())) { print($0) }
        exit(status)
    }

    /// Runs the example and returns the exit status; `print` receives every output line.
    static func run(arguments: [String], print: @escaping @Sendable (String) -> Void) async -> Int32 {
        let options: Options
        do {
            options = try Options(arguments: arguments)
        } catch {
            print("quickstart: \(error)\n\n\(usage)")
            return 64
        }
        if options.showsHelp {
            print(usage)
            return 0
        }

        let dispatcher = HTTPEventDispatcher()
        let policy = HTTPCorePolicy(redactor: Redactor(level: options.privacy), bodyCapture: .captured(maxBytes: 64 * 1024))
        dispatcher.subscribe(ConsoleObserver(minimumLevel: .info, format: .line, write: print))
        let recorder = options.harPath == nil ? nil : HARRecorder()
        if let recorder { dispatcher.subscribe(recorder) }
        var logger: DevSeeLogger?
        if options.shipsToDevSee {
            var configuration = DevSeeLoggerConfiguration(appId: "com.example.quickstart", serverURL: options.devSeeURL)
            configuration.isEnabled = true
            configuration.diagnostics = { _ in }
            if options.devSeeURL != nil { configuration.endpointStore = nil }
            logger = DevSeeLogger(configuration: configuration)
            dispatcher.subscribe(DevSeeObserver(logger: logger!))
        }
        let client = URLSessionClient(dispatcher: dispatcher, policy: policy)

        if let target = options.target {
            _ = try? await client.send(HTTPRequest(url: target, timeout: 30))
        } else {
            do {
                let api = try DemoAPI.start()
                defer { api.stop() }
                await callDemoAPI(api, with: client)
            } catch {
                print("quickstart: could not start the demo API: \(error)")
                return 1
            }
        }

        await dispatcher.flush()
        if let logger {
            await logger.flush()
            let statistics = logger.statistics
            if statistics.delivered == statistics.accepted {
                print("dev-see: \(statistics.delivered) logs delivered to \(logger.endpoint)")
            } else {
                print("dev-see: no viewer is running at \(logger.endpoint), so the \(statistics.accepted - statistics.delivered) logs were not shipped; "
                    + "that is expected. To see them, run `swift run devsee-tail` (or the dev-see app) in another terminal and run this again.")
            }
            await logger.shutdown()
        }
        if let recorder, let path = options.harPath {
            do {
                try recorder.write(to: URL(fileURLWithPath: path))
                print("HAR: \(recorder.entryCount) entries written to \(path)")
            } catch {
                print("quickstart: could not write the HAR file \(path): \(error)")
                return 1
            }
        }
        return 0
    }

    /// The demo calls; each prints one line through the console observer.
    static func callDemoAPI(_ api: DemoServer, with client: URLSessionClient) async {
        let json: HTTPHeaders = ["Accept": "application/json", "Authorization": "Bearer demo-access-token"]
        _ = try? await client.send(HTTPRequest(url: api.url("/users/42"), headers: json))
        _ = try? await client.send(HTTPRequest(
            method: .post,
            url: api.url("/login?client_id=quickstart&client_secret=s3cr3t"),
            headers: ["Content-Type": "application/json", "Authorization": "Basic ZGVtbzpkZW1v"],
            body: Data(#"{"username":"roy","password":"hunter2"}"#.utf8)
        ))
        _ = try? await client.send(HTTPRequest(url: api.url("/missing"), headers: json))
        _ = try? await client.send(HTTPRequest(url: api.url("/broken"), headers: json))
        _ = try? await client.send(HTTPRequest(url: api.url("/slow"), timeout: 0.5))
        let request = HTTPRequest(url: api.url("/slow"))
        let call = Task { try await client.send(request) }
        try? await Task.sleep(nanoseconds: 100_000_000)
        call.cancel()
        _ = await call.result
    }
}
