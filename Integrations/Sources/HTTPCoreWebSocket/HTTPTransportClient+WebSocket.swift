import HTTPCore
import HTTPCoreObservation
import Logging
import NIOCore
import NIOPosix
import WSClient

extension HTTPTransportClient {
    /// Opens a WebSocket connection with swift-websocket's `WebSocketClient` and observes it as
    /// one exchange: the handshake, every message either way, and the close or the failure.
    ///
    /// The connection lasts as long as `handler` runs; when it returns, the client sends a
    /// close frame (unless one was sent already) and waits for the server's.
    ///
    /// ```swift
    /// let close = try await client.webSocket(HTTPRequest(url: URL(string: "wss://example.com/live")!)) { inbound, outbound, _ in
    ///     try await outbound.write(.text("hello"))
    ///     for try await frame in inbound { print(frame) }
    /// }
    /// ```
    ///
    /// The request's headers, with the correlation header the client adds, are sent with the
    /// handshake. `request.timeout` bounds the handshake (from the call to the 101), not the
    /// connection. swift-websocket does not expose the 101 response's headers, so the response
    /// the observers see is a 101 without headers, and it does not expose the status of a
    /// refused handshake either.
    ///
    /// - Parameters:
    ///   - request: The handshake: a GET to a `ws` or `wss` URL, without a body.
    ///   - configuration: swift-websocket's configuration; its `additionalHeaders` are sent
    ///     after the request's headers.
    ///   - eventLoopGroup: The event loops the connection runs on.
    ///   - logger: swift-websocket's logger.
    ///   - handler: Reads and writes messages while the connection is open.
    /// - Returns: The close frame the server sent, or nil when it sent none.
    /// - Throws: The `HTTPError` that names a bad field of `request`; `.invalidResponse` when
    ///   the server refused the upgrade; `.connectionLost` when the connection ended without
    ///   a close frame (code 1006); `.timeout` when the handshake took longer than
    ///   `request.timeout`; `.cancelled` when the task was cancelled; or what `handler` threw.
    @discardableResult
    public func webSocket(
        _ request: HTTPRequest,
        configuration: WebSocketClientConfiguration = .init(),
        eventLoopGroup: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton,
        logger: Logger = Logger(label: "HTTPCoreWebSocket"),
        handler: @escaping WebSocketDataHandler<WebSocketClient.Context>
    ) async throws -> WebSocketCloseFrame? {
        let observation = try observeWebSocket(request)
        let connection = WebSocketObservedConnection(observation: observation, configuration: configuration)
        return try await connection.run(eventLoopGroup: eventLoopGroup, logger: logger, handler: handler)
    }
}
