import Foundation
import HTTPCore
import HTTPCoreObservation

/// A body as captured for a log: at most `maxBodyBytes` bytes of it, copied, and its size.
struct CapturedBody: Sendable {
    let data: Data
    let totalByteCount: Int
    let contentType: String?
    /// Whether the body was already cut or redacted upstream (by an `HTTPCorePolicy`).
    let isTruncated: Bool

    /// Captures a body: copies at most `limit` bytes, once, into storage of exactly that size,
    /// so neither a large body nor the spare capacity of the caller's buffer (a `Data` grown
    /// chunk by chunk can hold twice its count) is kept alive by the buffer.
    init?(_ body: Data?, contentType: String?, limit: Int) {
        guard let body, !body.isEmpty else { return nil }
        isTruncated = body.count > limit
        data = body.prefix(max(0, limit)).withUnsafeBytes { Data($0) }
        totalByteCount = body.count
        self.contentType = contentType
    }

    init(alreadyCaptured data: Data, totalByteCount: Int, contentType: String?, isTruncated: Bool) {
        self.data = data
        self.totalByteCount = totalByteCount
        self.contentType = contentType
        self.isTruncated = isTruncated
    }
}

/// One HTTP call as the logger captured it, bounded in size: an event's fields redacted by its
/// client's policy, a manual log's raw until its payload is built (``redactedBy``).
struct LogEntry: Sendable {
    var method: String?
    var url: String?
    var responseURL: String?
    var statusCode: Int?
    var startedAt: Date?
    var endedAt: Date
    var durationMilliseconds: Double?
    var requestHeaders: HTTPHeaders
    var responseHeaders: HTTPHeaders
    var requestBody: CapturedBody?
    var responseBody: CapturedBody?
    var error: String?
    var requestID: String
    /// The correlation id and, for a manual log, the header it came from (its value is masked
    /// when the logger's redactor masks that header); an event's id is as its policy exposed it.
    var correlation: (headerName: String?, value: String)?
    /// The attempt this log describes, when the request was sent more than once; `nil` for a
    /// request sent once.
    var attempt: Int? = nil
    /// Whether this log is an attempt that another one followed.
    var isRetriedAttempt = false
    /// The whole exchange's duration, when this log is its last attempt of several (whose
    /// own duration is ``durationMilliseconds``).
    var exchangeDurationMilliseconds: Double? = nil
    /// The request's metadata (trace id, route template, ...).
    var metadata: [String: String] = [:]
    /// The redactor already applied to every field (an event's policy, or the logger's once a
    /// manual log is redacted), or `nil` for the raw data of a manual log.
    var redactedBy: Redactor? = nil
    /// Where a redirected exchange started, when ``method`` and ``url`` are the final
    /// request's.
    var redirectedFrom: RedirectOrigin? = nil
    /// What a streamed exchange came to, or the message a message log shows; boxed, so that
    /// the many logs of exchanges sent whole pay one word for it in the buffer.
    var streaming: Streaming? = nil
    /// What interpreters derived from the exchange (``/HTTPCoreObservation/HTTPEvent/attachments``);
    /// an empty array costs no allocation.
    var attachments: [any HTTPExchangeAttachment] = []
    /// The interpreters of the event's policy, which may know a stream's shape
    /// (`StreamAnswer`).
    var interpreters: [any HTTPExchangeInterpreter] = []

    /// The streaming part of a log.
    indirect enum Streaming: Sendable {
        case exchange(StreamSummary)
        case message(StreamMessageLog)
        case webSocket(WebSocketLog)
    }

    /// What a streamed exchange came to (its terminal event's counts); `nil` for an exchange
    /// sent whole, a retried attempt or a manual log.
    var stream: StreamSummary? {
        if case .exchange(let summary) = streaming { summary } else { nil }
    }

    /// The message this log shows, for the log of one server-sent event or JSON line; its
    /// data is ``responseBody``.
    var message: StreamMessageLog? {
        if case .message(let message) = streaming { message } else { nil }
    }

    /// What a WebSocket connection's row says about it, for the rows written when it opens and
    /// when it ends (`LogEntry+WebSocket`).
    var webSocket: WebSocketLog? {
        if case .webSocket(let log) = streaming { log } else { nil }
    }

    /// The request a redirected exchange started with, and the redirects it followed.
    struct RedirectOrigin: Sendable {
        var method: String
        var url: String
        var redirection: HTTPRedirection
    }

    /// The counts of a streamed exchange, for its log.
    struct StreamSummary: Sendable {
        /// The bytes of each body that really went through.
        var requestBodyByteCount: Int
        var responseBodyByteCount: Int?
        /// Server-sent events or JSON lines seen in the response.
        var messageCount: Int
        /// Of those, how many have no log of their own: not emitted by the client's policy,
        /// or past the logger's ``DevSeeLoggerConfiguration/maxMessageLogsPerExchange``.
        var unloggedMessageCount: Int
    }

    /// One server-sent event or JSON line, as its log describes it (already redacted).
    struct StreamMessageLog: Sendable {
        var index: Int
        var kind: HTTPEvent.StreamMessage.Kind
        var eventType: String?
        var eventID: String?
        var byteCount: Int
        /// Milliseconds since the previous message arrived; `nil` for the first.
        var millisecondsSincePrevious: Double?
        /// Which way a WebSocket message went, and its type; `nil` for a response's message.
        var webSocket: (direction: HTTPEvent.StreamMessage.Direction, opcode: HTTPEvent.StreamMessage.Opcode?)? = nil
    }

    /// Bytes this entry keeps alive, for the buffer's accounting, as the Swift runtime lays it
    /// out on 64-bit platforms: strings of up to 15 UTF-8 bytes live inline, longer ones in a
    /// heap object (header, bytes, allocator overhead); header fields are 32 bytes each in
    /// their array; bodies are a `Data` storage object and their bytes; the entry itself
    /// takes its buffer slot and the slack of the buffer's growth. Checked against real
    /// memory by the benchmark's memory section.
    var byteCost: Int {
        let fields = requestHeaders.fields + responseHeaders.fields
        let headerBytes = 2 * HeapCost.array + fields.reduce(0) { $0 + 32 + HeapCost.string($1.name) + HeapCost.string($1.value) }
        let strings = [url, responseURL, error, method, requestID, redirectedFrom?.url, correlation?.headerName, correlation?.value, message?.eventType, message?.eventID]
            .reduce(0) { $0 + ($1.map(HeapCost.string) ?? 0) }
        let metadataBytes = metadata.isEmpty ? 0 : HeapCost.array + metadata.reduce(0) { $0 + 32 + HeapCost.string($1.key) + HeapCost.string($1.value) }
        let bodies = [requestBody, responseBody].reduce(0) { total, body in
            total + (body.map { HeapCost.data($0.data) + ($0.contentType.map(HeapCost.string) ?? 0) } ?? 0)
        }
        let box = streaming == nil ? 0 : 2 * MemoryLayout<StreamMessageLog>.size + HeapCost.allocation
        let attached = attachments.isEmpty ? 0 : HeapCost.array + attachments.reduce(0) { $0 + HeapCost.attachment($1) }
        return HeapCost.bufferSlot + strings + headerBytes + metadataBytes + bodies + box + attached
    }
}

/// What values cost on the heap, for the buffer's accounting.
enum HeapCost {
    /// A heap allocation's header and the allocator's rounding and bookkeeping, on average.
    static let allocation = 48
    /// An array's storage header plus ``allocation``.
    static let array = 32 + allocation
    /// A buffered log's slot: the buffer item with the slack of the buffer's doubling growth
    /// (about half a slot more), plus the box that holds the log when it is too large for
    /// the item's inline storage of three words.
    static let bufferSlot = MemoryLayout<LogBuffer.Item?>.stride * 3 / 2
        + (MemoryLayout<PendingLog>.size > 3 * MemoryLayout<Int>.size ? MemoryLayout<PendingLog>.size + 16 + allocation : 0)

    static func string(_ text: String) -> Int {
        let count = text.utf8.count
        return count <= 15 ? 0 : count + allocation
    }

    static func data(_ data: Data) -> Int {
        data.count <= 14 ? 0 : data.count + 64 + allocation
    }

    /// An array of strings: its storage, 16 bytes a value, and each value's own bytes.
    static func strings(_ values: [String]) -> Int {
        values.isEmpty ? 0 : array + values.reduce(0) { $0 + 16 + string($1) }
    }

    /// An attachment, as it counts what it keeps alive (``/HTTPCore/RetainedBytesCounting``), or
    /// one allocation when it does not say.
    static func attachment(_ attachment: any HTTPExchangeAttachment) -> Int {
        16 + ((attachment as? any RetainedBytesCounting)?.retainedByteCount ?? allocation)
    }
}

extension LogEntry {
    /// The log of an event ``DevSeeObserver`` handed to the logger: a message event's
    /// (timed from its attempt's start), or a terminal or retried event's. The terminal event
    /// of a request sent more than once describes its last attempt but carries the
    /// exchange's start and duration: its log is the attempt's, with the exchange's duration
    /// beside it.
    init(accepted event: HTTPEvent, maxBodyBytes: Int, maxMessageLogs: Int) {
        if event.name == .responseMessage, let message = event.message {
            self.init(messageEvent: event, message: message, startedAt: event.attemptStartedAt, maxBodyBytes: maxBodyBytes)
            return
        }
        if event.name == .responseReceived {
            // Only a WebSocket connection's 101 is handed to the logger: its opening row.
            self.init(webSocketOpened: event, maxBodyBytes: maxBodyBytes)
            return
        }
        self.init(event: event, maxBodyBytes: maxBodyBytes, maxMessageLogs: maxMessageLogs)
        if event.name.isTerminal, event.attempt > 1, let attemptStart = event.attemptStartedAt {
            startedAt = attemptStart
            exchangeDurationMilliseconds = event.durationMilliseconds
            durationMilliseconds = Self.attemptDuration(of: event, startedAt: attemptStart)
        }
    }

    /// The last attempt's share of a terminal event's duration: the exchange's, less the time
    /// from the exchange's start to the attempt's.
    private static func attemptDuration(of event: HTTPEvent, startedAt attemptStart: Date) -> Double? {
        let ended = event.endedAt ?? event.timestamp
        guard let exchange = event.durationMilliseconds, let exchangeStart = event.startedAt else {
            return max(0, ended.timeIntervalSince(attemptStart) * 1000)
        }
        return max(0, exchange - attemptStart.timeIntervalSince(exchangeStart) * 1000)
    }

    /// The entry of a terminal or retried event, from what the client's policy exposes; a
    /// streamed exchange's says how many of its messages had no log of their own, given that
    /// the logger logs at most `maxMessageLogs` per exchange.
    init(event: HTTPEvent, maxBodyBytes: Int, maxMessageLogs: Int = .max) {
        let request = event.finalRequest
        let response = event.response
        func captured(_ body: Data?, total: Int?, type: String?, truncated: Bool) -> CapturedBody? {
            guard let body, !body.isEmpty else { return nil }
            let limit = max(0, maxBodyBytes)
            let cut = body.count > limit
            return CapturedBody(
                alreadyCaptured: cut ? body.prefix(limit).withUnsafeBytes { Data($0) } : body,
                totalByteCount: max(total ?? body.count, body.count),
                contentType: type,
                isTruncated: truncated || cut
            )
        }
        self.init(
            method: request.method.rawValue,
            url: request.url,
            responseURL: response?.url,
            statusCode: response?.statusCode,
            startedAt: event.startedAt,
            endedAt: event.endedAt ?? event.timestamp,
            durationMilliseconds: event.durationMilliseconds,
            requestHeaders: request.headers,
            responseHeaders: response?.headers ?? [:],
            requestBody: captured(
                request.body, total: event.requestBodyByteCount, type: request.headers["Content-Type"],
                truncated: request.isBodyTruncated
            ),
            responseBody: captured(
                response?.body, total: event.responseBodyByteCount, type: response?.headers["Content-Type"],
                truncated: response?.isBodyTruncated ?? false
            ),
            error: event.error.map { $0 == .cancelled ? "cancelled" : $0.description },
            requestID: event.requestID.description,
            correlation: event.correlationID.map { (headerName: nil, value: $0) },
            attempt: event.name == .requestRetried || event.attempt > 1 ? event.attempt : nil,
            metadata: event.metadata,
            redactedBy: event.redactor
        )
        isRetriedAttempt = event.name == .requestRetried
        attachments = event.attachments
        interpreters = event.interpreters
        redirectedFrom = response?.redirection.map {
            RedirectOrigin(method: event.request.method.rawValue, url: event.request.url, redirection: $0)
        }
        if event.isStreamed, event.name.isTerminal {
            let logged = min(event.streamMessageCount - event.droppedStreamMessageCount, max(0, maxMessageLogs))
            streaming = .exchange(StreamSummary(
                requestBodyByteCount: event.requestBodyByteCount,
                responseBodyByteCount: event.responseBodyByteCount,
                messageCount: event.streamMessageCount,
                unloggedMessageCount: max(0, event.streamMessageCount - logged)
            ))
        }
    }

    /// The entry of a ``/HTTPCoreObservation/HTTPEvent/Name/responseMessage`` event: the request, the response's
    /// status, and the message's data as the response body, cut at `maxBodyBytes`; timed from
    /// `startedAt` (its attempt's start, when known) to the message's arrival; its duration is
    /// the time since the message before it arrived (for the first, since `startedAt`).
    init(messageEvent event: HTTPEvent, message: HTTPEvent.StreamMessage, startedAt: Date?, maxBodyBytes: Int) {
        let request = event.request
        let data = Data(message.data.utf8)
        let limit = max(0, maxBodyBytes)
        let cut = data.count > limit
        self.init(
            // The method chip tells a message's row from its exchange's in the viewer's list,
            // where the URL's `#message-N` is cut off; a WebSocket message's also says which way.
            method: message.kind == .webSocket
                ? "WS \(message.direction == .sent ? "↑" : "↓") #\(message.index)" : "\(request.method.rawValue) #\(message.index)",
            url: request.url,
            responseURL: nil,
            statusCode: event.statusCode,
            startedAt: startedAt,
            endedAt: event.timestamp,
            durationMilliseconds: message.millisecondsSincePrevious,
            requestHeaders: [:],
            responseHeaders: [:],
            requestBody: nil,
            responseBody: data.isEmpty ? nil : CapturedBody(
                alreadyCaptured: cut ? data.prefix(limit).withUnsafeBytes { Data($0) } : data,
                totalByteCount: max(message.byteCount, data.count),
                contentType: nil,
                isTruncated: message.isTruncated || cut
            ),
            error: nil,
            requestID: event.requestID.description,
            correlation: event.correlationID.map { (headerName: nil, value: $0) },
            attempt: event.attempt > 1 ? event.attempt : nil,
            redactedBy: event.redactor
        )
        streaming = .message(StreamMessageLog(
            index: message.index, kind: message.kind, eventType: message.eventType, eventID: message.eventID, byteCount: message.byteCount,
            millisecondsSincePrevious: message.millisecondsSincePrevious,
            webSocket: message.kind == .webSocket ? (message.direction, message.opcode) : nil
        ))
        if message.kind == .webSocket {
            // A message sent is the request body of its row, one received the response body, as
            // a browser's network panel tells them apart; a binary one's data is base64.
            if message.opcode == .binary, let body = responseBody {
                responseBody = CapturedBody(
                    alreadyCaptured: Data(BodyRenderer.base64Prefix.utf8) + body.data, totalByteCount: body.totalByteCount,
                    contentType: nil, isTruncated: body.isTruncated
                )
            }
            if message.direction == .sent { (requestBody, responseBody) = (responseBody, nil) }
        }
    }
}
