import Foundation
import HTTPCore
import HTTPCoreObservation
import HTTPCoreTesting
import HTTPCoreWebSocket
import WSClient

/// The messages of a connection's message events, in order.
func webSocketMessages(_ events: [HTTPEvent]) -> [HTTPEvent.StreamMessage] {
    events.compactMap { event in
        if case .message(let message, _) = event.step { return message }
        return nil
    }
}

/// The direction, opcode and data of each message, as one line each: easy to compare whole.
func transcript(_ events: [HTTPEvent]) -> [String] {
    webSocketMessages(events).map { "\($0.direction == .sent ? "sent" : "received") \($0.opcode!) \($0.data)" }
}

/// A client whose transport is never used (a WebSocket goes through swift-websocket), with a
/// recorder subscribed.
func observedClient(policy: HTTPCorePolicy = .debug, observers: [any HTTPObserver] = []) -> (HTTPTransportClient<MockTransport>, RecordingObserver) {
    let dispatcher = HTTPEventDispatcher()
    let recorder = RecordingObserver()
    dispatcher.subscribe(recorder)
    for observer in observers { dispatcher.subscribe(observer) }
    return (HTTPTransportClient(transport: MockTransport(), dispatcher: dispatcher, policy: policy), recorder)
}

/// The code block of HTTPCoreWebSocket.docc, kept here so that it compiles.
func greet(with client: HTTPTransportClient<some HTTPTransport>) async throws {
    let request = HTTPRequest(url: URL(string: "wss://echo.example.com/live")!)
    try await client.webSocket(request) { inbound, outbound, _ in
        try await outbound.write(.text("hello"))
        for try await message in inbound.messages(maxSize: 1 << 20) {
            print(message)
            break
        }
    }
}
