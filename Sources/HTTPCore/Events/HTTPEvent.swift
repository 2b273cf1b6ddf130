import Foundation

/// One step in the life of an HTTP exchange, as the policy exposes it.
///
/// Every request produces, in order: ``Name/requestCreated``, ``Name/requestStarted``,
/// ``Name/responseReceived`` (only when a response arrived), then exactly one terminal event:
/// ``Name/requestSucceeded``, ``Name/requestFailed`` or ``Name/requestCancelled``.
///
/// The request and response are redacted by the client's ``HTTPCorePolicy`` the first time
/// they are read, off the request path, and the result is shared by every observer.
public struct HTTPEvent: Sendable {
    /// The name of a lifecycle step, such as `"http.request.succeeded"`.
    public struct Name: Sendable, Hashable, CustomStringConvertible {
        /// The dotted name.
        public let rawValue: String

        /// Creates a name.
        public init(_ rawValue: String) {
            self.rawValue = rawValue
        }

        /// `http.request.created`: the client accepted the request.
        public static let requestCreated = Name("http.request.created")
        /// `http.request.started`: the request was handed to the transport.
        public static let requestStarted = Name("http.request.started")
        /// `http.response.received`: a complete response arrived.
        public static let responseReceived = Name("http.response.received")
        /// `http.request.succeeded`: terminal; a complete response, whatever its status.
        public static let requestSucceeded = Name("http.request.succeeded")
        /// `http.request.failed`: terminal; no complete response (see ``HTTPEvent/error``).
        public static let requestFailed = Name("http.request.failed")
        /// `http.request.cancelled`: terminal; the exchange was cancelled.
        public static let requestCancelled = Name("http.request.cancelled")

        /// Whether this is one of the three terminal names.
        public var isTerminal: Bool {
            self == .requestSucceeded || self == .requestFailed || self == .requestCancelled
        }

        /// The dotted name.
        public var description: String { rawValue }
    }

    /// A request as the policy exposes it.
    public struct Request: Sendable, Hashable {
        /// The request's identifier.
        public var id: HTTPRequest.ID
        /// The method.
        public var method: HTTPMethod
        /// The URL, redacted: no userinfo, sensitive query values masked.
        public var url: String
        /// The headers, redacted, including a correlation header the client added.
        public var headers: HTTPHeaders
        /// The captured body, redacted and capped; `nil` when omitted by the policy or empty.
        public var body: Data?
        /// Whether ``body`` was cut at the policy's cap.
        public var isBodyTruncated: Bool
    }

    /// A response as the policy exposes it.
    public struct Response: Sendable, Hashable {
        /// The numeric status code.
        public var statusCode: Int
        /// The headers, redacted.
        public var headers: HTTPHeaders
        /// The captured body, redacted and capped; `nil` when omitted by the policy or empty.
        public var body: Data?
        /// Whether ``body`` was cut at the policy's cap.
        public var isBodyTruncated: Bool
        /// The final URL after redirects, redacted.
        public var url: String

        /// The status and its class.
        public var status: HTTPResponse.Status { HTTPResponse.Status(code: statusCode) }
    }

    /// The lifecycle step.
    public let name: Name
    /// The wall-clock time at which the event was emitted.
    public let timestamp: Date
    /// The wall-clock time at which the request was handed to the transport; `nil` before.
    public let startedAt: Date?
    /// The wall-clock time at which the exchange ended; set on terminal events only.
    public let endedAt: Date?
    /// Milliseconds from start to end on a monotonic clock; set on terminal events only.
    public let durationMilliseconds: Double?
    /// The error of a failed exchange; set on ``Name/requestFailed`` (and `.cancelled` on
    /// ``Name/requestCancelled``), already scrubbed by the policy.
    public let error: HTTPError?

    let exchange: ExchangeRecord
    let responseRecord: ResponseRecord?

    /// The identifier of the request this event belongs to.
    public var requestID: HTTPRequest.ID { exchange.request.id }
    /// The correlation id sent with the request, when the policy adds a correlation header.
    public var correlationID: String? { exchange.correlationID }
    /// The request, as the policy exposes it.
    public var request: Request { exchange.exposed }
    /// The response, as the policy exposes it, once one arrived.
    public var response: Response? { responseRecord?.exposed }
    /// The size of the request body actually sent, in bytes.
    public var requestBodyByteCount: Int { exchange.request.body?.count ?? 0 }
    /// The size of the response body received, in bytes; `nil` before a response arrived.
    public var responseBodyByteCount: Int? { responseRecord?.response.body.count }

    /// The redactor that made ``request``, ``response`` and ``error`` what they are.
    package var redactor: Redactor { exchange.policy.redactor }

    /// Bytes this event keeps alive (raw request and response, their records and caches), for
    /// the accounting of observers that hold events: string and body bytes plus about 64
    /// bytes per allocation and 2 KiB for the records.
    package var retainedByteCount: Int {
        let allocation = 64
        let fields = exchange.request.headers.fields + (responseRecord?.response.headers.fields ?? [])
        let headerBytes = fields.reduce(0) { $0 + $1.name.utf8.count + $1.value.utf8.count + 2 * allocation }
        return 2048 + exchange.request.url.absoluteString.utf8.count + headerBytes
            + requestBodyByteCount + (responseBodyByteCount ?? 0)
    }

    init(
        name: Name,
        exchange: ExchangeRecord,
        response: ResponseRecord? = nil,
        error: HTTPError? = nil,
        startedAt: Date? = nil,
        ended: (date: Date, durationMilliseconds: Double)? = nil
    ) {
        self.name = name
        self.timestamp = ended?.date ?? Date()
        self.exchange = exchange
        self.responseRecord = response
        self.error = error
        self.startedAt = startedAt
        self.endedAt = ended?.date
        self.durationMilliseconds = ended?.durationMilliseconds
    }
}
