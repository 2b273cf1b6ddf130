import Foundation

/// One step in the life of an HTTP exchange, as the policy exposes it.
///
/// Every request produces, in order: ``Name/requestCreated``, ``Name/requestStarted``,
/// ``Name/responseReceived`` (only when a response arrived), then exactly one terminal event:
/// ``Name/requestSucceeded``, ``Name/requestFailed`` or ``Name/requestCancelled``.
///
/// With middlewares that send the request more than once (see ``/HTTPCore/HTTPMiddleware``), each
/// attempt has its own `started` (and `received`, when a response arrived), and each attempt
/// that another one follows is reported by ``Name/requestRetried`` before the next `started`:
///
/// ```
/// created (attempt 0)
/// started (1) → received (1, 503) → retried (1, 503)
/// started (2) → received (2, 200) → succeeded (2, 200)
/// ```
///
/// All of them carry the request's one id; ``attempt`` tells the attempts apart. A middleware
/// that answers without calling `next` produces `created` then the terminal event, with
/// attempt 0. What each step carries is ``step``: a case per name, with its payload.
///
/// The request (``request``) and the responses a step carries are views, redacted by the
/// client's ``HTTPCorePolicy`` the first time a field is read (by the sinks that ship or
/// store, on their workers), field by field: reading a URL redacts the URL alone. Each result
/// is shared by every observer and every event of the exchange. What metrics and traces need
/// (the method, scheme, host and port, the status code, the byte counts, the times, the
/// error's type) is read from the raw exchange without redacting anything.
public struct HTTPEvent: Sendable {
    /// The name of a lifecycle step, such as `"http.request.succeeded"`.
    public struct Name: Sendable, Hashable, CustomStringConvertible {
        /// The dotted name.
        public let rawValue: String
        /// Which built-in step the name is, so that names compare as one byte: every event is
        /// matched against a few names per observer on its way to it.
        private let step: Step

        /// The name of `rawValue`: one of the built-in steps, or another name only the
        /// package's tests make.
        package init(_ rawValue: String) {
            self.rawValue = rawValue
            step = Step.allCases.first { $0.rawValue == rawValue } ?? .other
        }

        private init(_ step: Step) {
            rawValue = step.rawValue
            self.step = step
        }

        /// The built-in steps, by their dotted names.
        private enum Step: String, CaseIterable {
            case other = ""
            case created = "http.request.created", started = "http.request.started", retried = "http.request.retried"
            case received = "http.response.received", message = "http.response.message"
            case succeeded = "http.request.succeeded", failed = "http.request.failed", cancelled = "http.request.cancelled"
        }

        /// Names are equal when their dotted names are; built-in ones compare by step alone.
        public static func == (lhs: Name, rhs: Name) -> Bool {
            lhs.step == .other && rhs.step == .other ? lhs.rawValue == rhs.rawValue : lhs.step == rhs.step
        }

        /// Hashes the dotted name.
        public func hash(into hasher: inout Hasher) {
            hasher.combine(rawValue)
        }

        /// `http.request.created`: the client accepted the request.
        public static let requestCreated = Name(.created)
        /// `http.request.started`: an attempt was handed to the transport (also emitted, once,
        /// for a request cancelled before its first attempt, so that every request that got
        /// that far has the same sequence).
        public static let requestStarted = Name(.started)
        /// `http.request.retried`: an attempt ended and another follows (a middleware sent
        /// the request again). Carries the ended attempt's number, request, response or
        /// error, start and duration; emitted before the next attempt's `started`.
        public static let requestRetried = Name(.retried)
        /// `http.response.received`: a complete response arrived, or, for a streaming exchange,
        /// its head (the body follows; the terminal event comes after it).
        public static let responseReceived = Name(.received)
        /// `http.response.message`: one server-sent event or JSON line of a streamed response
        /// arrived, or one message of a WebSocket connection went either way (``Step/message(_:_:)``); between `received` and the terminal event, at
        /// most ``HTTPCorePolicy/StreamMessageCapture/maxCount`` per exchange.
        public static let responseMessage = Name(.message)
        /// `http.request.succeeded`: terminal; a complete response, whatever its status.
        public static let requestSucceeded = Name(.succeeded)
        /// `http.request.failed`: terminal; no complete response (``Step/failed(_:_:_:)``).
        public static let requestFailed = Name(.failed)
        /// `http.request.cancelled`: terminal; the exchange was cancelled.
        public static let requestCancelled = Name(.cancelled)

        /// The three terminal names.
        public static let terminal: Set<Name> = [.requestSucceeded, .requestFailed, .requestCancelled]

        /// Whether this is one of the three terminal names.
        public var isTerminal: Bool {
            step == .succeeded || step == .failed || step == .cancelled
        }

        /// A bit of its own for each built-in name, 0 for another: a set of built-in names is
        /// then one integer, which the dispatcher tests an event's name against with one `&`
        /// rather than comparing it with each name an observer handles.
        var builtInBit: UInt16 {
            switch step {
            case .other: 0
            case .created: 1 << 0
            case .started: 1 << 1
            case .retried: 1 << 2
            case .received: 1 << 3
            case .message: 1 << 4
            case .succeeded: 1 << 5
            case .failed: 1 << 6
            case .cancelled: 1 << 7
            }
        }

        /// The dotted name.
        public var description: String { rawValue }
    }

    /// The lifecycle step.
    public var name: Name { storage.name }
    /// The wall-clock time at which the event was emitted.
    public var timestamp: Date { storage.timestamp }
    /// The attempt this event describes: 1 for the first time the request is handed to the
    /// transport, 2 for the first retry, and so on; 0 on ``Name/requestCreated``, before any.
    ///
    /// A terminal event carries the number of the last attempt (0 when a middleware answered
    /// without one).
    public var attempt: Int { storage.attempt }
    /// When the attempt was handed to the transport (on `started`, `received` and `retried`),
    /// or when the exchange started (on terminal events; with middlewares, before the first
    /// of them ran); `nil` on `created`.
    package var startedAt: Date? { storage.startedAt }
    /// The wall-clock time at which the exchange (terminal events) or the attempt
    /// (``Name/requestRetried``) ended; `nil` on the others.
    package var endedAt: Date? { storage.endedAt }
    /// Milliseconds from ``startedAt`` to ``endedAt`` on a monotonic clock: the whole
    /// exchange on terminal events, retries and waits included; the attempt on
    /// ``Name/requestRetried``; `nil` on the others.
    package var durationMilliseconds: Double? { storage.durationMilliseconds }

    /// When the attempt this event describes (``attempt``) was handed to the transport: set
    /// on `started`, `received` and `retried`, and on terminal events when the exchange made
    /// an attempt (the last one's); `nil` on `created` and when a middleware answered
    /// without an attempt.
    package var attemptStartedAt: Date? { attemptTiming?.startedAt }
    /// When that attempt ended (its response arrived, or it failed): set on `received`,
    /// `retried` and terminal events when the exchange made an attempt. It is
    /// ``attemptStartedAt`` plus ``attemptDurationMilliseconds``, so the two clocks agree.
    package var attemptEndedAt: Date? { attemptTiming?.ended?.date }
    /// Milliseconds from ``attemptStartedAt`` to ``attemptEndedAt`` on a monotonic clock: the
    /// transport's share of the exchange, with none of the time middlewares spent around it.
    package var attemptDurationMilliseconds: Double? { attemptTiming?.ended?.durationMilliseconds }

    /// When an attempt started and, once it ended, its end.
    struct AttemptTiming: Sendable {
        let startedAt: Date
        let ended: (date: Date, durationMilliseconds: Double)?
    }

    var attemptTiming: AttemptTiming? { storage.attemptTiming }

    /// The error of a failed exchange or attempt; set on ``Name/requestFailed`` (and
    /// `.cancelled` on ``Name/requestCancelled``), and on ``Name/requestRetried`` when the
    /// attempt had no response. A transport message is scrubbed by the policy's redactor
    /// (``/HTTPCoreRedaction/Redactor/redactedText(_:)``) when first read.
    package var error: HTTPError? { errorRecord?.exposed }

    var errorRecord: ErrorRecord? { storage.errorRecord }

    var requestRecord: RequestRecord { storage.requestRecord }
    var responseRecord: ResponseRecord? { storage.responseRecord }

    /// The identifier of the request this event belongs to.
    public var requestID: HTTPRequest.ID { requestRecord.request.id }
    /// The correlation id sent with the request, when the policy names a correlation header.
    ///
    /// A value the client generated is shown as it is; a value the caller set is redacted
    /// like the header's value would be (``/HTTPCoreRedaction/Redactor/mask`` when the header name is sensitive,
    /// or at `.strict` unless allowlisted), so a sensitive header never leaks through it.
    public var correlationID: String? { requestRecord.exposedCorrelationID }
    /// The request, as the policy exposes it: as the caller built it on
    /// ``Name/requestCreated``, as it went out (middlewares' changes included) on the others.
    public var request: Request { Request(record: requestRecord) }
    /// The request's ``/HTTPCore/HTTPRequest/metadata`` as the policy exposes it (redacted like headers).
    /// Reading it redacts the metadata alone.
    package var metadata: [String: String] { requestRecord.exposedMetadata }
    /// The request URL as the policy exposes it (``request``'s `url`). Reading it redacts the
    /// URL alone, not the headers or the body.
    package var requestURL: String { requestRecord.exposedURL }
    /// The request headers as the policy exposes them (``request``'s `headers`). Reading them
    /// redacts the headers alone.
    package var requestHeaders: HTTPHeaders { requestRecord.exposedHeaders }
    /// The response headers as the policy exposes them (``response``'s `headers`), once a
    /// response arrived. Reading them redacts the headers alone.
    package var responseHeaders: HTTPHeaders? { responseRecord?.exposedHeaders }
    /// The response, as the policy exposes it, once one arrived.
    package var response: Response? { responseRecord.map(Response.init(record:)) }
    /// The response's status code, once one arrived. Unlike ``response``, reading it redacts
    /// nothing, so an observer that needs only the status pays for nothing else.
    package var statusCode: Int? { responseRecord?.response.statusCode }
    /// The size of the request body actually sent, in bytes.
    ///
    /// For a streamed body, the bytes the transport took: on the terminal event of a
    /// streaming exchange, all of them; on its `started` event, 0.
    package var requestBodyByteCount: Int { requestRecord.bodyByteCount }
    /// The size of the response body received, in bytes; `nil` before a response arrived.
    ///
    /// For a streamed body, the bytes received when the event was emitted: 0 on `received`
    /// (the head), all of them on the terminal event, as many as arrived before a failure.
    package var responseBodyByteCount: Int? { responseRecord?.bodyByteCount }
    /// Whether the exchange was made with ``/HTTPCore/HTTPClient/send(_:body:receive:isolation:)``, its
    /// bodies streamed: the terminal event then carries what really went through.
    package var isStreamed: Bool { requestRecord.isStreamed }
    /// The streamed message this ``Name/responseMessage`` event carries, redacted when first
    /// read; `nil` on other events.
    package var message: StreamMessage? { messageRecord?.exposed }

    /// The index of a message event's message, read without redacting its data: for the sinks'
    /// per-exchange caps, checked inline.
    package var messageIndex: Int? { messageRecord?.index }
    /// On the terminal event of a streaming exchange whose response carried server-sent events
    /// or JSON lines: how many arrived, emitted or not (see
    /// ``HTTPCorePolicy/StreamMessageCapture``); 0 otherwise.
    package var streamMessageCount: Int { streamSummary?.messageCount ?? 0 }
    /// How many of ``streamMessageCount`` were not emitted as events: past the policy's
    /// ``HTTPCorePolicy/StreamMessageCapture/maxCount``, or all with bodies omitted.
    package var droppedStreamMessageCount: Int { streamSummary?.droppedMessageCount ?? 0 }

    /// What a streaming exchange's messages came to.
    struct StreamSummary: Sendable {
        let messageCount: Int
        let droppedMessageCount: Int
        /// A WebSocket connection's counts each way and close.
        var webSocket: WebSocketSummary?
    }

    /// On the terminal event of a WebSocket connection (``WebSocketObservation``): its counts
    /// each way and its close; `nil` otherwise.
    package var webSocket: WebSocketSummary? { streamSummary?.webSocket }

    var messageRecord: StreamMessageRecord? { storage.messageRecord }
    var streamSummary: StreamSummary? { storage.streamSummary }

    // The summary below reads the raw request, not the redacted ``request``: none of it is
    // something the redactor masks (it removes a URL's userinfo and masks query, fragment,
    // header, body and metadata values, never the method, scheme, host or port), so it is
    // as safe to show as the redacted view, and reading it costs no redaction.

    /// The request's method. Reading it redacts nothing (see ``request`` for the rest).
    package var method: HTTPMethod { requestRecord.request.method }
    /// The request URL's scheme, lowercased (`"https"`); `nil` for a URL without one. Reading
    /// it redacts nothing.
    package var scheme: String? { requestRecord.request.url.scheme?.lowercased() }
    /// The request URL's host, as Foundation's `URL.host` reads it: never the userinfo, which
    /// the redactor removes, so a user name or password in the URL does not show here either;
    /// `nil` for a URL without one. Reading it redacts nothing; the URL is parsed on the first
    /// read, once for all the events of an exchange whose middlewares keep its URL.
    package var host: String? { requestRecord.host }
    /// The request URL's port: the explicit one, else 80 for `http` and `ws` and 443 for
    /// `https` and `wss`; `nil` for other schemes without one. Reading it redacts nothing.
    package var port: Int? { requestRecord.request.url.effectivePort }
    /// The ``/HTTPCore/HTTPError/typeName`` of ``error`` (`"timeout"`, `"cannot_connect"`, ...),
    /// without scrubbing the error's message; `nil` when ``error`` is `nil`.
    package var errorTypeName: String? { errorRecord?.error.typeName }

    /// The redactor that made ``request``, ``response`` and ``error`` what they are.
    package var redactor: Redactor { requestRecord.policy.redactor }

    /// Bytes this event keeps alive (raw request and response, their records and caches), for
    /// the accounting of observers that hold events: string and body bytes plus about 64
    /// bytes per allocation, 2 KiB for the records, and what its attachments keep
    /// (``RetainedBytesCounting``).
    package var retainedByteCount: Int {
        let allocation = Self.allocationByteCount
        let request = requestRecord.request
        func bytes(of headers: HTTPHeaders) -> Int {
            headers.fields.reduce(0) { $0 + $1.name.utf8.count + $1.value.utf8.count + 2 * allocation }
        }
        let headerBytes = bytes(of: request.headers) + (responseRecord.map { bytes(of: $0.response.headers) } ?? 0)
        let metadataBytes = request.metadata.reduce(0) { $0 + $1.key.utf8.count + $1.value.utf8.count + 2 * allocation }
        return 2048 + request.url.absoluteString.utf8.count + headerBytes + metadataBytes
            + (request.body?.count ?? 0) + (responseRecord?.response.body.count ?? 0) + (messageRecord?.raw.data.count ?? 0)
            + storage.attachments.reduce(0) { $0 + (($1 as? any RetainedBytesCounting)?.retainedByteCount ?? 0) }
    }

    /// Bytes a `responseMessage` event keeps alive beyond the records it shares with the other
    /// events of its exchange (request, response, which ``retainedByteCount`` counts for each):
    /// its message's bytes, and its own storage and message record, two allocations.
    package var retainedMessageByteCount: Int {
        (messageRecord?.raw.data.count ?? 0) + 2 * Self.allocationByteCount
    }

    /// Bytes this event keeps alive in a queue that holds the events of its exchange in order:
    /// a stream's message after the first counts only what it adds
    /// (``retainedMessageByteCount``), since the first counted the request and response they
    /// share; any other event counts ``retainedByteCount``. Charged the whole exchange each,
    /// ten messages of a 100 KiB prompt's answer would weigh a megabyte.
    package var queuedByteCount: Int {
        isLaterStreamMessage ? retainedMessageByteCount : retainedByteCount
    }

    /// Whether this is a stream's message after its first, which shares the request and
    /// response the first one counted (see ``queuedByteCount``).
    package var isLaterStreamMessage: Bool {
        (messageRecord?.index ?? 0) > 0
    }

    /// What the byte counts add for each allocation: its header and rounding, about.
    private static let allocationByteCount = 64

    /// Everything the event holds, behind one reference: an event is copied into each
    /// observer's queue, its batch and its handler, and a copy is then one retain.
    let storage: Storage

    final class Storage: Sendable {
        let name: Name
        let timestamp: Date
        let attempt: Int
        let startedAt: Date?
        let endedAt: Date?
        let durationMilliseconds: Double?
        let attemptTiming: AttemptTiming?
        let errorRecord: ErrorRecord?
        let requestRecord: RequestRecord
        let responseRecord: ResponseRecord?
        let messageRecord: StreamMessageRecord?
        let streamSummary: StreamSummary?
        /// Empty on all but some terminal events, which costs no allocation.
        let attachments: [any HTTPExchangeAttachment]

        init(
            name: Name, timestamp: Date, attempt: Int, startedAt: Date?, endedAt: Date?, durationMilliseconds: Double?,
            attemptTiming: AttemptTiming?, errorRecord: ErrorRecord?, requestRecord: RequestRecord, responseRecord: ResponseRecord?,
            messageRecord: StreamMessageRecord?, streamSummary: StreamSummary?, attachments: [any HTTPExchangeAttachment]
        ) {
            self.name = name
            self.timestamp = timestamp
            self.attempt = attempt
            self.startedAt = startedAt
            self.endedAt = endedAt
            self.durationMilliseconds = durationMilliseconds
            self.attemptTiming = attemptTiming
            self.errorRecord = errorRecord
            self.requestRecord = requestRecord
            self.responseRecord = responseRecord
            self.messageRecord = messageRecord
            self.streamSummary = streamSummary
            self.attachments = attachments
        }
    }

    init(
        name: Name,
        request: RequestRecord,
        attempt: Int,
        response: ResponseRecord? = nil,
        error: HTTPError? = nil,
        startedAt: Date? = nil,
        ended: (date: Date, durationMilliseconds: Double)? = nil,
        attemptTiming: AttemptTiming? = nil,
        message: StreamMessageRecord? = nil,
        streamSummary: StreamSummary? = nil,
        attachments: [any HTTPExchangeAttachment] = [],
        timestamp: Date? = nil
    ) {
        storage = Storage(
            name: name,
            timestamp: timestamp ?? ended?.date ?? Date(),
            attempt: attempt,
            startedAt: startedAt,
            endedAt: ended?.date,
            durationMilliseconds: ended?.durationMilliseconds,
            attemptTiming: attemptTiming,
            errorRecord: error.map { ErrorRecord(error: $0, redactor: request.policy.redactor) },
            requestRecord: request,
            responseRecord: response,
            messageRecord: message,
            streamSummary: streamSummary,
            attachments: attachments
        )
    }
}
