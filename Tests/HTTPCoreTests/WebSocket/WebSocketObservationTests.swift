import Foundation
import HTTPCore
import HTTPCoreObservation
import HTTPCoreTesting
import XCTest

final class WebSocketObservationTests: XCTestCase {
    private let url = URL(string: "wss://realtime.example.com/graphql?channel=7")!

    private func client(policy: HTTPCorePolicy = .debug) -> (HTTPTransportClient<MockTransport>, RecordingObserver) {
        let dispatcher = HTTPEventDispatcher()
        let recorder = RecordingObserver()
        dispatcher.subscribe(recorder)
        return (HTTPTransportClient(transport: MockTransport(), dispatcher: dispatcher, policy: policy), recorder)
    }

    private func head(for observation: WebSocketObservation) -> HTTPResponse.Head {
        HTTPResponse.Head(
            requestID: observation.request.id, statusCode: 101, headers: ["Upgrade": "websocket", "Connection": "Upgrade"],
            url: observation.request.url
        )
    }

    func testAConnectionIsOneExchangeWithItsMessagesBothWaysAndItsCloseOnTheSuccess() throws {
        let (client, recorder) = client()
        let observation = try client.observeWebSocket(HTTPRequest(url: url))
        observation.opened(head(for: observation))
        observation.sent(.text, Array(#"{"type":"subscribe","id":"1"}"#.utf8))
        observation.received(.binary, [0x00, 0x01, 0x02])
        observation.received(.ping, [UInt8]())
        observation.closed(code: 4000, reason: "server says bye", by: .server)

        let events = recorder.events
        XCTAssertEqual(events.map(\.name.rawValue), [
            "http.request.created", "http.request.started", "http.response.received",
            "http.response.message", "http.response.message", "http.response.message", "http.response.message",
            "http.request.succeeded",
        ])
        let messages = events.compactMap { event -> HTTPEvent.StreamMessage? in
            if case .message(let message, _) = event.step { return message }
            return nil
        }
        XCTAssertEqual(messages.map(\.kind), [.webSocket, .webSocket, .webSocket, .webSocket])
        XCTAssertEqual(messages.map(\.direction), [.sent, .received, .received, .received])
        XCTAssertEqual(messages.map(\.opcode), [.text, .binary, .ping, .close])
        XCTAssertEqual(messages.map(\.index), [0, 1, 2, 3])
        XCTAssertEqual(messages.map(\.data), [#"{"type":"subscribe","id":"1"}"#, "AAEC", "", "server says bye"])
        XCTAssertEqual(messages.map(\.byteCount), [29, 3, 0, 15])
        XCTAssertNil(messages[0].millisecondsSincePrevious)
        XCTAssertNotNil(messages[1].millisecondsSincePrevious)
        guard case .received(let response, _) = events[2].step, case .succeeded(let final, let exchange) = events[7].step else {
            return XCTFail("no 101 and success: \(events.map(\.name))")
        }
        XCTAssertEqual(response.statusCode, 101)
        XCTAssertEqual(final.statusCode, 101)
        XCTAssertEqual(exchange.streamMessageCount, 4)
        XCTAssertEqual(exchange.droppedStreamMessageCount, 0)
        XCTAssertEqual(exchange.webSocket, HTTPEvent.WebSocketSummary(
            sentMessageCount: 1, receivedMessageCount: 3, sentByteCount: 29, receivedByteCount: 18,
            close: HTTPEvent.WebSocketClose(code: 4000, reason: "server says bye", initiator: .server)
        ))
        XCTAssertEqual(events[7].request.url, "wss://realtime.example.com/graphql?channel=7")
    }

    func testAGraphQLWSConnectionInitTokenIsMaskedInItsMessage() throws {
        let (client, recorder) = client()
        let observation = try client.observeWebSocket(HTTPRequest(url: url))
        observation.opened(head(for: observation))
        observation.sent(.text, Array(#"{"type":"connection_init","payload":{"authToken":"eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiI0MiJ9.c2lnbmF0dXJl"}}"#.utf8))
        observation.closed(code: 1000, reason: "", by: .client)

        let sent = recorder.events.compactMap { event -> HTTPEvent.StreamMessage? in
            if case .message(let message, _) = event.step, message.direction == .sent, message.opcode == .text { return message }
            return nil
        }
        XCTAssertEqual(sent.map(\.data), [#"{"type":"connection_init","payload":{"authToken":"[REDACTED]"}}"#])
    }

    func testMessagesPastTheCapAreCountedNotEmittedAndOnlyTheCapturedBytesAreKept() throws {
        var policy = HTTPCorePolicy.debug
        policy.streamMessages = .init(maxCount: 2, maxBytes: 4)
        let (client, recorder) = client(policy: policy)
        let observation = try client.observeWebSocket(HTTPRequest(url: url))
        observation.opened(head(for: observation))
        for index in 0..<10 { observation.received(.text, Array("message \(index)".utf8)) }
        observation.failed(.transport(.connectionLost, message: "the connection closed without a close frame"))

        let messages = recorder.events.compactMap { event -> HTTPEvent.StreamMessage? in
            if case .message(let message, _) = event.step { return message }
            return nil
        }
        XCTAssertEqual(messages.map(\.data), ["mess", "mess"])
        XCTAssertEqual(messages.map(\.isTruncated), [true, true])
        guard case .failed(let error, let response, let exchange) = recorder.events.last?.step else {
            return XCTFail("no failure: \(recorder.events.map(\.name))")
        }
        XCTAssertEqual(error.code, .connectionLost)
        XCTAssertEqual(response?.statusCode, 101)
        XCTAssertEqual(exchange.streamMessageCount, 10)
        XCTAssertEqual(exchange.droppedStreamMessageCount, 8)
        XCTAssertEqual(exchange.webSocket?.receivedMessageCount, 10)
        XCTAssertEqual(exchange.webSocket?.receivedByteCount, 90)
        XCTAssertNil(exchange.webSocket?.close)
    }

    func testWithBodiesOmittedNoMessageIsEmittedAndAllAreCounted() throws {
        let (client, recorder) = client(policy: HTTPCorePolicy(bodyCapture: .omitted))
        let observation = try client.observeWebSocket(HTTPRequest(url: url))
        observation.opened(head(for: observation))
        observation.sent(.text, Array("hello".utf8))
        observation.closed(code: 1000, reason: "done", by: .client)

        XCTAssertFalse(recorder.events.contains { $0.name == .responseMessage })
        guard case .succeeded(_, let exchange) = recorder.events.last?.step else { return XCTFail("no success") }
        XCTAssertEqual(exchange.streamMessageCount, 2)
        XCTAssertEqual(exchange.droppedStreamMessageCount, 2)
        XCTAssertEqual(exchange.webSocket?.close, HTTPEvent.WebSocketClose(code: 1000, reason: "done", initiator: .client))
    }

    func testARefusedHandshakeFailsWithTheServersAnswer() throws {
        let (client, recorder) = client()
        let observation = try client.observeWebSocket(HTTPRequest(url: url))
        let refusal = HTTPResponse.Head(requestID: observation.request.id, statusCode: 401, url: url)
        observation.failed(.transport(.invalidResponse, message: "the server answered the WebSocket handshake with 401, not 101"), response: refusal)
        observation.received(.text, Array("late".utf8))
        observation.closed(code: 1000, reason: "", by: .server)

        XCTAssertEqual(recorder.events.map(\.name), [.requestCreated, .requestStarted, .requestFailed])
        guard case .failed(let error, let response, let exchange) = recorder.events.last?.step else { return XCTFail("no failure") }
        XCTAssertEqual(error.code, .invalidResponse)
        XCTAssertEqual(response?.statusCode, 401)
        XCTAssertEqual(exchange.webSocket?.receivedMessageCount, 0)
    }

    func testAnObservationDroppedBeforeItsEndEndsTheConnectionAsCancelled() throws {
        let (client, recorder) = client()
        var observation: WebSocketObservation? = try client.observeWebSocket(HTTPRequest(url: url))
        observation?.opened(head(for: observation!))
        observation = nil

        XCTAssertEqual(recorder.events.map(\.name), [.requestCreated, .requestStarted, .responseReceived, .requestCancelled])
    }

    func testTheHandshakeRequestCarriesTheCorrelationHeaderAndALowercaseScheme() throws {
        var policy = HTTPCorePolicy.debug
        policy.correlationHeaderName = "X-Correlation-ID"
        let (client, recorder) = client(policy: policy)
        let observation = try client.observeWebSocket(HTTPRequest(url: URL(string: "WSS://realtime.example.com/live")!))

        XCTAssertEqual(observation.request.url.absoluteString, "wss://realtime.example.com/live")
        let correlation = try XCTUnwrap(observation.request.headers["X-Correlation-ID"])
        XCTAssertEqual(recorder.events.first?.correlationID, correlation)
    }

    func testARequestThatIsNoHandshakeIsRefusedNamingTheFieldAndTheRule() {
        let (client, recorder) = client()
        func refusal(_ request: HTTPRequest) -> String? {
            do {
                _ = try client.observeWebSocket(request)
                return nil
            } catch {
                return error.message
            }
        }
        XCTAssertEqual(
            refusal(HTTPRequest(url: URL(string: "https://example.com/live")!)),
            #"url scheme "https" is not a WebSocket scheme: use ws or wss"#
        )
        XCTAssertEqual(
            refusal(HTTPRequest(method: .post, url: url)), "method: a WebSocket handshake is a GET (RFC 6455, section 4.1), not POST"
        )
        XCTAssertEqual(
            refusal(HTTPRequest(url: url, body: Data("hi".utf8))),
            "body: a WebSocket handshake has no body; send what you have as messages once it is open"
        )
        XCTAssertEqual(refusal(HTTPRequest(url: URL(string: "ws://example.com:0/live")!)), "port 0 is out of range 1…65535")
        XCTAssertTrue(recorder.events.isEmpty)
    }
}
