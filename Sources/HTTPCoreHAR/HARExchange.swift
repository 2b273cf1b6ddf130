import Foundation
import HTTPCore
import HTTPCoreObservation

/// One recorded exchange (or retried attempt): what its event exposed, redacted by the
/// client's policy, and its timings. Holds no raw request or response, so its size is
/// bounded by the policy's body cap.
struct HARExchange: Sendable {
    /// `requestSucceeded`, `requestFailed`, `requestCancelled` or `requestRetried`.
    let outcome: HTTPEvent.Name
    let requestID: HTTPRequest.ID
    let attempt: Int
    let correlationID: String?
    /// The request that got the final status (after redirects, the last one sent).
    let request: HTTPEvent.ExposedRequest
    /// The request the exchange started with, when redirects led elsewhere.
    let originalRequest: HTTPEvent.ExposedRequest?
    /// How the transport reached the response, when it followed redirects.
    let redirection: HTTPRedirection?
    /// The size of the body sent, whatever the policy captured; 0 for a WebSocket handshake,
    /// whose messages ``webSocket`` counts.
    let requestBodyByteCount: Int
    let response: HTTPEvent.ExposedResponse?
    /// The size of the body received; `nil` without a response, 0 for a WebSocket's 101.
    let responseBodyByteCount: Int?
    let error: HTTPError?
    /// When the exchange (terminal events) or the attempt (retried events) started.
    let startedAt: Date
    let timings: HARTimings
    /// Whether the exchange was made with the streaming `send` (its sizes are what really
    /// went through, its texts the first bytes the policy captured).
    let isStreamed: Bool
    /// What a WebSocket connection carried and how it closed (its terminal event's
    /// ``/HTTPCoreObservation/HTTPEvent/Exchange/webSocket``); `nil` for any other exchange.
    let webSocket: HTTPEvent.WebSocketSummary?
    /// The server-sent events or JSON lines seen in the response, or the messages of a
    /// WebSocket connection (terminal events of streamed exchanges only); 0 otherwise.
    let streamMessageCount: Int
    /// The messages recorded, first ones first: at most the recorder's
    /// ``HARRecorder/maxStreamMessagesPerEntry``.
    let messages: [HARStreamMessage]
    /// The notes of what interpreters derived from the exchange (``/HTTPCoreObservation/HTTPEvent/attachments``).
    let notes: [HTTPExchangeNote]
    /// The interpreters of the client's policy, which may know the stream's shape.
    let interpreters: [any HTTPExchangeInterpreter]
    /// The client's policy's redactor, which masked every field: it masks the stream's
    /// answer once its deltas are joined (`StreamAnswer`).
    let redactor: Redactor

    /// The exchange a terminal or retried event describes, timed by the attempt it carries,
    /// with the messages recorded for its attempt (``/HTTPCoreObservation/HTTPEvent/Name/responseMessage``
    /// events, first ones first).
    /// `notes`: the notes of its attachments, when they were made already; made here when
    /// omitted.
    init(event: HTTPEvent, messageEvents: [HTTPEvent], notes: [HTTPExchangeNote]? = nil) {
        self.init(
            event: event,
            messages: messageEvents.compactMap { messageEvent in messageEvent.message.map { HARStreamMessage(event: messageEvent, message: $0) } },
            notes: notes
        )
    }

    /// The exchange a terminal or retried event describes, timed by the attempt it carries,
    /// with the messages recorded for its attempt; `notes` as above.
    init(event: HTTPEvent, messages: [HARStreamMessage] = [], notes: [HTTPExchangeNote]? = nil) {
        let startedAt = event.startedAt ?? event.attemptStartedAt ?? event.timestamp
        let duration = event.durationMilliseconds ?? max(0, (event.endedAt ?? event.timestamp).timeIntervalSince(startedAt) * 1000)
        outcome = event.name
        requestID = event.requestID
        attempt = event.attempt
        correlationID = event.correlationID
        request = event.finalRequest
        redirection = event.response?.redirection
        originalRequest = redirection == nil ? nil : event.request.exposed
        webSocket = event.webSocket
        // A connection's messages are no body: HAR tools add body sizes up as page weight.
        requestBodyByteCount = webSocket == nil ? event.finalRequestBodyByteCount : 0
        response = event.response?.exposed
        responseBodyByteCount = webSocket == nil ? event.responseBodyByteCount : event.responseBodyByteCount.map { _ in 0 }
        error = event.error
        self.startedAt = startedAt
        isStreamed = event.isStreamed
        streamMessageCount = max(event.streamMessageCount, messages.count)
        self.messages = messages
        redactor = event.redactor
        self.notes = notes ?? event.notes(redactedBy: .none)
        interpreters = event.interpreters
        timings = HARTimings(
            start: startedAt, durationMilliseconds: duration, attemptStart: event.attemptStartedAt,
            attemptDurationMilliseconds: event.attemptDurationMilliseconds
        )
    }
}
