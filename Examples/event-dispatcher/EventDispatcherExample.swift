import DevSeeObserver
import Foundation
import HTTPCore
import HTTPCoreTesting
import HTTPCoreURLSession

/// Counts completed exchanges by status class.
final class StatusKindCounter: HTTPObserver {
    private let counts = Locked<[String: Int]>([:])

    func handle(_ event: HTTPEvent) {
        guard event.name.isTerminal else { return }
        let key: String
        switch event.response?.status.kind {
        case .successful?: key = "2xx"
        case .clientError?: key = "4xx"
        case .serverError?: key = "5xx"
        case .informational?, .redirection?, .invalid?: key = "other"
        case nil: key = event.name == .requestCancelled ? "cancelled" : "failed"
        }
        counts.withLock { $0[key, default: 0] += 1 }
    }

    var summary: [String: Int] { counts.withLock { $0 } }
}

/// `swift run event-dispatcher`: one dispatcher, several observers, subscribed and
/// unsubscribed while requests run.
@main
struct EventDispatcherExample {
    static func main() async {
        exit(await run { print($0) })
    }

    /// Runs the example; returns the exit status. `print` receives every output line.
    static func run(print: @escaping @Sendable (String) -> Void) async -> Int32 {
        guard let api = try? DemoAPI.start(), let receiver = try? DevSeeReceiver() else {
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

        // The console observer only watches the first round.
        let console = dispatcher.subscribe(ConsoleObserver(minimumLevel: .info, write: print))
        await round(client: client, api: api)
        await dispatcher.flush()
        console.cancel()
        print("console observer unsubscribed; the next round is counted and logged only")
        await round(client: client, api: api)

        await dispatcher.flush()
        await logger.flush()
        let counts = counter.summary.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }.joined(separator: ", ")
        print("status kinds over both rounds: \(counts)")
        print("dev-see receiver stored \(receiver.storedLogs.count) logs")
        await logger.shutdown()
        return 0
    }

    /// Four concurrent calls: a 200, a 404, a 500 and one that times out.
    static func round(client: URLSessionClient, api: LoopbackHTTPServer) async {
        await withTaskGroup(of: Void.self) { group in
            for (path, timeout) in [("/users/42", 5.0), ("/missing", 5), ("/broken", 5), ("/slow", 0.2)] {
                group.addTask { _ = try? await client.send(HTTPRequest(url: api.url(path), timeout: timeout)) }
            }
        }
    }
}
