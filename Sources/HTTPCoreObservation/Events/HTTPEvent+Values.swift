import Foundation

/// Events as values: one factory per lifecycle step, taking exactly what that step carries,
/// so an observer can be unit-tested without a client or a server.
///
/// ```swift
/// let request = HTTPRequest(url: URL(string: "https://api.example.com/orders?token=s3cr3t")!)
/// let response = HTTPResponse(requestID: request.id, statusCode: 503, headers: [:], body: Data(), url: request.url)
/// let start = Date()
/// observer.handle(.requestFailed(.timeout, request: request, startedAt: start, endedAt: start + 30))
/// observer.handle(.requestSucceeded(response, to: request, startedAt: start, endedAt: start + 0.2))
/// ```
///
/// A terminal event can carry what an interpreter derived from the exchange: pass it as
/// `attachments:` (``HTTPEvent/attachments``).
///
/// Each event is what a client would emit for the same exchange: the policy redacts the
/// request, response, error and messages the same way when they are read (`.default` unless
/// given), and the times become the step's ``HTTPEvent/Attempt`` and ``HTTPEvent/Exchange``. An exchange with one attempt has its attempt's times equal to its own.
extension HTTPEvent {
    /// `http.request.created`: `request` entered the client, before any middleware ran.
    public static func requestCreated(_ request: HTTPRequest, at time: Date = Date(), policy: HTTPCorePolicy = .default) -> HTTPEvent {
        HTTPEvent(name: .requestCreated, request: record(request, policy), attempt: 0, timestamp: time)
    }

    /// `http.request.started`: attempt number `attempt` (1 for the first) was handed to the
    /// transport at `time`.
    public static func requestStarted(
        _ request: HTTPRequest, attempt: Int = 1, at time: Date = Date(), policy: HTTPCorePolicy = .default
    ) -> HTTPEvent {
        HTTPEvent(
            name: .requestStarted, request: record(request, policy), attempt: attempt, startedAt: time,
            attemptTiming: AttemptTiming(startedAt: time, ended: nil), timestamp: time
        )
    }

    /// `http.response.received`: the response to attempt `attempt`, started at `startedAt`,
    /// arrived at `receivedAt`.
    public static func responseReceived(
        _ response: HTTPResponse, to request: HTTPRequest, attempt: Int = 1, startedAt: Date, receivedAt: Date,
        policy: HTTPCorePolicy = .default
    ) -> HTTPEvent {
        HTTPEvent(
            name: .responseReceived, request: record(request, policy), attempt: attempt,
            response: ResponseRecord(response: response, policy: policy), startedAt: startedAt,
            attemptTiming: AttemptTiming(startedAt: startedAt, ended: span(startedAt, receivedAt)), timestamp: receivedAt
        )
    }

    /// `http.response.message`: message number `index` (from 0) of a streamed response, a
    /// server-sent event or a JSON line, with the payload `data`.
    public static func responseMessage(
        _ data: String, kind: StreamMessage.Kind = .serverSentEvent, eventType: String? = nil, index: Int = 0,
        of response: HTTPResponse, to request: HTTPRequest, attempt: Int = 1, startedAt: Date,
        millisecondsSincePrevious: Double? = nil, at time: Date = Date(), policy: HTTPCorePolicy = .default
    ) -> HTTPEvent {
        let bytes = Data(data.utf8)
        let message = StreamMessageParser.Message(
            kind: kind, eventType: eventType, eventID: nil, data: bytes, byteCount: bytes.count, isTruncated: false
        )
        return HTTPEvent(
            name: .responseMessage, request: record(request, policy, isStreamed: true), attempt: attempt,
            response: ResponseRecord(response: response, policy: policy), startedAt: startedAt,
            attemptTiming: AttemptTiming(startedAt: startedAt, ended: nil),
            message: StreamMessageRecord(
                raw: message, index: index, millisecondsSincePrevious: millisecondsSincePrevious, policy: SharedPolicy(policy)
            ),
            timestamp: time
        )
    }

    /// `http.request.retried`: attempt `attempt` ended with `outcome`, a response or an
    /// error, and another attempt follows.
    public static func requestRetried(
        _ request: HTTPRequest, attempt: Int, outcome: Result<HTTPResponse, HTTPError>, startedAt: Date, endedAt: Date,
        policy: HTTPCorePolicy = .default
    ) -> HTTPEvent {
        let ended = span(startedAt, endedAt)
        return HTTPEvent(
            name: .requestRetried, request: record(request, policy), attempt: attempt,
            response: (try? outcome.get()).map { ResponseRecord(response: $0, policy: policy) }, error: outcome.failure,
            startedAt: startedAt, ended: ended, attemptTiming: AttemptTiming(startedAt: startedAt, ended: ended)
        )
    }

    /// `http.request.succeeded`: the exchange, started at `startedAt`, ended at `endedAt`
    /// with `response`, after `attempt` attempts; `attachments`, what interpreters derived from
    /// it (``HTTPEvent/attachments``).
    public static func requestSucceeded(
        _ response: HTTPResponse, to request: HTTPRequest, attempt: Int = 1, startedAt: Date, endedAt: Date,
        policy: HTTPCorePolicy = .default, attachments: [any HTTPExchangeAttachment] = []
    ) -> HTTPEvent {
        let ended = span(startedAt, endedAt)
        return HTTPEvent(
            name: .requestSucceeded, request: record(request, policy), attempt: attempt,
            response: ResponseRecord(response: response, policy: policy), startedAt: startedAt, ended: ended,
            attemptTiming: AttemptTiming(startedAt: startedAt, ended: ended), attachments: attachments
        )
    }

    /// `http.request.failed`: the exchange ended with `error` (a body that failed after its
    /// `response` head arrived carries both), or `http.request.cancelled` when `error` is
    /// ``/HTTPCore/HTTPError/cancelled``, as a client names it; `attachments`, what interpreters derived from it,
    /// with what arrived before the end (``HTTPEvent/attachments``).
    public static func requestFailed(
        _ error: HTTPError, request: HTTPRequest, response: HTTPResponse? = nil, attempt: Int = 1, startedAt: Date, endedAt: Date,
        policy: HTTPCorePolicy = .default, attachments: [any HTTPExchangeAttachment] = []
    ) -> HTTPEvent {
        let ended = span(startedAt, endedAt)
        return HTTPEvent(
            name: error.code == .cancelled ? .requestCancelled : .requestFailed, request: record(request, policy), attempt: attempt,
            response: response.map { ResponseRecord(response: $0, policy: policy) }, error: error, startedAt: startedAt,
            ended: ended, attemptTiming: AttemptTiming(startedAt: startedAt, ended: ended), attachments: attachments
        )
    }

    private static func record(_ request: HTTPRequest, _ policy: HTTPCorePolicy, isStreamed: Bool = false) -> RequestRecord {
        RequestRecord(request: request, policy: policy, correlation: nil, isStreamed: isStreamed)
    }

    /// The end of a span from `start` to `end`, with its length in milliseconds.
    private static func span(_ start: Date, _ end: Date) -> (date: Date, durationMilliseconds: Double) {
        (end, end.timeIntervalSince(start) * 1000)
    }
}
