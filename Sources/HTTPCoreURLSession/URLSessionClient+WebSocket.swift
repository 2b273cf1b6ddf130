import Foundation
import HTTPCore
import HTTPCoreObservation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension URLSessionClient {
    /// Opens a WebSocket connection with `request`, its handshake, on this client's session,
    /// observed by its observers as one exchange (see ``URLSessionWebSocket``).
    ///
    /// The request's headers and timeout go with the handshake, with the policy's correlation
    /// header; its middlewares take no part.
    ///
    /// - Parameters:
    ///   - request: The handshake: a `GET` to a `ws` or `wss` URL, without a body.
    ///   - protocols: The subprotocols to offer (`Sec-WebSocket-Protocol`), such as
    ///     `graphql-transport-ws`; none by default.
    /// - Returns: The connection, opening.
    /// - Throws: `HTTPError.Code.invalidRequest` for a request that is no handshake, naming
    ///   the field and the rule; `HTTPError.Code.sessionInvalidated` when the session was
    ///   invalidated.
    public func webSocket(_ request: HTTPRequest, protocols: [String] = []) throws(HTTPError) -> URLSessionWebSocket {
        let transport = base.transport
        do {
            try transport.refuseIfInvalidated()
        } catch {
            throw URLSessionTransport.sessionInvalidated
        }
        let observation = try base.observeWebSocket(request)
        var handshake = URLRequest(url: observation.request.url)
        for field in observation.request.headers {
            handshake.addValue(field.value, forHTTPHeaderField: field.name)
        }
        if !protocols.isEmpty { handshake.setValue(protocols.joined(separator: ", "), forHTTPHeaderField: "Sec-WebSocket-Protocol") }
        if let timeout = observation.request.timeout { handshake.timeoutInterval = max(1, timeout.rounded(.up)) }
        let task = session.webSocketTask(with: handshake)
        let socket = URLSessionWebSocket(task: task, observation: observation)
        transport.sessionDelegate?.register(task, opened: { [weak socket] in socket?.openIfNeeded() })
        task.resume()
        return socket
    }
}
