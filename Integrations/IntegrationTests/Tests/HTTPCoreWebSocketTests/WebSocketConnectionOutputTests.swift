import DevSeeObserver
import DevSeeServer
import Foundation
import HTTPCore
import HTTPCoreObservation
import HTTPCoreConsole
import HTTPCoreHAR
import HTTPCoreTestPeers
import HTTPCoreTesting
import HTTPCoreWebSocket
import NIOConcurrencyHelpers
import NIOCore
import WSClient
import XCTest

/// What a real connection leaves in the sinks: its messages, masked, and never a secret.
final class WebSocketConnectionOutputTests: XCTestCase {
    private var peer: WebSocketPeer!

    override func setUpWithError() throws {
        peer = try WebSocketPeer()
    }

    override func tearDown() {
        peer?.stop()
    }

    func testAGraphQLWSConnectionInitTokenReachesNoOutputWhileItsMessageIsThereMasked() async throws {
        let token = "gql-secret-7f3a9c"
        let console = ConsoleLines()
        let har = HARRecorder()
        let receiver = try DevSeeReceiver()
        defer { receiver.stop() }
        var devSeeConfiguration = DevSeeLoggerConfiguration(appId: "com.example.tests", serverURL: receiver.baseURL)
        devSeeConfiguration.isEnabled = true
        devSeeConfiguration.uploadTimeout = 60
        let devSee = DevSeeLogger(configuration: devSeeConfiguration)
        let consoleObserver = ConsoleObserver(minimumLevel: .debug, format: .line, body: .text) { console.append($0) }
        let (client, recorder) = observedClient(observers: [har, consoleObserver, DevSeeObserver(logger: devSee)])
        var request = HTTPRequest(url: peer.url("/graphql"))
        request.headers.add(name: "Sec-WebSocket-Protocol", value: "graphql-transport-ws")

        try await client.webSocket(request) { inbound, outbound, _ in
            var messages = inbound.messages(maxSize: 1 << 20).makeAsyncIterator()
            try await outbound.write(.text(#"{"type":"connection_init","payload":{"authToken":"\#(token)"}}"#))
            let message1 = try await messages.next()
            XCTAssertEqual(message1, .text(#"{"type": "connection_ack"}"#))
            try await outbound.write(.text(#"{"id":"1","type":"subscribe","payload":{"query":"{ greeting }"}}"#))
            let message2 = try await messages.next()
            XCTAssertEqual(message2, .text(#"{"id": "1", "type": "next", "payload": {"data": {"greeting": "hello"}}}"#))
            let message3 = try await messages.next()
            XCTAssertEqual(message3, .text(#"{"id": "1", "type": "complete"}"#))
        }
        let events = try await recorder.waitForTerminalEvents(count: 1)
        await consoleObserver.flush()
        await devSee.flush()
        try await receiver.waitForLogs(count: 2)

        let initMessage = try XCTUnwrap(webSocketMessages(events).first)
        XCTAssertEqual(initMessage.data, #"{"type":"connection_init","payload":{"authToken":"[REDACTED]"}}"#)
        XCTAssertEqual(webSocketMessages(events).count, 6, "init, ack, subscribe, next, complete, close")
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("websocket-\(UUID().uuidString).har")
        try har.write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let harFile = try String(contentsOf: file, encoding: .utf8)
        let devSeeText = String(decoding: try JSONSerialization.data(withJSONObject: receiver.storedObjects()), as: UTF8.self)
        let recorded = events.map { "\($0)" }.joined(separator: "\n") + webSocketMessages(events).map(\.data).joined(separator: "\n")
        for (name, output) in [("recorder", recorded), ("HAR file", harFile), ("console", console.text), ("dev-see", devSeeText)] {
            XCTAssertFalse(output.contains(token), "\(name) holds the token: \(output)")
            XCTAssertTrue(output.contains("connection_init"), "\(name) lacks the connection_init message: \(output)")
        }
        // HAR: one entry, the connection, with its messages as Chrome writes them.
        let document = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(harFile.utf8)) as? [String: Any])
        let entries = try XCTUnwrap((document["log"] as? [String: Any])?["entries"] as? [[String: Any]])
        XCTAssertEqual(entries.count, 1)
        XCTAssertEqual(entries[0]["_resourceType"] as? String, "websocket")
        let harMessages = try XCTUnwrap(entries[0]["_webSocketMessages"] as? [[String: Any]])
        XCTAssertEqual(harMessages.compactMap { $0["type"] as? String }, ["send", "receive", "send", "receive", "receive", "send"])
        XCTAssertEqual(harMessages.first?["data"] as? String, #"{"type":"connection_init","payload":{"authToken":"[REDACTED]"}}"#)
        await consoleObserver.shutdown()
        await devSee.shutdown()
    }

    func testTenThousandMessagesEachWayStayInBoundedMemoryAndAreAllCounted() async throws {
        var policy = HTTPCorePolicy.debug
        policy.streamMessages = HTTPCorePolicy.StreamMessageCapture(maxCount: 100, maxBytes: 64)
        let (client, recorder) = observedClient(policy: policy)
        let before = ResidentMemory.current()

        try await client.webSocket(HTTPRequest(url: peer.url())) { inbound, outbound, _ in
            var messages = inbound.messages(maxSize: 1 << 20).makeAsyncIterator()
            for index in 0..<10_000 {
                try await outbound.write(.text("m\(index)"))
                guard case .text("m\(index)") = try await messages.next() else { return XCTFail("no echo of m\(index)") }
            }
        }
        let events = try await recorder.waitForTerminalEvents(count: 1)

        XCTAssertEqual(webSocketMessages(events).count, 100)
        guard case .succeeded(_, let exchange) = events.last?.step else { return XCTFail("no success: \(events.last?.name as Any)") }
        let bytes = (0..<10_000).reduce(0) { $0 + "m\($1)".utf8.count }
        XCTAssertEqual(exchange.webSocket?.sentMessageCount, 10_001, "10,000 and the close")
        XCTAssertEqual(exchange.webSocket?.receivedMessageCount, 10_000)
        XCTAssertEqual(exchange.webSocket?.sentByteCount, bytes)
        XCTAssertEqual(exchange.webSocket?.receivedByteCount, bytes)
        XCTAssertEqual(exchange.droppedStreamMessageCount, 20_001 - 100)
        if let before, let after = ResidentMemory.current() {
            XCTAssertLessThan(after - before, 64 << 20, "resident memory grew by \(after - before) bytes")
        }
    }
}

/// The console observer's output, kept in memory.
private final class ConsoleLines: Sendable {
    private let lines = NIOLockedValueBox<[String]>([])

    func append(_ line: String) {
        lines.withLockedValue { $0.append(line) }
    }

    var text: String {
        lines.withLockedValue { $0.joined(separator: "\n") }
    }
}
