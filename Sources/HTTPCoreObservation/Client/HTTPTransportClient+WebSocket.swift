import HTTPCoreConcurrency

extension HTTPTransportClient {
    /// Begins observing a WebSocket connection opened with `request`, its handshake: emits
    /// `created` and `started`, and returns the observation its client reports the
    /// connection's open, messages and end to (see ``WebSocketObservation``).
    ///
    /// The connection is one exchange of one attempt, observed by this client's observers
    /// under its policy; its transport and middlewares take no part: the WebSocket client
    /// sends the handshake itself, with ``WebSocketObservation/request``'s headers (the
    /// policy's correlation header added).
    ///
    /// - Parameter request: The handshake: a `GET` to a `ws` or `wss` URL, without a body.
    /// - Returns: The connection's observation.
    /// - Throws: ``/HTTPCore/HTTPError/Code/invalidRequest`` for a request that is no
    ///   handshake (another method, a body, another scheme) or fails the checks of any request
    ///   (``/HTTPCore/HTTPRequest/validate()``), naming the field and the rule; no event is
    ///   emitted then.
    public func observeWebSocket(_ request: HTTPRequest) throws(HTTPError) -> WebSocketObservation {
        var outgoing = request
        try outgoing.prepareForWebSocketHandshake()
        let correlation = addCorrelationHeader(to: &outgoing) ?? reportedCorrelation(in: outgoing)
        let record = RequestRecord(request: outgoing, policy: sharedPolicy, correlation: correlation)
        let start = Moment.now()
        configuration.dispatcher.emit(.requestCreated) { HTTPEvent(name: $0, request: record, attempt: 0, timestamp: start.date) }
        configuration.dispatcher.emit(.requestStarted) { HTTPEvent(
            name: $0, request: record, attempt: 1, startedAt: start.date,
            attemptTiming: HTTPEvent.AttemptTiming(startedAt: start.date, ended: nil), timestamp: start.date
        ) }
        return WebSocketObservation(request: outgoing, record: record, dispatcher: configuration.dispatcher, policy: sharedPolicy, start: start)
    }
}
