import DevSeeObserver
import Foundation
import HTTPCore
import HTTPCoreObservation
import HTTPCoreTesting
import XCTest

@testable import devsee_tail
import HTTPCoreConcurrency

/// Watching a WebSocket connection in the tool: its opening line as the 101 arrives, then its
/// closing line with the close and what went each way, as `DevSeeObserver` logs them.
final class DevSeeTailWebSocketTests: XCTestCase {
    func testAConnectionIsItsOpeningLineAndItsClosingLine() async throws {
        let output = AsyncCondition<[String]>([])
        let failure = Locked<(any Error)?>(nil)
        let exit = await DevSeeTail.run(
            arguments: ["--port", "0"], colorByDefault: false,
            output: { line in output.update { $0.append(line) } }, status: { _ in },
            until: { port in
                var configuration = DevSeeLoggerConfiguration(appId: "com.example.tail", serverURL: URL(string: "http://127.0.0.1:\(port)"))
                configuration.isEnabled = true
                configuration.endpointStore = nil
                configuration.delivery.maximumConcurrentSends = 1
                let logger = DevSeeLogger(configuration: configuration)
                let dispatcher = HTTPEventDispatcher()
                dispatcher.subscribe(DevSeeObserver(logger: logger))
                let client = HTTPTransportClient(transport: MockTransport(), dispatcher: dispatcher, policy: .debug)
                do {
                    let observation = try client.observeWebSocket(HTTPRequest(url: URL(string: "wss://rt.example.com/live")!))
                    observation.opened(HTTPResponse.Head(requestID: observation.request.id, statusCode: 101, url: observation.request.url))
                    _ = try await output.wait(timeout: 60, until: { $0.count >= 1 })
                    observation.sent(.text, Array(#"{"type":"subscribe"}"#.utf8))
                    observation.received(.text, Array(#"{"type":"next"}"#.utf8))
                    observation.closed(code: 1000, reason: "done", by: .client)
                    await dispatcher.flush()
                    await logger.flush()
                    _ = try await output.wait(timeout: 60, until: { $0.count >= 2 })
                } catch {
                    failure.withLock { $0 = error }
                }
                await logger.shutdown()
            }
        )
        XCTAssertEqual(exit, 0)
        if let error = failure.withLock({ $0 }) { throw error }
        let lines = output.state.map {
            String($0.dropFirst(14)).replacingOccurrences(of: #" +[0-9.,]+ (µs|ms|s)"#, with: " T", options: .regularExpression)
        }
        XCTAssertEqual(lines, [
            "WS      101 T  wss://rt.example.com/live  websocket: open: messages flow; a closing row with its messages follows when the connection ends",
            #"WS      101 T  wss://rt.example.com/live  websocket: closed 1000 "done" by the client after T · ↑ 2 messages, 24 bytes · ↓ 1 message, 15 bytes"#,
        ])
    }
}
