import CoreMetrics
import HTTPCore
import HTTPCoreObservation

extension MetricsObserver {
    /// The counter of WebSocket messages, with `websocket.direction` `sent` or `received`
    /// (close frames counted, as the connection's summary counts them).
    public static let webSocketMessagesLabel = "websocket.client.messages"
    /// The counter of WebSocket message payload bytes, with `websocket.direction`.
    public static let webSocketBytesLabel = "websocket.client.message.bytes"
    /// The timer of WebSocket connections, from the handshake to the close or the failure.
    public static let webSocketConnectionDurationLabel = "websocket.client.connection.duration"

    /// Records the messages, bytes and duration of one ended WebSocket connection; called once
    /// per connection, so its handles are looked up in the metrics factory, not cached.
    func record(_ summary: HTTPEvent.WebSocketSummary, server: String, errorType: String?, durationMilliseconds: Double) {
        let server = [("server.address", server)]
        Counter(label: Self.webSocketMessagesLabel, dimensions: server + [("websocket.direction", "sent")]).increment(by: summary.sentMessageCount)
        Counter(label: Self.webSocketMessagesLabel, dimensions: server + [("websocket.direction", "received")])
            .increment(by: summary.receivedMessageCount)
        Counter(label: Self.webSocketBytesLabel, dimensions: server + [("websocket.direction", "sent")]).increment(by: summary.sentByteCount)
        Counter(label: Self.webSocketBytesLabel, dimensions: server + [("websocket.direction", "received")]).increment(by: summary.receivedByteCount)
        CoreMetrics.Timer(
            label: Self.webSocketConnectionDurationLabel, dimensions: server + [("error.type", errorType ?? ""), ("unit", "s")],
            preferredDisplayUnit: .seconds
        ).recordNanoseconds(Int64((durationMilliseconds * 1_000_000).rounded()))
    }
}
