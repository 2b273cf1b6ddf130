import Foundation
import HTTPCore
import HTTPCoreObservation
import HTTPCoreTestPeers
import HTTPCoreTesting
import HTTPCoreWebSocket
import NIOCore
import WSClient
import XCTest

final class HTTPTransportClientWebSocketTests: XCTestCase {
    private var peer: WebSocketPeer!

    override func setUpWithError() throws {
        peer = try WebSocketPeer()
    }

    override func tearDown() {
        peer?.stop()
    }

    func testTextAndBinaryEchoAreOneMessageEachAndTheClientsCloseEndsTheExchange() async throws {
        let (client, recorder) = observedClient()
        let close = try await client.webSocket(HTTPRequest(url: peer.url())) { inbound, outbound, _ in
            var messages = inbound.messages(maxSize: 1 << 20).makeAsyncIterator()
            try await outbound.write(.text("hello"))
            let message1 = try await messages.next()
            XCTAssertEqual(message1, .text("hello"))
            try await outbound.write(.binary(ByteBuffer(bytes: [0, 1, 2])))
            let message2 = try await messages.next()
            XCTAssertEqual(message2, .binary(ByteBuffer(bytes: [0, 1, 2])))
            try await outbound.close(.goingAway, reason: "done")
        }

        XCTAssertEqual(close?.closeCode, .goingAway)
        let events = try await recorder.waitForTerminalEvents(count: 1)
        XCTAssertEqual(events.map(\.name.rawValue), [
            "http.request.created", "http.request.started", "http.response.received",
            "http.response.message", "http.response.message", "http.response.message", "http.response.message", "http.response.message",
            "http.request.succeeded",
        ])
        XCTAssertEqual(transcript(events), ["sent text hello", "received text hello", "sent binary AAEC", "received binary AAEC", "sent close done"])
        guard case .succeeded(let response, let exchange) = events.last?.step else { return XCTFail("no success: \(events.map(\.name))") }
        XCTAssertEqual(response.statusCode, 101)
        let summary = try XCTUnwrap(exchange.webSocket)
        XCTAssertEqual(
            [summary.sentMessageCount, summary.receivedMessageCount, summary.sentByteCount, summary.receivedByteCount], [3, 2, 12, 8]
        )
        XCTAssertEqual(summary.close?.code, 1001)
        XCTAssertEqual(summary.close?.reason, "done")
        XCTAssertEqual(summary.close?.initiator, .client)
    }

    func testAFragmentedMessageFromTheServerIsReportedAsOneMessage() async throws {
        let (client, recorder) = observedClient()
        try await client.webSocket(HTTPRequest(url: peer.url())) { inbound, outbound, _ in
            var frames = inbound.makeAsyncIterator()
            try await outbound.write(.text("fragment"))
            var fins: [Bool] = []
            while let frame = try await frames.next() {
                fins.append(frame.fin)
                if frame.fin { break }
            }
            XCTAssertEqual(fins, [false, false, false, true], "websockets sends each piece, then an empty final frame")
        }

        let events = try await recorder.waitForTerminalEvents(count: 1)
        XCTAssertEqual(transcript(events), ["sent text fragment", "received text frag-1 frag-2 frag-3", "sent close "])
        XCTAssertEqual(webSocketMessages(events)[1].byteCount, 20)
    }

    func testAMessageTheClientSendsInFragmentsIsReportedAsOneMessage() async throws {
        let (client, recorder) = observedClient()
        try await client.webSocket(HTTPRequest(url: peer.url())) { inbound, outbound, _ in
            var messages = inbound.messages(maxSize: 1 << 20).makeAsyncIterator()
            try await outbound.withTextMessageWriter { write in
                try await write("part one, ")
                try await write("part two")
            }
            let echo = try await messages.next()
            XCTAssertEqual(echo, .text("part one, part two"))
        }

        let events = try await recorder.waitForTerminalEvents(count: 1)
        XCTAssertEqual(transcript(events), ["sent text part one, part two", "received text part one, part two", "sent close "])
        XCTAssertEqual(webSocketMessages(events)[0].byteCount, 18)
    }

    func testAMessageOfAThousandFragmentsKeepsNoMoreThanThePolicysCapAndCountsItsWholeLength() async throws {
        var policy = HTTPCorePolicy.debug
        policy.streamMessages.maxBytes = 100
        let (client, recorder) = observedClient(policy: policy)
        try await client.webSocket(HTTPRequest(url: peer.url())) { inbound, outbound, _ in
            var frames = inbound.makeAsyncIterator()
            try await outbound.write(.text("big:1000"))
            var fragments = 0
            while let frame = try await frames.next() {
                fragments += 1
                if frame.fin { break }
            }
            XCTAssertGreaterThanOrEqual(fragments, 1000)
        }

        let events = try await recorder.waitForTerminalEvents(count: 1)
        let big = webSocketMessages(events)[1]
        XCTAssertEqual(big.byteCount, 1_024_000)
        XCTAssertEqual(big.data, String(repeating: "x", count: 100))
        XCTAssertTrue(big.isTruncated)
        guard case .succeeded(_, let exchange) = events.last?.step else { return XCTFail("no success: \(events.map(\.name))") }
        XCTAssertEqual(exchange.webSocket?.receivedByteCount, 1_024_000)
    }

    func testAServerPingIsReportedAsThePongTheClientSendsBack() async throws {
        let (client, recorder) = observedClient()
        try await client.webSocket(HTTPRequest(url: peer.url())) { inbound, outbound, _ in
            var messages = inbound.messages(maxSize: 1 << 20).makeAsyncIterator()
            try await outbound.write(.text("ping"))
            let message3 = try await messages.next()
            XCTAssertEqual(message3, .text("pinged"))
        }

        let events = try await recorder.waitForTerminalEvents(count: 1)
        XCTAssertEqual(transcript(events), ["sent text ping", "sent pong p1", "received text pinged", "sent close "])
    }

    func testAServerCloseWithACodeAndAReasonEndsTheExchangeClosedByTheServer() async throws {
        let (client, recorder) = observedClient()
        let close = try await client.webSocket(HTTPRequest(url: peer.url())) { inbound, outbound, _ in
            try await outbound.write(.text("close"))
            for try await _ in inbound {}
        }

        XCTAssertEqual(close?.closeCode, .unknown(4000))
        XCTAssertEqual(close?.reason, "server says bye")
        let events = try await recorder.waitForTerminalEvents(count: 1)
        XCTAssertEqual(transcript(events), ["sent text close", "received close server says bye"])
        guard case .succeeded(_, let exchange) = events.last?.step else { return XCTFail("no success: \(events.map(\.name))") }
        XCTAssertEqual(exchange.webSocket?.close?.code, 4000)
        XCTAssertEqual(exchange.webSocket?.close?.reason, "server says bye")
        XCTAssertEqual(exchange.webSocket?.close?.initiator, .server)
    }

    func testAConnectionCutWithoutACloseFrameFailsAsConnectionLost() async throws {
        let (client, recorder) = observedClient()
        do {
            try await client.webSocket(HTTPRequest(url: peer.url())) { inbound, outbound, _ in
                try await outbound.write(.text("cut"))
                for try await _ in inbound {}
            }
            XCTFail("a cut connection returned")
        } catch let error as HTTPError {
            XCTAssertEqual(error.code, .connectionLost)
            XCTAssertEqual(error.message, "the connection ended without a close frame from the server (1006)")
        }
        let events = try await recorder.waitForTerminalEvents(count: 1)
        XCTAssertEqual(events.last?.name, .requestFailed)
        XCTAssertEqual(transcript(events), ["sent text cut"])
    }

    func testARefusedHandshakeFailsAsAnInvalidResponseNamingTheUpgradeFailure() async throws {
        let (client, recorder) = observedClient()
        do {
            try await client.webSocket(HTTPRequest(url: peer.url("/denied"))) { _, _, _ in XCTFail("a refused handshake opened") }
            XCTFail("a refused handshake returned")
        } catch let error as HTTPError {
            XCTAssertEqual(error.code, .invalidResponse)
            XCTAssertTrue(error.message?.contains("webSocketUpgradeFailed") == true, error.message ?? "")
        }
        let events = try await recorder.waitForTerminalEvents(count: 1)
        XCTAssertEqual(events.map(\.name.rawValue), ["http.request.created", "http.request.started", "http.request.failed"])
    }

    func testAHandshakeLongerThanTheRequestsTimeoutFailsAsATimeout() async throws {
        let (client, recorder) = observedClient()
        var request = HTTPRequest(url: peer.url("/hang"))
        request.timeout = 0.5
        do {
            try await client.webSocket(request) { _, _, _ in XCTFail("a handshake never answered opened") }
            XCTFail("a handshake never answered returned")
        } catch let error as HTTPError {
            XCTAssertEqual(error.code, .timeout)
            XCTAssertEqual(error.message, "the WebSocket handshake took longer than the request's timeout, 0.5 s")
        }
        let events = try await recorder.waitForTerminalEvents(count: 1)
        XCTAssertEqual(events.map(\.name.rawValue), ["http.request.created", "http.request.started", "http.request.failed"])
    }

    func testAnHTTPSURLIsRefusedBeforeAnyConnectionWithTheFieldNamed() async throws {
        let (client, recorder) = observedClient()
        do {
            try await client.webSocket(HTTPRequest(url: URL(string: "https://127.0.0.1:\(peer.port)/echo")!)) { _, _, _ in }
            XCTFail("an https URL was accepted")
        } catch let error as HTTPError {
            XCTAssertEqual(error.message, #"url scheme "https" is not a WebSocket scheme: use ws or wss"#)
        }
        XCTAssertTrue(recorder.events.isEmpty)
    }

    func testCancellingTheTaskEndsTheExchangeCancelled() async throws {
        let (client, recorder) = observedClient()
        let request = HTTPRequest(url: peer.url())
        let connection = Task {
            try await client.webSocket(request) { inbound, _, _ in
                for try await _ in inbound {}
            }
        }
        try await waitUntil(timeout: 30, "the 101") { recorder.events.contains { $0.name == .responseReceived } }
        connection.cancel()
        let result = await connection.result
        XCTAssertThrowsError(try result.get()) { XCTAssertEqual(($0 as? HTTPError)?.code, .cancelled) }
        let events = try await recorder.waitForTerminalEvents(count: 1)
        XCTAssertEqual(events.last?.name, .requestCancelled)
    }
}
