import AsyncHTTPClient
import Foundation
import HTTPCore
import HTTPCoreAsyncHTTPClient
import HTTPCoreConsole
import HTTPCoreHAR
import HTTPCoreObservation
import HTTPCoreTesting
import WebSocketRecipe
import XCTest

/// The WebSocket recipe end to end: a graphql-ws subscription to the Hummingbird ticker on
/// loopback, through a client over AsyncHTTPClient, observed as one exchange.
final class WebSocketRecipeTests: XCTestCase {
    private let token = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiI0MiJ9.c2lnbmVkLWJ5LXRoZS1yZWNpcGU"

    /// Runs `body` with a client observed by `observers`, while the ticker serves on loopback.
    private func withTicker(
        accepting accepted: String, observers: [any HTTPObserver], _ body: @escaping @Sendable (URL, HTTPTransportClient<AsyncHTTPClientTransport>) async throws -> Void
    ) async throws {
        let ahc = AsyncHTTPClientTransport.makeHTTPClient()
        let dispatcher = HTTPEventDispatcher()
        for observer in observers { dispatcher.subscribe(observer) }
        let client = HTTPTransportClient(asyncHTTPClient: ahc, dispatcher: dispatcher, policy: .debug)
        do {
            try await GraphQLTicker(token: accepted).serving { url in try await body(url, client) }
            await dispatcher.flush()
        } catch {
            try await ahc.shutdown()
            throw error
        }
        try await ahc.shutdown()
    }

    func testASubscriptionReadsAsOneConversationWithItsTokenMaskedInTheConsoleAndHAR() async throws {
        let lines = ConsoleLines()
        let console = ConsoleObserver(minimumLevel: .debug, body: .text) { lines.append($0) }
        let har = HARRecorder()
        let recorder = RecordingObserver()
        let token = self.token
        try await withTicker(accepting: token, observers: [console, har, recorder]) { url, client in
            let results = try await GraphQLSubscription(url: url, token: token).results(of: "subscription { tick }", with: client)
            XCTAssertEqual(results, [#"{"tick":1}"#, #"{"tick":2}"#, #"{"tick":3}"#])
        }
        await console.flush()

        let events = try await recorder.waitForTerminalEvents(count: 1)
        guard case .succeeded(let response, let exchange) = events.last?.step else { return XCTFail("no success: \(events.map(\.name))") }
        XCTAssertEqual(response.statusCode, 101)
        let summary = try XCTUnwrap(exchange.webSocket)
        XCTAssertEqual([summary.sentMessageCount, summary.receivedMessageCount], [3, 5], "init, subscribe, close; ack, three ticks, complete")
        XCTAssertEqual(summary.close?.code, 1000)
        XCTAssertEqual(summary.close?.initiator, .client)
        let consoleText = lines.text
        let harText = String(decoding: har.harDocument(), as: UTF8.self)
        for (name, output) in [("console", consoleText), ("HAR", harText)] {
            XCTAssertFalse(output.contains(token), "\(name) holds the token: \(output)")
            XCTAssertFalse(output.contains("eyJzdWIiOiI0MiJ9"), "\(name) holds part of the token: \(output)")
        }
        XCTAssertTrue(consoleText.contains(#"{"authToken":"[REDACTED]"}"#), consoleText)
        XCTAssertTrue(consoleText.contains(#"{"id":"1","payload":{"data":{"tick":3}},"type":"next"}"#), consoleText)
        XCTAssertTrue(harText.contains("_webSocketMessages"), harText)
    }

    func testATokenTheServerRefusesEndsTheSubscriptionWithItsCloseCodeAndTheExchangeClosedByTheServer() async throws {
        let recorder = RecordingObserver()
        let token = self.token
        try await withTicker(accepting: "another-token", observers: [recorder]) { url, client in
            do {
                _ = try await GraphQLSubscription(url: url, token: token).results(of: "subscription { tick }", with: client)
                XCTFail("a refused token was taken")
            } catch let refused as GraphQLSubscription.Refused {
                XCTAssertEqual(refused.description, "closed 4403 Forbidden")
            }
        }

        let events = try await recorder.waitForTerminalEvents(count: 1)
        guard case .succeeded(_, let exchange) = events.last?.step else { return XCTFail("no success: \(events.map(\.name))") }
        XCTAssertEqual(exchange.webSocket?.close?.code, 4403)
        XCTAssertEqual(exchange.webSocket?.close?.reason, "Forbidden")
        XCTAssertEqual(exchange.webSocket?.close?.initiator, .server)
    }
}

/// What a console observer printed, kept in memory.
private final class ConsoleLines: @unchecked Sendable {   // safe: `lines` is only touched under `lock`
    private let lock = NSLock()
    private var lines: [String] = []

    func append(_ line: String) { lock.withLock { lines.append(line) } }
    var text: String { lock.withLock { lines.joined(separator: "\n") } }
}
