import HTTPCore
import HTTPCoreObservation
import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOWebSocket
import WSClient

/// One connection run through swift-websocket and reported to its ``WebSocketObservation``:
/// the handshake's headers in, the tap first among the extensions, and exactly one end.
struct WebSocketObservedConnection: Sendable {
    private struct HandshakeTimeout: Error {}

    /// Who comes first: the outcome of the handshake race or the caller waiting for it.
    private struct HandshakeOutcome {
        private var result: Result<WebSocketCloseFrame?, any Error>?
        private var waiting: CheckedContinuation<WebSocketCloseFrame?, any Error>?
        private var isResolved = false

        /// Records the first result; returns the continuation to resume with it, if one waits.
        mutating func resolve(_ outcome: Result<WebSocketCloseFrame?, any Error>) -> CheckedContinuation<WebSocketCloseFrame?, any Error>? {
            guard !isResolved else { return nil }
            isResolved = true
            guard let waiting else {
                result = outcome
                return nil
            }
            self.waiting = nil
            return waiting
        }

        /// Keeps `continuation` until a result comes; returns the result when it came first.
        mutating func wait(_ continuation: CheckedContinuation<WebSocketCloseFrame?, any Error>) -> Result<WebSocketCloseFrame?, any Error>? {
            guard let result else {
                waiting = continuation
                return nil
            }
            return result
        }
    }

    private let observation: WebSocketObservation
    private let tap: WebSocketMessageTap
    private let configuration: WebSocketClientConfiguration
    // Whether the 101 came: set on the connection's task, read by the handshake timer.
    private let isOpen = NIOLockedValueBox(false)

    init(observation: WebSocketObservation, configuration: WebSocketClientConfiguration) {
        self.observation = observation
        let tap = WebSocketMessageTap(observation: observation)
        self.tap = tap
        var configuration = configuration
        var headers = observation.request.headers.httpFields
        headers.append(contentsOf: configuration.additionalHeaders)
        configuration.additionalHeaders = headers
        configuration.extensions.insert(WebSocketExtensionFactory.nonNegotiatedExtension { tap }.build(), at: 0)
        self.configuration = configuration
    }

    /// Connects, runs `handler` while the connection is open, and reports how it ended.
    func run(
        eventLoopGroup: any EventLoopGroup, logger: Logger, handler: @escaping WebSocketDataHandler<WebSocketClient.Context>
    ) async throws -> WebSocketCloseFrame? {
        let request = observation.request
        let close: WebSocketCloseFrame?
        do {
            close = try await boundingHandshake(by: request.timeout) { [observation, configuration, isOpen] in
                try await WebSocketClient.connect(
                    url: request.url.absoluteString, configuration: configuration, eventLoopGroup: eventLoopGroup, logger: logger
                ) { inbound, outbound, context in
                    isOpen.withLockedValue { $0 = true }
                    observation.opened(HTTPResponse.Head(requestID: request.id, statusCode: 101, url: request.url))
                    try await handler(inbound, outbound, context)
                }
            }
        } catch {
            let failure = failure(for: error, timeout: request.timeout)
            observation.failed(failure)
            if isOpen.withLockedValue({ $0 }), failure.code == .other { throw error }
            throw failure
        }
        // A cancelled task ends the inbound stream, so the handler returns and the close
        // handshake completes: the exchange still ended because of the cancellation.
        if Task.isCancelled {
            observation.failed(.cancelled)
            throw HTTPError.cancelled
        }
        try report(close)
        return close
    }

    private func report(_ close: WebSocketCloseFrame?) throws(HTTPError) {
        guard let close else {
            let lost = HTTPError.transport(.connectionLost, message: "the connection ended without a close frame from the server (1006)")
            observation.failed(lost)
            throw lost
        }
        let received = WebSocketMessageTap.SentClose(code: Int(UInt16(webSocketErrorCode: close.closeCode)), reason: close.reason ?? "")
        // swift-websocket answers a server's close with a bare 1000 (or 1002), no reason, and
        // sends nothing once it has: so a close this client sent with a reason or another code
        // opened the handshake. A bare 1000 is either; when the server's close is the same
        // (most servers echo a client's close), this client is taken to have closed first.
        if let sent = tap.sentClose, !sent.couldAnswerAClose || sent == received {
            observation.closed(code: sent.code, reason: sent.reason, by: .client)
        } else {
            observation.closed(code: received.code, reason: received.reason, by: .server)
        }
    }

    private func failure(for error: any Error, timeout: Double?) -> HTTPError {
        if let error = error as? HTTPError { return error }
        if error is HandshakeTimeout {
            return .transport(.timeout, message: "the WebSocket handshake took longer than the request's timeout, \(timeout ?? 0) s")
        }
        if Task.isCancelled || error is CancellationError { return .cancelled }
        if let error = error as? WebSocketClientError {
            if error == .webSocketUpgradeFailed {
                return .transport(
                    .invalidResponse,
                    message: "the server refused the WebSocket handshake: webSocketUpgradeFailed, no 101 Switching Protocols (swift-websocket does not expose the status)",
                    underlyingError: error
                )
            }
            return .transport(.invalidResponse, message: "the WebSocket connection failed: \(error)", underlyingError: error)
        }
        if !isOpen.withLockedValue({ $0 }) {
            return .transport(.cannotConnect, message: "the WebSocket connection could not be made: \(error)", underlyingError: error)
        }
        return .transport(.other, message: "the WebSocket handler threw: \(error)", underlyingError: error)
    }

    /// Runs `connect`, failing with `HandshakeTimeout` when the connection has not opened
    /// within `timeout` seconds; once it has, the timer has no further say.
    ///
    /// swift-websocket has no handshake timeout and does not answer cancellation before the
    /// 101, so a structured child would keep this call waiting: `connect` runs in a task of its
    /// own, cancelled (and left to end when the server answers or drops) on the timeout.
    private func boundingHandshake(
        by timeout: Double?, _ connect: @escaping @Sendable () async throws -> WebSocketCloseFrame?
    ) async throws -> WebSocketCloseFrame? {
        guard let timeout else { return try await connect() }
        // The first outcome wins; it may come before the caller waits for it.
        let outcome = NIOLockedValueBox(HandshakeOutcome())
        let resume: @Sendable (Result<WebSocketCloseFrame?, any Error>) -> Void = { result in
            outcome.withLockedValue { $0.resolve(result) }?.resume(with: result)
        }
        let connection = Task {
            do { resume(.success(try await connect())) } catch { resume(.failure(error)) }
        }
        let timer = Task { [isOpen] in
            try await Task.sleep(for: .seconds(timeout))
            guard !isOpen.withLockedValue({ $0 }) else { return }
            connection.cancel()
            resume(.failure(HandshakeTimeout()))
        }
        defer { timer.cancel() }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                if let result = outcome.withLockedValue({ $0.wait(continuation) }) { continuation.resume(with: result) }
            }
        } onCancel: {
            connection.cancel()
        }
    }
}
