extension HTTPEvent {
    /// What a WebSocket connection carried, on its terminal event (``Exchange/webSocket``):
    /// every message reported either way, emitted as an event or not, and its close.
    public struct WebSocketSummary: Sendable, Hashable {
        /// Messages sent: text, binary and control messages (ping, pong, close).
        public var sentMessageCount: Int
        /// Messages received, control messages included.
        public var receivedMessageCount: Int
        /// The payload bytes of the messages sent.
        public var sentByteCount: Int
        /// The payload bytes of the messages received.
        public var receivedByteCount: Int
        /// How the connection was closed; `nil` when it ended without a close handshake (it
        /// failed, was cut, or was cancelled).
        public var close: WebSocketClose?

        package init(sentMessageCount: Int, receivedMessageCount: Int, sentByteCount: Int, receivedByteCount: Int, close: WebSocketClose?) {
            self.sentMessageCount = sentMessageCount
            self.receivedMessageCount = receivedMessageCount
            self.sentByteCount = sentByteCount
            self.receivedByteCount = receivedByteCount
            self.close = close
        }
    }

    /// The close of a WebSocket connection: its status code, its reason, and which side
    /// closed it first.
    public struct WebSocketClose: Sendable, Hashable {
        /// The side that sent the first close frame.
        public enum Initiator: Sendable, Hashable {
            /// This process.
            case client
            /// The peer.
            case server
        }

        /// The status code (RFC 6455, section 7.4): 1000 for a normal closure, 1005 when the
        /// close frame carried none.
        public var code: Int
        /// The reason the close frame gave, redacted by the text rules; empty when none.
        public var reason: String
        /// The side that closed first.
        public var initiator: Initiator

        package init(code: Int, reason: String, initiator: Initiator) {
            self.code = code
            self.reason = reason
            self.initiator = initiator
        }
    }
}

extension HTTPEvent {
    /// Whether the event is a WebSocket connection's: its request's URL is `ws` or `wss`. Read
    /// by sinks for every event they are handed, so only a scheme as short as those two is
    /// compared, and lowercased; `http` and `https` are told apart by their length alone.
    package var isWebSocket: Bool {
        guard let scheme = requestRecord.request.url.scheme, scheme.utf8.count <= 3 else { return false }
        let lowercased = scheme.lowercased()
        return lowercased == "ws" || lowercased == "wss"
    }
}
