import Foundation
import HTTPCore

/// An HTTP/1.1 server on 127.0.0.1 for tests: routes answer with canned or computed
/// responses, and every request is recorded.
///
/// It starts accepting as soon as `init` returns (in milliseconds) and serves each connection
/// on its own thread, so handlers may block. Connections are kept alive unless the client asks
/// otherwise; request bodies may be sent with `Content-Length` or chunked, and
/// `Expect: 100-continue` is honoured. Malformed requests get a 400 and the connection closes.
///
/// ```swift
/// let server = try LoopbackHTTPServer()
/// server.route("GET", "/users") { _ in .json(#"[{"id":1}]"#) }
/// let (data, _) = try await URLSession.shared.data(from: server.url("/users?page=2"))
/// XCTAssertEqual(server.requests.first?.query, "page=2")
/// server.stop()
/// ```
///
/// Handlers run on connection threads, possibly several at once. A handler that captures the
/// server strongly keeps it alive: capture it `weak`, or call `stop()` explicitly.
public final class LoopbackHTTPServer: Sendable {
    /// The local port the server listens on (the ephemeral one picked when `0` was asked for).
    public let port: UInt16
    private let core: LoopbackServerCore

    /// Binds 127.0.0.1 on `port` (`0` picks a free ephemeral port) and starts accepting at once.
    ///
    /// `SO_REUSEADDR` is set, so a stopped server's port can be bound again right away.
    /// Throws ``Error`` when the socket cannot be created, bound or listened on.
    ///
    /// A client that connects before a route is added gets the 404. When one may (a client
    /// that keeps retrying a stopped server's port), add the routes in
    /// ``init(port:configure:)`` instead.
    public convenience init(port: UInt16 = 0) throws(Error) {
        try self.init(port: port) { _ in }
    }

    /// Binds like ``init(port:)``, runs `configure` (routes, a fallback) and only then starts
    /// accepting: a client that connects the moment the port is bound, as one retrying a
    /// stopped server's port does, waits in the backlog until the routes are in place instead
    /// of getting the 404.
    ///
    /// ```swift
    /// let server = try LoopbackHTTPServer(port: stoppedPort) { server in
    ///     server.route("POST", "/logs") { _ in LoopbackResponse(status: 204) }
    /// }
    /// ```
    public init(port: UInt16 = 0, configure: (LoopbackHTTPServer) -> Void) throws(Error) {
        core = try LoopbackServerCore(port: port)
        self.port = core.port
        configure(self)
        core.start()
    }

    /// Whether the server accepts connections: it started and was not stopped.
    package var isAccepting: Bool {
        core.lifecycle.isAccepting
    }

    deinit {
        core.stop()
    }

    /// `http://127.0.0.1:PORT`, without a trailing slash.
    public var baseURL: URL {
        // Always a valid URL: a fixed scheme and host and a numeric port.
        URL(string: "http://127.0.0.1:\(port)")!
    }

    /// The URL of a path and query on this server, for example `url("/users?x=1")`.
    ///
    /// A missing leading `/` is added. Characters not allowed in a URL are percent-encoded.
    public func url(_ pathAndQuery: String) -> URL {
        let suffix = pathAndQuery.hasPrefix("/") ? pathAndQuery : "/" + pathAndQuery
        let text = "http://127.0.0.1:\(port)" + suffix
        if let url = URL(string: text) { return url }
        let encoded = suffix.addingPercentEncoding(withAllowedCharacters: .urlQueryAllowed) ?? ""
        guard let url = URL(string: "http://127.0.0.1:\(port)" + encoded) else {
            preconditionFailure("Not a path and query: \(pathAndQuery)")
        }
        return url
    }

    /// Answers requests for `path` (compared exactly, without the query) with `handler`.
    ///
    /// `method` `nil` matches any method; a route for the exact method wins over it, and a
    /// `HEAD` request falls back to the `GET` route. Registering the same method and path again
    /// replaces the handler. Requests no route matches get 404 with the text `not found`.
    /// The handler runs on the connection's thread, possibly concurrently with other requests.
    public func route(
        _ method: String? = nil,
        _ path: String,
        _ handler: @escaping @Sendable (LoopbackRequest) -> LoopbackResponse
    ) {
        route(method, path, requestBody: .whole, handler)
    }

    /// Answers requests for `path` with `handler`, keeping of each request body what
    /// `requestBody` says: ``LoopbackRequest/BodyRecording/digestOnly`` for uploads too large to keep.
    ///
    /// Matching is as for ``route(_:_:_:)``.
    public func route(
        _ method: String? = nil,
        _ path: String,
        requestBody: LoopbackRequest.BodyRecording,
        _ handler: @escaping @Sendable (LoopbackRequest) -> LoopbackResponse
    ) {
        core.setRoute(method, path, .init(requestBody: requestBody, answer: .response(handler)))
    }

    /// Answers requests for `path` with a streamed response: `handler` writes the head and the
    /// body piece by piece through a ``LoopbackResponseWriter``, straight to the socket.
    ///
    /// For bodies too large to hold (a generated gigabyte), bodies with pauses or gates in the
    /// middle (server-sent events), and bodies cut mid-way. Matching is as for ``route(_:_:_:)``;
    /// the request is recorded, as `requestBody` says, before the handler runs. Errors the
    /// handler throws close the connection where the body stopped.
    ///
    /// ```swift
    /// server.route("GET", "/download", streaming: { _, writer in
    ///     try writer.writeHead(framing: .contentLength(1 << 30))
    ///     try writer.writePattern(byteCount: 1 << 30)
    /// })
    /// ```
    public func route(
        _ method: String? = nil,
        _ path: String,
        requestBody: LoopbackRequest.BodyRecording = .whole,
        streaming handler: @escaping @Sendable (LoopbackRequest, LoopbackResponseWriter) throws -> Void
    ) {
        core.setRoute(method, path, .init(requestBody: requestBody, answer: .streaming(handler)))
    }

    /// A gate a streaming route can wait at until the test opens it; `stop()` ends the wait.
    public func makeGate() -> LoopbackGate {
        LoopbackGate(lifecycle: core.lifecycle)
    }

    /// Answers requests for `path` with any method with `handler`: `route(nil, path, handler)`.
    ///
    /// Exists because Swift cannot skip the defaulted, unlabeled `method` of
    /// ``route(_:_:_:)`` in a call such as `route("/health") { _ in .text("ok") }`.
    public func route(_ path: String, _ handler: @escaping @Sendable (LoopbackRequest) -> LoopbackResponse) {
        route(nil, path, handler)
    }

    /// Every request received so far, in the order they arrived (recorded before the handler runs).
    public var requests: [LoopbackRequest] {
        core.record.withLock { $0.requests }
    }

    /// How many connections the server has accepted; one connection serving several
    /// requests shows that the client kept it alive.
    public var acceptedConnectionCount: Int {
        core.record.withLock { $0.acceptedConnections }
    }

    /// Stops the server: closes the listener, shuts every open connection, cuts delays short,
    /// and waits up to two seconds for connection threads to end.
    ///
    /// Safe to call more than once and from any thread but a handler's own (it would wait for
    /// itself until the two seconds pass). Afterwards connecting to the port is refused.
    public func stop() {
        core.stop()
    }

    /// Answers requests no route matches, instead of the 404; for servers built on this one.
    package func setFallback(_ handler: (@Sendable (LoopbackRequest) -> LoopbackResponse)?) {
        core.routes.withLock { $0.fallback = handler }
    }

    /// The server's running state, whose `pause` waits interruptibly; for servers built on this one.
    package var lifecycle: LoopbackServerLifecycle {
        core.lifecycle
    }
}

extension LoopbackHTTPServer {
    /// Why a ``LoopbackHTTPServer`` could not start.
    public enum Error: Swift.Error, Sendable, Hashable, CustomStringConvertible {
        /// `socket()` or `pipe()` failed, with the `errno` it set.
        case socketFailed(errno: Int32)
        /// `bind()` to 127.0.0.1:`port` failed, with the `errno` it set (`EADDRINUSE` when the
        /// port is taken).
        case bindFailed(port: UInt16, errno: Int32)
        /// `listen()` or `getsockname()` failed, with the `errno` it set.
        case listenFailed(errno: Int32)

        /// The failed call, the port and the system's message for the error number.
        public var description: String {
            switch self {
            case .socketFailed(let code):
                "LoopbackHTTPServer: creating a socket failed: \(Self.message(code)) (errno \(code))"
            case .bindFailed(let port, let code):
                "LoopbackHTTPServer: binding 127.0.0.1:\(port) failed: \(Self.message(code)) (errno \(code))"
            case .listenFailed(let code):
                "LoopbackHTTPServer: listening failed: \(Self.message(code)) (errno \(code))"
            }
        }

        private static func message(_ code: Int32) -> String {
            String(cString: strerror(code))
        }
    }
}
