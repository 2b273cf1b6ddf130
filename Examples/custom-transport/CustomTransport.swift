import DevSeeObserver
import Foundation
import ExampleSupport
import HTTPCore
import HTTPCoreObservation
import HTTPCoreConsole

/// A complete transport adapter: it replays recorded responses, in the chunks they were
/// recorded in. It implements the one method of `HTTPTransport` and writes no event code,
/// yet every call through it is printed by the console observer and logged to dev-see.
struct ReplayTransport: HTTPTransport {
    let recordings: [String: (status: Int, chunks: [String])]

    func perform(_ request: HTTPRequest, body: HTTPBody?) async throws -> (HTTPResponse.Head, HTTPBody) {
        try Task.checkCancellation()
        guard let recording = recordings[request.url.path] else {
            throw HTTPError.transport(.cannotConnect, message: "no recording for \(request.url.path)")
        }
        let head = HTTPResponse.Head(
            requestID: request.id, statusCode: recording.status, headers: ["Content-Type": "application/json"], url: request.url
        )
        // Each recorded chunk arrives as one piece, as it came off the wire; replayable, so a
        // retry can read it again.
        let chunks = recording.chunks.map { HTTPBody.ByteChunk($0.utf8) }
        let length = Int64(chunks.reduce(0) { $0 + $1.count })
        return (head, HTTPBody(length: .known(length)) { chunks.async })
    }
}

extension Array where Element: Sendable {
    /// The elements as an async sequence, one per `next()`.
    var async: AsyncStream<Element> {
        AsyncStream { continuation in
            for element in self { continuation.yield(element) }
            continuation.finish()
        }
    }
}

/// `swift run custom-transport`: calls through `ReplayTransport`, observed like any client.
@main
struct CustomTransportExample {
    static let usage = """
        usage: custom-transport [--help]

          Replays recorded API calls through a custom transport, observed and logged to a loopback
          dev-see receiver without a line of event code in the adapter.
        """

    static func main() async {
        let arguments = CommandLine.arguments.dropFirst()
        if arguments.contains("--help") || arguments.contains("-h") {
            print(usage)
            exit(0)
        }
        guard arguments.isEmpty else {
            FileHandle.standardError.write(Data("custom-transport: unknown argument '\(arguments.first!)'\n\n\(usage)\n".utf8))
            exit(64)
        }
        exit(await run { print($0) })
    }

    /// Runs the example against an in-process dev-see receiver; returns the exit status.
    static func run(print: @escaping @Sendable (String) -> Void) async -> Int32 {
        guard let receiver = try? DemoDevSee() else {
            print("custom-transport: could not start the local dev-see receiver")
            return 1
        }
        defer { receiver.stop() }

        var configuration = DevSeeLoggerConfiguration(appId: "com.example.custom-transport", serverURL: receiver.baseURL)
        configuration.isEnabled = true
        configuration.endpointStore = nil
        let logger = DevSeeLogger(configuration: configuration)

        let dispatcher = HTTPEventDispatcher()
        dispatcher.subscribe(ConsoleObserver(write: print))
        dispatcher.subscribe(DevSeeObserver(logger: logger))

        let client = HTTPTransportClient(
            transport: ReplayTransport(recordings: [
                "/users/42": (200, [#"{"id":42,"#, #""name":"Roy"}"#]),
                "/teams/7": (404, [#"{"error":"no such team"}"#]),
            ]),
            dispatcher: dispatcher,
            policy: .debug
        )
        let base = URL(string: "https://replay.example.com")!
        for path in ["/users/42", "/teams/7", "/unrecorded"] {
            _ = try? await client.send(HTTPRequest(url: base.appendingPathComponent(path)))
        }

        await dispatcher.flush()
        await logger.flush()
        print("dev-see receiver stored \(receiver.storedLogCount) logs, without a line of event code in the adapter")
        await logger.shutdown()
        return 0
    }
}
