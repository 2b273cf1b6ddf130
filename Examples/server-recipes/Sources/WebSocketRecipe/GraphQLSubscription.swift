import Foundation
import HTTPCore
import HTTPCoreObservation
import HTTPCoreWebSocket
import NIOConcurrencyHelpers
import NIOCore
import WSClient

/// A GraphQL subscription over graphql-ws (subprotocol `graphql-transport-ws`) through
/// HTTPCoreWebSocket: the connection is one exchange for every observer of the client, its
/// `connection_init` token masked wherever the exchange is shown.
public struct GraphQLSubscription: Sendable {
    /// The server did not take the subscription: it closed the connection (graphql-ws closes
    /// with 4403 for a token it refuses) or answered it with an `error` message.
    public struct Refused: Error, CustomStringConvertible {
        /// What the server said: the close code and reason, or its error message.
        public let description: String
    }

    /// The server's `wss` (or `ws`) URL.
    public let url: URL
    /// The token sent in the `connection_init` payload, as `authToken`.
    public let token: String

    /// A subscription to the server at `url`, authorized by `token`.
    public init(url: URL, token: String) {
        self.url = url
        self.token = token
    }

    /// Subscribes with `query` and returns the `data` of each `next` message, as JSON, until
    /// the server completes the subscription; then closes the connection (1000).
    ///
    /// - Parameters:
    ///   - query: The subscription's GraphQL document.
    ///   - client: The client whose observers see the connection.
    /// - Returns: Each result's `data`, as compact JSON, in order.
    /// - Throws: ``Refused`` when the server refused the subscription, or the connection's `HTTPError`.
    public func results(of query: String, with client: HTTPTransportClient<some HTTPTransport>) async throws -> [String] {
        let handshake = HTTPRequest(url: url, headers: ["Sec-WebSocket-Protocol": "graphql-transport-ws"], timeout: 10)
        let initMessage = try Self.json(["type": "connection_init", "payload": ["authToken": token]])
        let subscribe = try Self.json(["id": "1", "type": "subscribe", "payload": ["query": query]])
        // Filled by the handler, which runs on the connection's task.
        let results = NIOLockedValueBox<[String]>([])
        let close = try await client.webSocket(handshake) { inbound, outbound, _ in
            try await outbound.write(.text(initMessage))
            for try await message in inbound.messages(maxSize: 1 << 20) {
                guard case .text(let text) = message, let object = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any] else { continue }
                switch object["type"] as? String {
                case "connection_ack":
                    try await outbound.write(.text(subscribe))
                case "next":
                    let payload = object["payload"] as? [String: Any] ?? [:]
                    let data = try Self.json(payload["data"] ?? NSNull())
                    results.withLockedValue { $0.append(data) }
                case "error":
                    throw Refused(description: text)
                case "complete":
                    try await outbound.close(.normalClosure, reason: "complete")
                    return
                default:
                    continue
                }
            }
        }
        if let close, close.closeCode != .normalClosure {
            throw Refused(description: "closed \(UInt16(webSocketErrorCode: close.closeCode)) \(close.reason ?? "")")
        }
        return results.withLockedValue { $0 }
    }

    private static func json(_ object: Any) throws -> String {
        String(decoding: try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]), as: UTF8.self)
    }
}
