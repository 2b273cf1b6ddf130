import Foundation
import HTTPCore
import HTTPCoreObservation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A `URLSessionWebSocketTask` whose connection the client's observers see as one exchange
/// (``/HTTPCoreObservation/WebSocketObservation``): made by
/// ``URLSessionClient/webSocket(_:protocols:)``, used through its methods instead of the task's.
///
/// ```swift
/// let socket = try client.webSocket(HTTPRequest(url: URL(string: "wss://api.example.com/live")!))
/// try await socket.send(.string(#"{"type":"subscribe"}"#))
/// let reply = try await socket.receive()
/// socket.close()
/// ```
///
/// The connection is opened when it is made. The 101 is observed when the session's delegate
/// hears of it (with ``URLSessionClient/makeDefaultSession()``'s sessions), else with the
/// first message that goes through. URLSession shows whole messages, not frames, and answers
/// pings itself, so the peer's pings are not seen; a ping of yours (``sendPing()``) and its
/// pong are. The end is observed once: the close you send (``close(code:reason:)``), the
/// peer's close (a receive that fails once the task has a close code), or a failure.
///
/// On Linux, FoundationNetworking opens WebSockets only over a libcurl built with them
/// (ws and wss among `curl -V`'s protocols); with another, every call throws
/// `HTTPError.Code.invalidRequest` saying so, and the integrations' `HTTPCoreWebSocket` is
/// the client to use.
public final class URLSessionWebSocket: Sendable {
    /// The task, for what this type does not wrap (its `maximumMessageSize`, its state).
    /// Messages sent or received through it directly are not observed.
    public let task: URLSessionWebSocketTask
    private let observation: WebSocketObservation

    init(task: URLSessionWebSocketTask, observation: WebSocketObservation) {
        self.task = task
        self.observation = observation
    }

    /// Sends `message`, once URLSession took it.
    ///
    /// - Parameter message: A text (`.string`) or binary (`.data`) message.
    /// - Throws: An `HTTPError` when the connection failed or closed; it is then observed as
    ///   its end.
    public func send(_ message: URLSessionWebSocketTask.Message) async throws(HTTPError) {
        do {
            try await task.send(message)
        } catch {
            throw end(after: error)
        }
        openIfNeeded()
        switch message {
        case .string(let text): observation.sent(.text, Array(text.utf8))
        case .data(let data): observation.sent(.binary, data)
        @unknown default: break
        }
    }

    /// The next message from the peer.
    ///
    /// - Returns: A text (`.string`) or binary (`.data`) message.
    /// - Throws: An `HTTPError` once the connection closed or failed; the peer's close is
    ///   observed as the end, with its code and reason.
    public func receive() async throws(HTTPError) -> URLSessionWebSocketTask.Message {
        let message: URLSessionWebSocketTask.Message
        do {
            message = try await task.receive()
        } catch {
            throw end(after: error)
        }
        openIfNeeded()
        switch message {
        case .string(let text): observation.received(.text, Array(text.utf8))
        case .data(let data): observation.received(.binary, data)
        @unknown default: break
        }
        return message
    }

    /// Sends a ping, and returns once its pong came.
    ///
    /// - Throws: An `HTTPError` when the connection failed or closed first.
    public func sendPing() async throws(HTTPError) {
        openIfNeeded()
        observation.sent(.ping, [UInt8]())
        let failure: (any Error)? = await withCheckedContinuation { continuation in
            task.sendPing { continuation.resume(returning: $0) }
        }
        if let failure { throw end(after: failure) }
        observation.received(.pong, [UInt8]())
    }

    /// Closes the connection with `code` and `reason`, observed as closed by this side.
    ///
    /// - Parameters:
    ///   - code: The status code; `.normalClosure` by default.
    ///   - reason: The reason, at most 123 bytes of UTF-8 (RFC 6455, section 5.5); empty by
    ///     default.
    public func close(code: URLSessionWebSocketTask.CloseCode = .normalClosure, reason: String = "") {
        openIfNeeded()
        task.cancel(with: code, reason: reason.isEmpty ? nil : Data(reason.utf8))
        observation.closed(code: code.rawValue, reason: reason, by: .client)
    }

    /// The 101, once the handshake was answered: from the delegate, or read when a message
    /// went through (the observation takes the first and ignores the others).
    func openIfNeeded() {
        guard let response = task.response as? HTTPURLResponse else { return }
        observation.opened(head(of: response))
    }

    private func head(of response: HTTPURLResponse) -> HTTPResponse.Head {
        HTTPResponse.Head(
            requestID: observation.request.id, statusCode: response.statusCode,
            headers: URLSessionTransport.headers(of: response, decodedBodySize: nil), url: observation.request.url
        )
    }

    /// Observes the end a failed call shows, and returns the error to throw: the peer's close
    /// when the task has a close code, else the failure.
    private func end(after error: any Error) -> HTTPError {
        if task.closeCode != .invalid {
            openIfNeeded()
            let reason = task.closeReason.map { String(decoding: $0, as: UTF8.self) } ?? ""
            observation.closed(code: task.closeCode.rawValue, reason: reason, by: .server)
            return .transport(.connectionLost, message: "the peer closed the WebSocket connection (\(task.closeCode.rawValue))")
        }
        let failure = HTTPError(urlSessionError: error, url: observation.request.url)
        let refusal = (task.response as? HTTPURLResponse).flatMap { $0.statusCode == 101 ? nil : $0 }
        observation.failed(failure, response: refusal.map(head(of:)))
        return failure
    }
}
