import HTTPCore

extension HTTPBody {
    /// One server-sent event of a body, as a browser's `EventSource` dispatches it: its type,
    /// its `id:` and its data.
    ///
    /// Read by ``HTTPBody/serverSentEvents(maximumEventBytes:)``. `retry:` lines and comments
    /// are not part of an event, as they are not of a browser's `MessageEvent`.
    public struct ServerSentEvent: Sendable, Hashable {
        /// The `event:` field; `nil` when the event has none or an empty one, which the
        /// standard dispatches as a `message` event.
        public var event: String?
        /// The event's own `id:` field (`""` for an empty one); `nil` when it has none. A client
        /// that reconnects sends the last one it got as `Last-Event-ID`.
        public var id: String?
        /// The `data:` lines, joined with line feeds (one space after each colon dropped),
        /// decoded as UTF-8 with invalid bytes replaced.
        public var data: String

        /// An event of type `event` with identifier `id` carrying `data`.
        ///
        /// - Parameters:
        ///   - event: The `event:` field; `nil` for a `message` event.
        ///   - id: The `id:` field; `nil` when there is none.
        ///   - data: The data, its lines joined with line feeds.
        public init(event: String? = nil, id: String? = nil, data: String) {
            self.event = event
            self.id = id
            self.data = data
        }
    }
}
