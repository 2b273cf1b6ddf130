import Foundation
import HTTPCore
import HTTPCoreObservation
import HTTPCoreConcurrency
import HTTPCoreDelivery
import HTTPCoreText
import HTTPCoreURLSession
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Ships HTTP calls to a dev-see log server as `api_log` payloads, at no cost to the app.
///
/// Use it through ``DevSeeObserver`` (every request of every HTTPCore client), or log calls
/// made by other networking code with the manual API:
///
/// ```swift
/// let logger = DevSeeLogger(configuration: DevSeeLoggerConfiguration(appId: "com.example.app"))
/// let token = logger.beginRequest(request)
/// let (data, response) = try await URLSession.shared.data(for: request)
/// await logger.logCompleted(token: token, request: request, response: response as? HTTPURLResponse, responseBody: data)
/// ```
///
/// Cost: `log` and `logCompleted` capture what they are given (copying at most
/// `maxBodyBytes` of each body) and return; redaction, encoding and upload run on the
/// logger's own workers. Memory: waiting logs are bounded by the `bufferLimit` and
/// `bufferByteLimit` of ``DevSeeLoggerConfiguration/delivery``; the oldest are dropped and counted first. When disabled, the logger
/// is inert: nothing is buffered, no task runs, no connection is made.
public final class DevSeeLogger: Sendable {
    /// The configuration the logger was created with.
    package let configuration: DevSeeLoggerConfiguration

    private let shipper: LogShipper?
    /// The endpoint of a disabled logger; an enabled one's lives in its shipper.
    private let endpointWhileDisabled: Locked<DevSeeEndpoint>
    private let starts = Locked(RequestStartTable<DevSeeRequestToken>(limit: DevSeeLogger.maximumOpenTokens))
    /// The messages of each WebSocket connection open now that its closing row lists: at most
    /// ``maximumOpenWebSocketTranscripts`` connections, each bounded by
    /// ``maximumWebSocketTranscriptMessages`` messages and ``DevSeeLoggerConfiguration/maxBodyBytes``
    /// bytes of their data.
    private let webSocketTranscripts: Locked<WebSocketTranscriptTable>

    /// The most requests tracked between `beginRequest` and `logCompleted`; beyond it the
    /// oldest tokens are forgotten, and their calls are logged with duration 0.
    package static let maximumOpenTokens = 10_000

    /// The most WebSocket connections open at once whose messages the logger keeps for their
    /// closing row; beyond it the one opened first is forgotten (its row says so).
    package static let maximumOpenWebSocketTranscripts = 100

    /// The most messages of one WebSocket connection its closing row lists: the first half and
    /// the latest half.
    package static let maximumWebSocketTranscriptMessages = 100

    /// Creates a logger that uploads through `transport`, or through a `URLSession` of its
    /// own when `nil`, and restores its endpoint: a valid stored endpoint first, then the
    /// configured `serverURL`, then `http://127.0.0.1:9090`. Invalid stored data is cleared.
    ///
    /// Any ``/HTTPCore/HTTPTransport`` ships the logs, the AsyncHTTPClient one for instance. Uploads go
    /// through it directly, never through an observed client, so they are not themselves
    /// logged. No connection is made until the first upload, and none at all when disabled.
    ///
    /// - Parameters:
    ///   - configuration: Who the app is, where the server is, and how logs are delivered.
    ///   - transport: What performs the uploads; `nil` for a `URLSession` of the logger's own.
    public init(configuration: DevSeeLoggerConfiguration, transport: (any HTTPTransport)? = nil) {
        self.configuration = configuration
        let endpoint = Self.restoredEndpoint(configuration)
        endpointWhileDisabled = Locked(endpoint)
        webSocketTranscripts = Locked(WebSocketTranscriptTable(
            limit: Self.maximumOpenWebSocketTranscripts, maxMessages: Self.maximumWebSocketTranscriptMessages,
            maxBytes: configuration.maxBodyBytes
        ))
        shipper = configuration.isEnabled ? LogShipper(configuration: configuration, endpoint: endpoint, transport: transport) : nil
    }

    /// Whether the logger ships logs; see ``DevSeeLoggerConfiguration/isEnabled``.
    public var isEnabled: Bool { shipper != nil }

    /// The server logs are sent to.
    public var endpoint: DevSeeEndpoint { shipper?.endpoint ?? endpointWhileDisabled.withLock { $0 } }

    /// The delivery engine's counters of the logger's logs, from every source (the manual API,
    /// observers), both lanes added up: every accepted log ends in exactly one of `delivered`,
    /// `dropped`, `expired`, `rejected` or `failed`, or is still `pending`. All zero when
    /// disabled.
    public var statistics: DeliveryStatistics { shipper?.statistics ?? DeliveryStatistics() }

    // MARK: Manual API

    /// Logs one completed call. Returns once the log is accepted into the buffer; never waits
    /// for the upload.
    ///
    /// The request body is `requestBody`, else `request.httpBody`. Without `startedAt`, the
    /// start marked with ``markRequestStarted(_:at:)`` for an identical request is used, and
    /// without one the duration is 0. Without a response the status is 599.
    ///
    /// - Parameters:
    ///   - request: The request that was sent.
    ///   - response: Its response; `nil` when none came.
    ///   - responseBody: The response body, if any.
    ///   - requestBody: The request body; `nil` for `request.httpBody`.
    ///   - error: Why the call failed, if it did.
    ///   - startedAt: When the call started; `nil` for the marked start, if any.
    ///   - endedAt: When the call ended; now by default.
    public func log(
        request: URLRequest,
        response: HTTPURLResponse?,
        responseBody: Data? = nil,
        requestBody: Data? = nil,
        error: (any Error)? = nil,
        startedAt: Date? = nil,
        endedAt: Date = Date()
    ) async {
        guard let shipper else { return }
        let mark = startedAt == nil ? starts.withLock { $0.removeEarliest(matching: RequestIdentity(request)) } : nil
        let token = mark?.token ?? DevSeeRequestToken(rawValue: Self.nextTokenNumber())
        let entry = capture(
            request: request, response: response, responseBody: responseBody, requestBody: requestBody,
            error: error, startedAt: startedAt ?? mark?.startedAt, endedAt: endedAt, requestID: token.description
        )
        shipper.accept(.entry(entry), byteCost: entry.byteCost)
    }

    /// Marks the start of a call, to be completed with ``logCompleted(token:request:response:responseBody:requestBody:error:endedAt:)``.
    ///
    /// At most 10,000 calls are tracked between the two; beyond it the oldest tokens are
    /// forgotten, and their calls are logged with duration 0.
    ///
    /// - Parameters:
    ///   - request: The request about to be sent.
    ///   - startedAt: When the call starts; now by default.
    /// - Returns: The token of this call, also its log's `requestId`.
    public func beginRequest(_ request: URLRequest, at startedAt: Date = Date()) -> DevSeeRequestToken {
        let token = DevSeeRequestToken(rawValue: Self.nextTokenNumber())
        if isEnabled {
            starts.withLock { $0.insert(token, startedAt: startedAt, identity: nil) }
        }
        return token
    }

    /// Marks the start of a call without a token: the ``log(request:response:responseBody:requestBody:error:startedAt:endedAt:)``
    /// or `logCompleted(token: nil, ...)` of an identical request (same method, URL and body)
    /// takes this start time and request id, the earliest mark first.
    ///
    /// ```swift
    /// logger.markRequestStarted(request)
    /// let (data, response) = try await URLSession.shared.data(for: request)
    /// await logger.log(request: request, response: response as? HTTPURLResponse, responseBody: data)
    /// ```
    ///
    /// - Parameters:
    ///   - request: The request about to be sent.
    ///   - startedAt: When the call starts; now by default.
    public func markRequestStarted(_ request: URLRequest, at startedAt: Date = Date()) {
        guard isEnabled else { return }
        let token = DevSeeRequestToken(rawValue: Self.nextTokenNumber())
        starts.withLock { $0.insert(token, startedAt: startedAt, identity: RequestIdentity(request)) }
    }

    /// Logs a call started with ``beginRequest(_:at:)``. A `nil` token takes the start marked
    /// with ``markRequestStarted(_:at:)`` for an identical request; a `nil` or unknown token
    /// without a mark still logs, with duration 0. Returns once the log is accepted into the
    /// buffer.
    ///
    /// - Parameters:
    ///   - token: What ``beginRequest(_:at:)`` returned; `nil` for the marked start, if any.
    ///   - request: The request that was sent.
    ///   - response: Its response; `nil` when none came.
    ///   - responseBody: The response body, if any.
    ///   - requestBody: The request body; `nil` for `request.httpBody`.
    ///   - error: Why the call failed, if it did.
    ///   - endedAt: When the call ended; now by default.
    public func logCompleted(
        token: DevSeeRequestToken?,
        request: URLRequest,
        response: HTTPURLResponse?,
        responseBody: Data? = nil,
        requestBody: Data? = nil,
        error: (any Error)? = nil,
        endedAt: Date = Date()
    ) async {
        guard let shipper else { return }
        let start: (token: DevSeeRequestToken, startedAt: Date)?
        if let token {
            start = starts.withLock { $0.remove(token) }.map { (token, $0) }
        } else {
            start = starts.withLock { $0.removeEarliest(matching: RequestIdentity(request)) }
        }
        let startedAt = start?.startedAt
        let requestID = (token ?? start?.token ?? DevSeeRequestToken(rawValue: Self.nextTokenNumber())).description
        let entry = capture(
            request: request, response: response, responseBody: responseBody, requestBody: requestBody,
            error: error, startedAt: startedAt, endedAt: endedAt, requestID: requestID
        )
        shipper.accept(.entry(entry), byteCost: entry.byteCost)
    }

    // MARK: Pairing

    /// Handles a URL opened by the app: a dev-see connection link switches the endpoint.
    ///
    /// `dev-see-<bundleId>://connect?server_ip=<host>&server_port=<port>` switches
    /// ``endpoint`` from the next upload on and persists it. A malformed link, or one naming a
    /// public host while ``DevSeeLoggerConfiguration/allowsPublicHosts`` is off, changes
    /// nothing and is reported, with the reason, to ``DevSeeLoggerConfiguration/diagnostics``.
    ///
    /// - Parameter url: The URL the app was asked to open.
    /// - Returns: `true` when the URL was a dev-see connection link, whether it connected or
    ///   was refused, so the app knows it was handled; `false` for any other URL.
    @discardableResult
    public func handleURL(_ url: URL) -> Bool {
        let result = connectionResult(for: url)
        if case .failed(let reason) = result {
            configuration.diagnostics(
                HTTPDiagnostic(source: "DevSeeLogger", level: .warning, message: "refused a connection link: \(reason)", metadata: ["reason": reason])
            )
        }
        return result != .ignored
    }

    /// What a URL opened by the app does: `.connected` (the endpoint switched and persisted)
    /// for a dev-see connection link, `.ignored` for any other URL, `.failed(reason:)` for a
    /// link that cannot be used.
    package func connectionResult(for url: URL) -> DevSeeConnectionResult {
        switch ConnectionLink.parse(url, allowsPublicHosts: configuration.allowsPublicHosts) {
        case .notALink:
            return .ignored
        case .invalid(let reason):
            return .failed(reason: reason)
        case .endpoint(let endpoint):
            if let shipper {
                shipper.endpoint = endpoint
            } else {
                endpointWhileDisabled.withLock { $0 = endpoint }
            }
            configuration.endpointStore?.save(Self.storedData(of: endpoint))
            return .connected(endpoint)
        }
    }

    // MARK: Lifecycle

    /// Returns when every log accepted before the call was delivered or given up.
    ///
    /// While the server is unreachable it returns once no probe is under way: the waiting logs
    /// stay buffered (`pending`) for when the server is back.
    public func flush() async {
        await shipper?.flush()
    }

    /// Flushes, then stops the workers and the logger's own upload session. Later logs are
    /// dropped, counted (``/HTTPCoreDelivery/DeliveryStatistics/droppedAfterShutdown``) and
    /// reported to ``DevSeeLoggerConfiguration/diagnostics``: the first at once, a flood of
    /// them in a few reports.
    /// Shut the logger down after the code that logs: last.
    public func shutdown() async {
        await shipper?.shutdown()
    }

    // MARK: Internals

    /// Accepts an event from ``DevSeeObserver``: a terminal or retried event becomes the
    /// exchange's (or attempt's) log; a ``/HTTPCoreObservation/HTTPEvent/Name/responseMessage`` event the log of
    /// one message, unless the exchange already had ``DevSeeLoggerConfiguration/maxMessageLogsPerExchange``.
    ///
    /// The event itself is queued (a retain and an append): its log is made, redacted and
    /// encoded when it is uploaded, on the logger's workers. An event whose bodies are large
    /// is queued with its raw bodies cut (a copy of their first
    /// ``DevSeeLoggerConfiguration/maxBodyBytes`` plus ``bodyCutSlack`` bytes), so the buffer
    /// does not keep them alive and the caller's task pays a bounded copy, not a redaction.
    /// One with attachments (an LLM call's facts, which read the raw request when first asked)
    /// has its log made now instead, its bodies cut at the policy's capture. A message event's index is read without
    /// redacting anything. A queued event costs what it keeps alive
    /// (``/HTTPCoreObservation/HTTPEvent/queuedByteCount``): a stream's messages after the first share
    /// the request and response the first one counted.
    func accept(_ event: HTTPEvent) {
        guard let shipper else { return }
        if event.isWebSocket {
            acceptWebSocket(event, shipper: shipper)
            return
        }
        guard event.name != .responseReceived else { return }
        if event.name == .responseMessage {
            guard let index = event.messageIndex, index < configuration.messageLogsPerExchange else { return }
        }
        var event = event
        if event.retainedByteCount > 2 * configuration.maxBodyBytes + Self.bodyCutSlack {
            guard let cut = event.withBodiesCut(to: configuration.maxBodyBytes + Self.bodyCutSlack) else {
                // What it carries may keep the raw bodies alive: its log, made now, does not.
                let entry = LogEntry(accepted: event, maxBodyBytes: configuration.maxBodyBytes, maxMessageLogs: configuration.messageLogsPerExchange)
                shipper.accept(.entry(entry), byteCost: entry.byteCost)
                return
            }
            event = cut
        }
        shipper.accept(.event(event), byteCost: event.isLaterStreamMessage ? event.retainedMessageByteCount : event.retainedByteCount)
    }

    /// Accepts an event of a WebSocket connection: its 101 becomes the opening row and starts
    /// its transcript, each message is kept in the transcript (and gets a row of its own within
    /// ``DevSeeLoggerConfiguration/maxMessageLogsPerExchange``), and its end becomes the closing
    /// row, with the transcript. Nothing is redacted here.
    private func acceptWebSocket(_ event: HTTPEvent, shipper: LogShipper) {
        switch event.name {
        case .responseReceived:
            webSocketTranscripts.withLock { $0.open(event.requestID) }
            shipper.accept(.event(event), byteCost: event.retainedByteCount)
        case .responseMessage:
            webSocketTranscripts.withLock { $0.append(event) }
            guard let index = event.messageIndex, index < configuration.messageLogsPerExchange else { return }
            shipper.accept(.event(event), byteCost: event.retainedMessageByteCount)
        case let name where name.isTerminal:
            let transcript = webSocketTranscripts.withLock { $0.close(event.requestID) }
            shipper.accept(
                .webSocketEnd(event, transcript),
                byteCost: event.retainedByteCount + (transcript?.byteCount ?? 0) + HeapCost.allocation
            )
        default:
            return
        }
    }

    /// The bytes past ``DevSeeLoggerConfiguration/maxBodyBytes`` a cut body keeps, so that
    /// redacting the cut body masks what the log shows as redacting the whole would, for every
    /// value that starts before the log's cut and ends within this many bytes after it.
    static let bodyCutSlack = 64 * 1024

    private func capture(
        request: URLRequest,
        response: HTTPURLResponse?,
        responseBody: Data?,
        requestBody: Data?,
        error: (any Error)?,
        startedAt: Date?,
        endedAt: Date,
        requestID: String
    ) -> LogEntry {
        let limit = configuration.maxBodyBytes
        return LogEntry(
            method: request.httpMethod,
            url: request.url?.absoluteString,
            responseURL: response?.url?.absoluteString,
            statusCode: response?.statusCode,
            startedAt: startedAt,
            endedAt: endedAt,
            durationMilliseconds: nil,
            requestHeaders: Self.headers(request.allHTTPHeaderFields ?? [:]),
            responseHeaders: Self.headers(response?.allHeaderFields ?? [:]),
            requestBody: CapturedBody(requestBody ?? request.httpBody, contentType: request.value(forHTTPHeaderField: "Content-Type"), limit: limit),
            responseBody: CapturedBody(responseBody, contentType: response?.value(forHTTPHeaderField: "Content-Type"), limit: limit),
            error: error.map { Self.describe($0, url: request.url ?? response?.url) },
            requestID: requestID,
            correlation: configuration.correlationHeaderNames.lazy.compactMap { name in
                request.value(forHTTPHeaderField: name).map { (headerName: name, value: $0) }
            }.first
        )
    }

    private static func headers(_ dictionary: [AnyHashable: Any]) -> HTTPHeaders {
        HTTPHeaders(
            dictionary.compactMap { key, value in (key as? String).map { HTTPHeaders.Field(name: $0, value: "\(value)") } }
                .sorted { $0.name.lowercased() < $1.name.lowercased() }
        )
    }

    /// The error as the event path describes it: URLSession errors through the same mapping
    /// as `URLSessionClient`, so a log reads the same whichever API produced it, and without
    /// the request URL's query, userinfo or fragment in any spelling, as a client's errors.
    private static func describe(_ error: any Error, url: URL?) -> String {
        let description = switch error {
        case let error as HTTPError: error.description
        case is URLError: HTTPError(urlSessionError: error, url: url ?? URL(fileURLWithPath: "/")).description
        default: HTTPError.safeDescription(of: error)
        }
        return url.map { TransportMessageScrubber(url: $0).scrubbed(description) } ?? description
    }

    private static let tokenCounter = Locked<UInt64>(0)

    private static func nextTokenNumber() -> UInt64 {
        tokenCounter.withLock { value in
            value += 1
            return value
        }
    }

    /// An endpoint as the store keeps it: `{"host":"192.168.1.20","port":3000}`.
    private static func storedData(of endpoint: DevSeeEndpoint) -> Data {
        let stored: JSONValue = ["host": .string(endpoint.host), "port": .integer(endpoint.port)]
        return Data(stored.serialized.utf8)
    }

    /// The endpoint a store kept; `nil` when what it holds is not one.
    private static func storedEndpoint(in data: Data) -> DevSeeEndpoint? {
        guard let stored = try? JSONValue.parse(data), case .string(let host)? = stored["host"],
            case .number(let port, _)? = stored["port"], let port = Int(exactly: port)
        else { return nil }
        return DevSeeEndpoint(host: host, port: port)
    }

    private static func restoredEndpoint(_ configuration: DevSeeLoggerConfiguration) -> DevSeeEndpoint {
        if let store = configuration.endpointStore, let data = store.load() {
            if let endpoint = storedEndpoint(in: data) {
                if ConnectionLink.isAcceptable(endpoint, allowsPublicHosts: configuration.allowsPublicHosts) {
                    return endpoint
                }
            }
            store.clear()
        }
        if let url = configuration.serverURL, let endpoint = DevSeeEndpoint(url: url) {
            return endpoint
        }
        return DevSeeEndpoint(url: DevSeeLoggerConfiguration.defaultServerURL)!
    }
}
