import HTTPCore
import HTTPCoreObservation

/// An ``/HTTPCoreObservation/HTTPObserver`` that logs every HTTP exchange to dev-see.
///
/// Subscribing it to a dispatcher is the whole integration: every request of every client
/// on that dispatcher is logged exactly once, at its terminal event, with request and
/// response joined. A request that middlewares sent more than once also logs each attempt
/// that was retried (``/HTTPCoreObservation/HTTPEvent/Name/requestRetried``), so a 503 followed by a 200 shows as
/// two logs of one request id, each with its `attempt` number. The request's metadata (a
/// trace id, a route template, a server's incoming `request_id`) travels as the payload's
/// `metadata` object under its own keys; the client's own number for the exchange is the
/// payload's `requestId`, beside it, so neither hides the other.
///
/// A response read with ``/HTTPCore/HTTPClient/send(_:body:receive:isolation:)`` is logged at its end
/// like any other, with what really went through: `streamed: true`, `requestBodyBytes` and
/// `responseBodyBytes` (the body shown is the first bytes the policy captured, marked
/// `…[truncated: N bytes in all]` when there was more). When it carries server-sent events
/// or JSON lines, each message also gets a log of its own as it arrives, so a viewer watches
/// an LLM's tokens come in: the exchange's method and status, its URL with the fragment
/// `#message-N` (N from 0; dev-see shows and searches URLs), the duration from the attempt's
/// start to the message, the message's data (redacted by the policy) as `responseBody`, the
/// exchange's `requestId` and `correlationId`, and `streamMessage`
/// (`{"index","kind","event","eventId","byteCount"}`). They are bounded by the client's
/// `HTTPCorePolicy.streamMessages` and by ``DevSeeLoggerConfiguration/maxMessageLogsPerExchange``;
/// the exchange's log counts them (`streamMessageCount`, `unloggedStreamMessageCount`) and
/// says so in a first line of its response body. Logs are uploaded two at a time by
/// default, so a server may store neighbouring messages out of order: `streamMessage.index`
/// tells their order.
///
/// What interpreters derived reads at a glance in the viewer (``/HTTPCoreObservation/HTTPEvent/attachments``,
/// an LLM call's facts with HTTPCoreGenAI): each note's name and summary
/// (`[genAI] claude-sonnet-4 · 3,097 in, 15 out tokens · stop`) is a response header named
/// `x-devsee-note-` and the note's name in lowercase, as the attempt, redirect, error and stream
/// notes are, and also starts a response body that is not JSON, above a stream's answer (a JSON
/// body is left whole, for the viewer to pretty-print); its attributes are stored under its
/// name, an object of names to values.
///
/// A WebSocket connection (``/HTTPCoreObservation/WebSocketObservation``) is one exchange and
/// reads as one: a row when its 101 arrives (method `WS`, its `ws`/`wss` URL, status 101, the
/// handshake's duration, and a `x-devsee-note-websocket` note saying that it is open and that
/// a closing row follows), and a row when it ends, timed over its whole life, whose note gives
/// the close code, reason and side, and the messages and bytes each way, and whose response
/// body lists its messages as one conversation (`↑ +12 ms text {...}`), redacted by the
/// client's policy. A connection that failed reads as a failed exchange (`WS failed after
/// 101`, 599). The logger keeps at most the first and the latest 50 messages of a connection
/// (and half of ``DevSeeLoggerConfiguration/maxBodyBytes`` of their data each) for up to 100
/// connections open at once; the row says how many it does not list. Each message gets a row
/// of its own (`WS ↑ #3`, the data sent as its request body, received as its response body)
/// only within ``DevSeeLoggerConfiguration/maxMessageLogsPerExchange``, as a stream's do.
///
/// ```swift
/// let dispatcher = HTTPEventDispatcher()
/// dispatcher.subscribe(DevSeeObserver())
/// let client = URLSessionClient(dispatcher: dispatcher)
/// ```
///
/// An exchange whose note reports a failure its 1xx–3xx status does not show (an LLM error in
/// a 200 stream) reads as failed, as the console and Loki make it a warning: status 599,
/// method `POST failed after 200`, the note's summary in its header (and above a body that is
/// not JSON).
///
/// What a log shows is what the client's `HTTPCorePolicy` exposes, redacted by its
/// `HTTPCorePolicy.redactor`: the one place exchanges are redacted (the logger's
/// ``DevSeeLoggerConfiguration/redactor`` is for its manual API). `handle(_:)` runs on the
/// task that emitted the event and only hands the event to the logger's buffer (a message
/// event's index is read first, redacting nothing); building the log (which reads, and so
/// redacts, the event's views), encoding and uploading the payload happen on the logger's
/// workers. An event whose bodies are large is queued with its raw bodies cut to a bounded
/// copy of their first bytes, so that the buffer does not keep them alive: `handle(_:)` never
/// redacts, and never does work that grows with a body.
/// Every log the buffer accepts ends in one counter of the logger's ``DevSeeLogger/statistics``.
public struct DevSeeObserver: HTTPObserver {
    private let fixedLogger: DevSeeLogger?

    /// The logger that ships the logs: the one given at creation, else
    /// `DevSeeLoggerCenter.shared` at the time of each event, so an observer created before
    /// `DevSeeLoggerCenter.configure(_:)` follows the configured logger.
    public var logger: DevSeeLogger { fixedLogger ?? DevSeeLoggerCenter.shared }

    /// Creates an observer.
    ///
    /// - Parameter logger: The logger to ship through; `nil` for `DevSeeLoggerCenter.shared`
    ///   at the time of each event.
    public init(logger: DevSeeLogger? = nil) {
        fixedLogger = logger
    }

    /// Terminal, retried and message events, and `received` for the 101 that opens a WebSocket
    /// connection: the only ones that make a log.
    public var handledEventNames: Set<HTTPEvent.Name>? {
        HTTPEvent.Name.terminal.union([.requestRetried, .responseMessage, .responseReceived])
    }

    /// Logs terminal, retried and message events, and a WebSocket connection's opening;
    /// ignores the others (the `received` event of any other exchange, after one string
    /// comparison of its URL's scheme).
    ///
    /// - Parameter event: The event the dispatcher delivers, on the task that emitted it.
    public func handle(_ event: HTTPEvent) {
        guard event.name.isTerminal || event.name == .requestRetried || event.name == .responseMessage
            || (event.name == .responseReceived && event.isWebSocket)
        else { return }
        logger.accept(event)
    }
}
