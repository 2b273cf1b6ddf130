import DevSeeObserver
import Dispatch
import Foundation
import HTTPCore
import HTTPCoreObservation
import HTTPCoreURLSession
import ExampleSupport

/// Latency, outcome by status class, and retry counters, fed by lifecycle events.
final class MetricsObserver: HTTPObserver {
    struct Snapshot: Sendable, Equatable {
        /// Exchanges that ended with a response, by status class (2 for 2xx).
        var responsesByClass: [String: Int] = [:]
        /// Exchanges without a response: refused, timed out.
        var failed = 0
        var cancelled = 0
        var retried = 0
        var totalMilliseconds = 0.0
        var completed: Int { responsesByClass.values.reduce(0, +) + failed + cancelled }
    }

    private let snapshot = Protected(Snapshot())

    func handle(_ event: HTTPEvent) {
        snapshot.update { metrics in
            switch event.step {
            case .retried:
                metrics.retried += 1
            case .succeeded(let response, let exchange):  // the status and the times redact nothing
                metrics.responsesByClass[response.status.kind.label, default: 0] += 1
                metrics.totalMilliseconds += exchange.durationMilliseconds
            case .failed(_, _, let exchange):
                metrics.failed += 1
                metrics.totalMilliseconds += exchange.durationMilliseconds
            case .cancelled(_, let exchange):
                metrics.cancelled += 1
                metrics.totalMilliseconds += exchange.durationMilliseconds
            case .created, .started, .received, .message:
                break
            }
        }
    }

    var current: Snapshot { snapshot.value }
}

/// A value shared between threads, behind a lock; the example's only use of `@unchecked`.
final class Protected<Value>: @unchecked Sendable {   // safe: `stored` is only touched under `lock`
    private let lock = NSLock()
    private var stored: Value

    init(_ value: Value) {
        stored = value
    }

    var value: Value {
        lock.lock()
        defer { lock.unlock() }
        return stored
    }

    @discardableResult
    func update<Result>(_ body: (inout Value) -> Result) -> Result {
        lock.lock()
        defer { lock.unlock() }
        return body(&stored)
    }
}

/// `swift run server-worker`: a service-style worker that fans out concurrent requests with
/// deadlines and cancellation, retries a busy route, traces each round as one W3C trace, and
/// on SIGINT or SIGTERM stops cleanly and flushes its logs.
@main
struct ServerWorker {
    static let usage = """
        usage: server-worker [--rounds N] [--requests N] [--devsee URL | --no-devsee] [--help]

          --rounds N     rounds of requests before stopping by itself (default 3; 0 runs until SIGINT/SIGTERM)
          --requests N   concurrent requests per round (default 40)
          --devsee URL   ship logs to this dev-see server (default: the paired endpoint, else http://127.0.0.1:9090)
          --no-devsee    do not ship logs
          --help         print this help
        """

    struct Options {
        var rounds = 3
        var requests = 40
        var devSeeURL: URL?
        var shipsToDevSee = true
        var showsHelp = false

        init(arguments: [String]) throws {
            var remaining = arguments[...]
            while let argument = remaining.popFirst() {
                switch argument {
                case "--rounds": rounds = try Self.count(remaining.popFirst(), for: argument)
                case "--requests": requests = max(1, try Self.count(remaining.popFirst(), for: argument))
                case "--devsee":
                    guard let value = remaining.popFirst(), let url = URL(string: value), url.host != nil else {
                        throw UsageError(description: "--devsee needs a URL")
                    }
                    devSeeURL = url
                case "--no-devsee": shipsToDevSee = false
                case "--help", "-h": showsHelp = true
                default: throw UsageError(description: "unknown argument '\(argument)'")
                }
            }
        }

        private static func count(_ value: String?, for flag: String) throws -> Int {
            guard let value, let number = Int(value), number >= 0 else {
                throw UsageError(description: "\(flag) needs a whole number")
            }
            return number
        }
    }

    struct UsageError: Error, CustomStringConvertible {
        let description: String
    }

    static func main() async {
        let options: Options
        do {
            options = try Options(arguments: Array(CommandLine.arguments.dropFirst()))
        } catch {
            FileHandle.standardError.write(Data("server-worker: \(error)\n\n\(usage)\n".utf8))
            exit(64)
        }
        if options.showsHelp {
            print(usage)
            exit(0)
        }
        let stop = StopSignal()
        let signals = installSignalHandlers(triggering: stop)
        let status = await run(options: options, stop: stop) { print($0) }
        signals.forEach { $0.cancel() }
        exit(status)
    }

    /// Turns SIGINT and SIGTERM into `stop.trigger()`. Nonisolated: the handlers run on a
    /// dispatch queue, not on the main actor.
    nonisolated static func installSignalHandlers(triggering stop: StopSignal) -> [any DispatchSourceSignal] {
        [SIGINT, SIGTERM].map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { stop.trigger() }
            source.resume()
            return source
        }
    }

    /// Runs rounds until they are done or `stop` triggers, then flushes; returns the status.
    /// `middleware`, when given, runs last on every request (tests use it to stop mid-round).
    static func run(
        options: Options,
        stop: StopSignal,
        middleware: (any HTTPMiddleware)? = nil,
        print: @escaping @Sendable (String) -> Void
    ) async -> Int32 {
        guard let api = try? DemoAPI.start() else {
            print("server-worker: could not start the demo API")
            return 1
        }
        defer { api.stop() }

        let dispatcher = HTTPEventDispatcher()
        let metrics = MetricsObserver()
        dispatcher.subscribe(metrics)
        var logger: DevSeeLogger?
        if options.shipsToDevSee {
            var configuration = DevSeeLoggerConfiguration(appId: "com.example.server-worker", serverURL: options.devSeeURL)
            configuration.isEnabled = true
            if options.devSeeURL != nil { configuration.endpointStore = nil }
            logger = DevSeeLogger(configuration: configuration)
            dispatcher.subscribe(DevSeeObserver(logger: logger!))
        }
        // Trace first, so every attempt of a request carries its trace; then retry.
        let middlewares: [any HTTPMiddleware] = [
            TraceContextMiddleware(),
            RetryMiddleware(maximumAttempts: 3, backoff: Backoff(initial: 0.05, maximum: 1)),
            DefaultHeadersMiddleware(["User-Agent": "server-worker/1.0"]),
        ] + [middleware].compactMap { $0 }
        let client = URLSessionClient(middlewares: middlewares, dispatcher: dispatcher, policy: .release)

        let work = Task {
            var round = 0
            while !Task.isCancelled, options.rounds == 0 || round < options.rounds {
                round += 1
                // One trace per round, as a job's trace would be: each request is a span of it.
                let trace = TraceContext.newTrace()
                await TraceContext.$current.withValue(trace) {
                    await fanOut(options.requests, client: client, api: api)
                }
                await dispatcher.flush()
                print("round \(round): \(metrics.current.completed) exchanges so far, trace \(trace.traceID)")
            }
        }
        stop.onTrigger {
            print("stopping: cancelling in-flight requests")
            work.cancel()
        }
        await work.value

        await dispatcher.flush()
        let snapshot = metrics.current
        let average = snapshot.completed == 0 ? 0 : snapshot.totalMilliseconds / Double(snapshot.completed)
        let responses = snapshot.responsesByClass.sorted { $0.key < $1.key }.map { "\($0.value) \($0.key)" }
        let counts = (responses.isEmpty ? ["0 responses"] : responses).joined(separator: ", ")
        print(
            "done: \(counts), \(snapshot.failed) failed, \(snapshot.cancelled) cancelled, \(snapshot.retried) attempts retried, "
                + String(format: "%.1f ms average", average)
        )
        if let logger {
            await logger.shutdown()
            print("dev-see: \(logger.statistics)")
        }
        return 0
    }

    /// `count` concurrent requests: most succeed, one in six is retried once, some hit their
    /// deadline, some are cancelled.
    static func fanOut(_ count: Int, client: URLSessionClient, api: DemoServer) async {
        await withTaskGroup(of: Void.self) { group in
            for index in 0..<count {
                let path = ["/users/42", "/users/42", "/missing", "/broken", "/slow", "/flaky"][index % 6]
                // The slow path (10 s) gets a deadline it cannot meet; the others, one that
                // a loaded machine still meets.
                let timeout: TimeInterval = path == "/slow" ? 0.3 : 30
                let call = Task { _ = try? await client.send(HTTPRequest(url: api.url(path), timeout: timeout)) }
                // Stopping the worker cancels the group, and the group cancels each call.
                group.addTask { await withTaskCancellationHandler { await call.value } onCancel: { call.cancel() } }
                if index % 7 == 6 { call.cancel() }
            }
        }
    }
}

/// A one-shot stop request: from a signal handler in the program, from a test in-process.
final class StopSignal: Sendable {
    private let state = Protected<(isTriggered: Bool, handlers: [@Sendable () -> Void])>((false, []))

    /// Runs `handler` when the signal triggers (at once if it already has).
    func onTrigger(_ handler: @escaping @Sendable () -> Void) {
        let runNow = state.update { state -> Bool in
            if state.isTriggered { return true }
            state.handlers.append(handler)
            return false
        }
        if runNow { handler() }
    }

    /// Triggers the signal once; later calls do nothing.
    func trigger() {
        let handlers = state.update { state -> [@Sendable () -> Void] in
            guard !state.isTriggered else { return [] }
            state.isTriggered = true
            defer { state.handlers = [] }
            return state.handlers
        }
        handlers.forEach { $0() }
    }
}
