import Foundation
import HTTPCoreConcurrency

/// An HTTP request: what to send, independent of the transport that sends it.
///
/// Every request gets a process-unique ``id`` when it is created; copies keep it, so the
/// events of one exchange can be joined by it.
///
/// ```swift
/// let request = HTTPRequest(
///     method: .post,
///     url: URL(string: "https://api.example.com/users")!,
///     headers: ["Content-Type": "application/json"],
///     body: Data(#"{"name":"Roy"}"#.utf8),
///     timeout: 10
/// )
/// ```
public struct HTTPRequest: Sendable, Hashable {
    /// A process-unique request identifier, cheap and thread-safe to generate.
    public struct ID: Sendable, Hashable, Comparable, CustomStringConvertible {
        /// The identifier's number; identifiers increase in creation order.
        public let rawValue: UInt64

        /// Creates an identifier from a number, for tests and decoding.
        public init(rawValue: UInt64) {
            self.rawValue = rawValue
        }

        /// The next identifier of this process.
        package static func next() -> ID {
            ID(rawValue: counter.withLock { value in
                value &+= 1
                return value
            })
        }

        /// The identifier as a decimal string.
        public var description: String { String(rawValue) }

        /// Orders identifiers by creation.
        public static func < (lhs: ID, rhs: ID) -> Bool { lhs.rawValue < rhs.rawValue }

        private static let counter = Locked<UInt64>(0)
    }

    /// The process-unique identifier of this request, given when it is created; a client
    /// keeps it on every attempt and every copy a middleware passes on.
    public package(set) var id: ID
    /// The request method.
    public var method: HTTPMethod
    /// The target URL.
    public var url: URL
    /// The header fields, in order.
    public var headers: HTTPHeaders
    /// The body to send, or `nil` for none.
    public var body: Data?
    /// A deadline for the whole exchange, in seconds, or `nil` for the transport's default.
    ///
    /// It must be above 0: 0, negative and NaN are refused before anything is sent, with
    /// ``HTTPError/Code/invalidRequest`` (see ``validate()``), since none of them is a deadline
    /// a caller means. Infinity, and any value over ``longestTimeout`` (a century), means no
    /// deadline, as `nil` does: the transport is handed `nil`.
    ///
    /// Clients built on `HTTPTransportClient` bound the whole exchange by it, retries, waits
    /// and the streamed body included: when it passes, the exchange fails with
    /// ``HTTPError/timeout``. Each attempt hands the transport what remains of it, and the
    /// transport ends the exchange by then (see ``HTTPTransport``).
    public var timeout: TimeInterval?
    /// Small facts about the request for observers, never sent: a route template, a trace
    /// id, a feature name.
    ///
    /// The caller may set entries; middlewares may add more before calling `next`. Events
    /// carry the metadata of the request they describe (`HTTPEvent.Request.metadata`), and dev-see
    /// payloads show it, redacted like headers. Keep it small: a few short entries.
    public var metadata: [String: String]
    /// Whether sending the request twice has the effect of sending it once, so that a retry
    /// is safe.
    ///
    /// By default the method decides (``HTTPMethod/isIdempotent``), and an `Idempotency-Key`
    /// header makes any method idempotent; set it to mark a `POST` as safe to repeat, or to
    /// `false` to forbid ``RetryMiddleware`` from ever repeating the request, whatever its
    /// method or headers.
    public var isIdempotent: Bool {
        get { idempotencyMark ?? (method.isIdempotent || headers.contains("Idempotency-Key")) }
        set { idempotencyMark = newValue }
    }

    /// What the caller set ``isIdempotent`` to, `nil` when the method and headers decide.
    private(set) var idempotencyMark: Bool?

    /// Creates a request with a fresh ``id``.
    public init(
        method: HTTPMethod = .get,
        url: URL,
        headers: HTTPHeaders = [:],
        body: Data? = nil,
        timeout: TimeInterval? = nil,
        metadata: [String: String] = [:]
    ) {
        self.id = .next()
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.timeout = timeout
        self.metadata = metadata
    }
}
