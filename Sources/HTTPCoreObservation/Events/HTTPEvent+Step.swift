import Foundation

extension HTTPEvent {
    /// What happened at this step of the exchange, with exactly what the step carries.
    ///
    /// ```swift
    /// switch event.step {
    /// case .succeeded(let response, let exchange):
    ///     print(event.request.method, response.statusCode, exchange.durationMilliseconds)
    /// case .failed(let error, _, _):
    ///     print(event.request.method, "failed:", error.code)
    /// case .created, .started, .received, .message, .retried, .cancelled:
    ///     break
    /// }
    /// ```
    ///
    /// Each case is one of the names (``Name``): an observer that handles a few names reads
    /// their payloads here, and one that counts names needs only ``name``. Its responses and
    /// messages are views redacted field by field on first read, as ``request`` is.
    public enum Step: Sendable {
        /// ``Name/requestCreated``: the client accepted the request, before any middleware ran.
        case created
        /// ``Name/requestStarted``: an attempt was handed to the transport (also emitted, once,
        /// for a request cancelled before its first attempt).
        case started(Attempt)
        /// ``Name/responseReceived``: a complete response arrived, or, for a streaming
        /// exchange, its head; the attempt ended when it arrived.
        case received(Response, Attempt)
        /// ``Name/responseMessage``: one server-sent event or JSON line of a streamed response,
        /// or one message of a WebSocket connection, either way.
        case message(StreamMessage, Attempt)
        /// ``Name/requestRetried``: the attempt ended with a response or an error, and another
        /// attempt follows.
        case retried(Result<Response, HTTPError>, Attempt)
        /// ``Name/requestSucceeded``: terminal; a complete response, whatever its status.
        case succeeded(Response, Exchange)
        /// ``Name/requestFailed``: terminal; no complete response. A body that failed after
        /// its head carries that head's response.
        case failed(HTTPError, Response?, Exchange)
        /// ``Name/requestCancelled``: terminal; the exchange was cancelled, after its head
        /// arrived when it carries a response.
        case cancelled(Response?, Exchange)
    }

    /// One attempt: one time the request was handed to the transport.
    public struct Attempt: Sendable, Hashable {
        /// The attempt's number: 1 for the first, 2 for the first retry, and so on.
        public var number: Int
        /// When it was handed to the transport.
        public var startedAt: Date
        /// When it ended (its response head arrived, or it failed); `nil` while it runs, on
        /// ``Step/started(_:)`` and ``Step/message(_:_:)``. It is ``startedAt`` plus
        /// ``durationMilliseconds``, so the two clocks agree.
        public var endedAt: Date?
        /// Milliseconds from ``startedAt`` to ``endedAt`` on a monotonic clock: the transport's
        /// share of the exchange, with none of the time middlewares spent around it; `nil`
        /// while it runs.
        public var durationMilliseconds: Double?
    }

    /// A whole exchange, as its terminal event sums it up.
    public struct Exchange: Sendable, Hashable {
        /// When the exchange started: before the first middleware ran.
        public var startedAt: Date
        /// When it ended.
        public var endedAt: Date
        /// Milliseconds from ``startedAt`` to ``endedAt`` on a monotonic clock, retries and
        /// waits included.
        public var durationMilliseconds: Double
        /// Its last attempt; `nil` when a middleware answered without one.
        public var lastAttempt: Attempt?
        /// For a streamed response of server-sent events or JSON lines: how many messages
        /// arrived; for a WebSocket connection, how many went either way; emitted as events
        /// or not; 0 otherwise.
        public var streamMessageCount: Int
        /// How many of ``streamMessageCount`` were not emitted as events: past the policy's
        /// ``HTTPCorePolicy/StreamMessageCapture/maxCount``, or all when bodies are omitted.
        public var droppedStreamMessageCount: Int
        /// For a WebSocket connection (``WebSocketObservation``): its messages and bytes each
        /// way and its close; `nil` for an HTTP exchange.
        public var webSocket: WebSocketSummary?
    }

    /// What this step carries (see ``Step``).
    ///
    /// Every event carries what its name promises: the client and the factories
    /// (``requestSucceeded(_:to:attempt:startedAt:endedAt:policy:attachments:)`` and the others)
    /// are the only ways to make one, and each gives a received event its response, a message
    /// event its message, a retried event its response or error, a success its response, a
    /// failure its error, and every step but `created` its times. A break of that is a bug of
    /// this package, and stops here rather than showing a step that did not happen.
    public var step: Step {
        switch name {
        case .requestCreated:
            .created
        case .requestStarted:
            .started(currentAttempt)
        case .responseReceived:
            .received(response ?? Self.broken("a received event carries its response"), currentAttempt)
        case .responseMessage:
            .message(message ?? Self.broken("a message event carries its message"), currentAttempt)
        case .requestRetried:
            .retried(retriedOutcome, currentAttempt)
        case .requestSucceeded:
            .succeeded(response ?? Self.broken("a succeeded event carries its response"), exchange)
        case .requestFailed:
            .failed(error ?? Self.broken("a failed event carries its error"), response, exchange)
        case .requestCancelled:
            .cancelled(response, exchange)
        default:
            Self.broken("only the package's own tests make an event of another name, and they never read its step")
        }
    }

    /// Stops on an event that does not carry what its name promises (see ``step``); typed as
    /// what was missing, so that it stands where that value would.
    private static func broken<Missing>(_ invariant: String) -> Missing {
        preconditionFailure("HTTPEvent.step: \(invariant)")
    }

    /// What a retried attempt ended with: its error, else its response. The client and
    /// ``requestRetried(_:attempt:outcome:startedAt:endedAt:policy:)`` give every retried event
    /// one of the two.
    private var retriedOutcome: Result<Response, HTTPError> {
        if let error { return .failure(error) }
        return .success(response ?? Self.broken("a retried event carries its response or its error"))
    }

    /// The attempt this event describes, with its end when it has one.
    private var currentAttempt: Attempt {
        let timing = attemptTiming ?? Self.broken("an event of an attempt carries the attempt's start")
        return Attempt(
            number: attempt, startedAt: timing.startedAt, endedAt: timing.ended?.date,
            durationMilliseconds: timing.ended?.durationMilliseconds
        )
    }

    /// The exchange a terminal event ends.
    private var exchange: Exchange {
        guard let startedAt, let endedAt, let durationMilliseconds else {
            preconditionFailure("HTTPEvent.step: a terminal event carries the exchange's start, end and duration")
        }
        let lastAttempt = attemptTiming.map {
            Attempt(number: attempt, startedAt: $0.startedAt, endedAt: $0.ended?.date, durationMilliseconds: $0.ended?.durationMilliseconds)
        }
        return Exchange(
            startedAt: startedAt, endedAt: endedAt, durationMilliseconds: durationMilliseconds, lastAttempt: lastAttempt,
            streamMessageCount: streamMessageCount, droppedStreamMessageCount: droppedStreamMessageCount, webSocket: webSocket
        )
    }
}
