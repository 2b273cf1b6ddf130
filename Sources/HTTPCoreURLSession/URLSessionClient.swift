import Foundation
import HTTPCore
import HTTPCoreObservation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The ``/HTTPCore/HTTPClient`` over `URLSession`: works out of the box on Apple platforms and Linux.
///
/// ```swift
/// let client = URLSessionClient()
/// let response = try await client.send(HTTPRequest(url: URL(string: "https://api.example.com/users")!))
/// ```
///
/// It is an `HTTPTransportClient` around ``URLSessionTransport``: it emits every lifecycle
/// event to its dispatcher and applies its policy like any client built on the adapter
/// contract. See ``URLSessionTransport`` for how requests and responses are translated.
public struct URLSessionClient: HTTPClient {
    /// The client that adds ids, deadlines, cancellation, the policy and events.
    package let base: HTTPTransportClient<URLSessionTransport>

    /// The session that performs the exchanges.
    package var session: URLSession { base.transport.session }

    /// Creates a client.
    ///
    /// - Parameters:
    ///   - session: The session to use; by default ``defaultSession``, one shared session
    ///     from ``makeDefaultSession()``: no cookie storage, no cache, 307/308 bodies preserved.
    ///   - limits: How many response bytes an exchange accepts (see
    ///     ``URLSessionTransport/Limits``): 64 MiB buffered by default, streamed bodies unlimited.
    ///   - middlewares: Shape each request, first to last, before it reaches the session
    ///     (see `HTTPMiddleware`); none by default.
    ///   - dispatcher: Where events go; by default `HTTPEventDispatcher.shared`.
    ///   - policy: What events expose; by default `HTTPCorePolicy.default`.
    public init(
        session: URLSession = URLSessionClient.defaultSession,
        limits: URLSessionTransport.Limits = URLSessionTransport.Limits(),
        middlewares: [any HTTPMiddleware] = [],
        dispatcher: HTTPEventDispatcher = .shared,
        policy: HTTPCorePolicy = .default
    ) {
        base = HTTPTransportClient(
            transport: URLSessionTransport(session: session, limits: limits), middlewares: middlewares, dispatcher: dispatcher, policy: policy,
            maximumBufferedResponseBytes: limits.maximumBufferedBytes
        )
    }

    /// Not API: how `HTTPClient.send(_:)` answers for this client, through its
    /// `HTTPTransportClient`'s buffered call (its body capped by
    /// ``URLSessionTransport/Limits/maximumBufferedBytes``).
    public func _sendBuffered(_ request: HTTPRequest) async throws -> HTTPResponse {
        try await base._sendBuffered(request)
    }

    /// Performs one exchange, streaming both bodies; see `HTTPClient.send(_:body:)`.
    ///
    /// Streams with ``makeDefaultSession()``'s sessions; with a session of your own the
    /// bodies are buffered (see ``URLSessionTransport``).
    ///
    /// - Parameters:
    ///   - request: The request head to send.
    ///   - body: The request body, or `nil` for none.
    /// - Returns: The response head and its body, still arriving.
    /// - Throws: An `HTTPError` for a failure before the response head.
    ///
    /// `send(_:)`, the whole response, is built on it: its body is capped by
    /// ``URLSessionTransport/Limits/maximumBufferedBytes``, past which it throws `HTTPError.Code.responseTooLarge`.
    public func send(_ request: HTTPRequest, body: HTTPBody?) async throws -> (HTTPResponse.Head, HTTPBody) {
        try await base.send(request, body: body)
    }

    /// The session clients use when they are given none.
    public static let defaultSession = makeDefaultSession()

    /// A new session that sends requests exactly as built (``makeDefaultConfiguration()``),
    /// with a delegate that streams bodies and re-sends the body on 307 and 308 redirects.
    ///
    /// Once invalidated (`finishTasksAndInvalidate()`, `invalidateAndCancel()`), a session sends
    /// nothing more: every send through it throws `HTTPError.Code.sessionInvalidated`
    /// before touching it, where URLSession would trap; the requests under way end as
    /// URLSession ends them. Make a new session for new requests.
    ///
    /// - Returns: A session of its own, for a client or a ``URLSessionTransport`` that must
    ///   not share connections with the others.
    public static func makeDefaultSession() -> URLSession {
        #if canImport(FoundationNetworking)
        DefaultURLSession(configuration: makeDefaultConfiguration(), delegate: SessionDelegate())
        #else
        URLSession(configuration: makeDefaultConfiguration(), delegate: SessionDelegate(), delegateQueue: nil)
        #endif
    }

    /// A configuration under which requests go out exactly as built: ephemeral, no cookie
    /// storage (an ephemeral session would otherwise replay cookies), no cache.
    ///
    /// - Returns: A new configuration to adjust (timeouts, connection limits) before making a
    ///   session for ``init(session:limits:middlewares:dispatcher:policy:)``.
    public static func makeDefaultConfiguration() -> URLSessionConfiguration {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpCookieStorage = nil
        configuration.httpShouldSetCookies = false
        configuration.httpCookieAcceptPolicy = .never
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        return configuration
    }
}
