import DevSeeObserver
import Foundation
import HTTPCore
import HTTPCoreObservation
import HTTPCoreConsole
import HTTPCoreURLSession
import ExampleSupport

/// Counts completed exchanges by status class.
final class StatusKindCounter: HTTPObserver, @unchecked Sendable {   // safe: `counts` is only touched under `lock`
    private let lock = NSLock()
    private var counts: [String: Int] = [:]

    func handle(_ event: HTTPEvent) {
        let key: String
        switch event.step {
        case .succeeded(let response, _):
            // The status code alone costs no redaction of headers or body.
            switch response.status.kind {
            case .successful: key = "2xx"
            case .clientError: key = "4xx"
            case .serverError: key = "5xx"
            case .informational, .redirection, .invalid: key = "other"
            }
        case .failed: key = "failed"
        case .cancelled: key = "cancelled"
        case .created, .started, .received, .message, .retried: return
        }
        lock.lock()
        counts[key, default: 0] += 1
        lock.unlock()
    }

    var summary: [String: Int] {
        lock.lock()
        defer { lock.unlock() }
        return counts
    }

    /// `2xx: 2, 4xx: 1, ...`, by key.
    var summaryLine: String {
        summary.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }.joined(separator: ", ")
    }
}

/// `swift run event-dispatcher`: one dispatcher, several observers, subscribed and
/// unsubscribed while a request is in flight.
@main
struct EventDispatcherExample {
    static let usage = """
        usage: event-dispatcher [--help]

          One dispatcher, several observers, subscribed and unsubscribed while requests run against
          a loopback demo API.
        """

    static func main() async {
        let arguments = CommandLine.arguments.dropFirst()
        if arguments.contains("--help") || arguments.contains("-h") {
            print(usage)
            exit(0)
        }
        guard arguments.isEmpty else {
            FileHandle.standardError.write(Data("event-dispatcher: unknown argument '\(arguments.first!)'\n\n\(usage)\n".utf8))
            exit(64)
        }
        exit(await run { print($0) })
    }

    /// Runs the example; returns the exit status. `print` receives every output line.
    static func run(print: @escaping @Sendable (String) -> Void) async -> Int32 {
        guard let api = try? DemoAPI.start(), let receiver = try? DemoDevSee() else {
            print("event-dispatcher: could not start the loopback servers")
            return 1
        }
        defer {
            api.stop()
            receiver.stop()
        }
        var configuration = DevSeeLoggerConfiguration(appId: "com.example.event-dispatcher", serverURL: receiver.baseURL)
        configuration.isEnabled = true
        configuration.endpointStore = nil
        let logger = DevSeeLogger(configuration: configuration)

        let dispatcher = HTTPEventDispatcher()
        let client = URLSessionClient(dispatcher: dispatcher, policy: .debug)
        let counter = StatusKindCounter()
        dispatcher.subscribe(counter)
        dispatcher.subscribe(DevSeeObserver(logger: logger))
        let console = dispatcher.subscribe(ConsoleObserver(minimumLevel: .info, write: print))

        // Round one: a slow call starts, observers come and go while it runs.
        let slow = Task { _ = try? await client.send(HTTPRequest(url: api.url("/slow"), timeout: 1)) }
        let late = StatusKindCounter()
        dispatcher.subscribe(late)
        for path in ["/users/42", "/missing", "/broken"] {
            _ = try? await client.send(HTTPRequest(url: api.url(path)))
        }
        await dispatcher.flush()
        console.cancel()
        print("console observer unsubscribed while /slow is still in flight")
        await slow.value

        // Round two: the same calls, concurrently; counted and logged, not printed.
        await withTaskGroup(of: Void.self) { group in
            for (path, timeout) in [("/users/42", 5.0), ("/missing", 5), ("/broken", 5), ("/slow", 0.3)] {
                group.addTask { _ = try? await client.send(HTTPRequest(url: api.url(path), timeout: timeout)) }
            }
        }

        await dispatcher.flush()
        await logger.flush()
        print("status kinds over both rounds: \(counter.summaryLine)")
        print("the observer subscribed after /slow started saw \(late.summary.values.reduce(0, +)) exchanges end")
        print("dev-see receiver stored \(receiver.storedLogCount) logs")
        await logger.shutdown()
        return 0
    }
}
