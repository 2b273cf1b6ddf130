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
        let consoleObserver = ConsoleObserver(minimumLevel: .debug, format: .line, body: .sizeOnly) { console.append($0) }
        let (client, recorder) = observedClient(observers: [har, consoleObserver])
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

        let initMessage = try XCTUnwrap(webSocketMessages(events).first)
        XCTAssertTrue(initMessage.data.contains("connection_init"), initMessage.data)
        XCTAssertFalse(initMessage.data.contains(token), initMessage.data)
        XCTAssertEqual(webSocketMessages(events).count, 6, "init, ack, subscribe, next, complete, close")
        let harText = String(decoding: har.harDocument(), as: UTF8.self)
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("websocket-\(UUID().uuidString).har")
        try har.write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let harFile = try String(contentsOf: file, encoding: .utf8)
        let recorded = events.map { "\($0)" }.joined(separator: "\n") + webSocketMessages(events).map(\.data).joined(separator: "\n")
        for (name, output) in [("recorder", recorded), ("HAR", harText), ("HAR file", harFile), ("console", console.text)] {
            XCTAssertFalse(output.contains(token), "\(name) holds the token: \(output)")
        }
        // The HAR writer of the root package keeps no WebSocket messages yet (no
        // `_webSocketMessages`): the entry of the handshake is there, without the token.
        XCTAssertTrue(harFile.contains("ws://127.0.0.1:\(peer.port)/graphql"), String(harFile.prefix(3000)))
        XCTAssertFalse(console.text.isEmpty)
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
