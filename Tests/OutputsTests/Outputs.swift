import DevSeeObserver
import DevSeeServer
import Foundation
import HTTPCore
import HTTPCoreObservation
import HTTPCoreGenAI
import HTTPCoreConsole
import HTTPCoreConcurrency
import HTTPCoreHAR
import HTTPCoreLoopback
import HTTPCoreTestEnd
import HTTPCoreTestPeers
import HTTPCoreURLSession
import LokiObserver
import XCTest

@testable import devsee_tail

/// Every output, subscribed to one dispatcher, with the servers they deliver to: dev-see (and
/// `devsee-tail`'s rendering of what it stored), HAR, Loki, the console, and the GenAI span's
/// name and attributes as `GenAISpanObserver` records them (it copies `HTTPEvent.genAI`'s).
struct Outputs {
    let api: LoopbackHTTPServer
    let devSee: DevSeeReceiver
    let loki: LokiReceiver
    let devSeeLogger: DevSeeLogger
    let lokiLogger: LokiLogger
    let har = HARRecorder()
    let console = Locked<[String]>([])
    let spans = Locked<[Span]>([])
    let dispatcher = HTTPEventDispatcher()

    /// A GenAI span as `GenAISpanObserver` makes it from an LLM call's terminal event.
    struct Span {
        let name: String
        let attributes: [String: HTTPExchangeNote.Value]
    }

    /// Outputs whose dev-see and Loki sinks are configured with `sinkRedactor` (their default,
    /// `.standard`, when `nil`), which masks only what their manual APIs log: what they show of
    /// an exchange is what the client's policy exposes.
    init(sinkRedactor: Redactor? = nil) throws {
        api = try LoopbackHTTPServer()
        devSee = try DevSeeReceiver()
        loki = try LokiReceiver()
        var devSeeConfiguration = DevSeeLoggerConfiguration(appId: "com.example.outputs", serverURL: devSee.baseURL)
        devSeeConfiguration.isEnabled = true
        devSeeConfiguration.endpointStore = InMemoryEndpointStore()
        devSeeConfiguration.uploadTimeout = 60
        var lokiConfiguration = LokiConfiguration(url: loki.url, app: "outputs")
        lokiConfiguration.timeout = 60
        if let sinkRedactor {
            devSeeConfiguration.redactor = sinkRedactor
            lokiConfiguration.redactor = sinkRedactor
        }
        devSeeLogger = DevSeeLogger(configuration: devSeeConfiguration)
        lokiLogger = LokiLogger(configuration: lokiConfiguration)
        TestEndShutdowns.shared.add { [devSeeLogger, lokiLogger] in
            await devSeeLogger.shutdown()
            await lokiLogger.shutdown()
        }
        dispatcher.subscribe(DevSeeObserver(logger: devSeeLogger))
        dispatcher.subscribe(LokiObserver(logger: lokiLogger))
        dispatcher.subscribe(har)
        let console = console
        dispatcher.subscribe(ConsoleObserver(minimumLevel: .debug, format: .blocks, body: .text) { line in
            console.withLock { $0.append(line) }
        })
        let spans = spans
        dispatcher.subscribe(ClosureObserver { event in
            guard event.name.isTerminal, let call = event.genAI else { return }
            let span = Span(name: call.spanName, attributes: Dictionary(call.attributes.map { ($0.name, $0.value) }) { $1 })
            spans.withLock { $0.append(span) }
        })
    }

    func client(middlewares: [any HTTPMiddleware] = [], policy: HTTPCorePolicy = .debug) -> some HTTPClient {
        URLSessionClient(middlewares: middlewares, dispatcher: dispatcher, policy: policy)
    }

    /// `policy` recognising the loopback server's `/v1` as an OpenAI-compatible LLM server, and
    /// its Gemini paths as Gemini's.
    func recognizingLLMCalls(_ policy: HTTPCorePolicy = .debug) -> HTTPCorePolicy {
        var policy = policy
        let host = GenAIHostPattern.localhost(port: Int(api.port))
        policy.interpreters = [GenAIRecognizer(additionalRoutes: [
            GenAIRoute(provider: GenAIProvider("local"), host: host, api: .openAICompatible(basePath: "/v1")),
            GenAIRoute(provider: .gcpGemini, host: host, api: .gemini),
        ])]
        return policy
    }

    /// What each output shows, once `logs` dev-see logs and `lines` Loki lines arrived.
    func shown(logs: Int, lines: Int) async throws -> Shown {
        await dispatcher.flush()
        await devSeeLogger.flush()
        await lokiLogger.flush()
        try await devSee.waitForLogs(count: logs)
        let pushed = try await loki.waitForEntries(lines)
        let document = try XCTUnwrap(try JSONSerialization.jsonObject(with: har.harDocument()) as? [String: Any])
        let entries = try XCTUnwrap((document["log"] as? [String: Any])?["entries"] as? [[String: Any]])
        let stored = devSee.storedObjects()
        let tail = try stored.map { object in
            let log = try XCTUnwrap(StoredLog(json: JSONSerialization.data(withJSONObject: object)))
            return LogLineFormatter(usesColor: false, isVerbose: false).format(log)
        }
        return Shown(devSee: stored, har: entries, loki: pushed.lines, console: console.withLock { $0 }, tail: tail, spans: spans.withLock { $0 })
    }

    func stop() {
        api.stop()
        devSee.stop()
        loki.stop()
    }
}

/// What every output showed.
struct Shown {
    let devSee: [[String: Any]]
    let har: [[String: Any]]
    let loki: [String]
    let console: [String]
    /// `devsee-tail`'s line of each dev-see log.
    let tail: [String]
    let spans: [Outputs.Span]
}
