import AsyncHTTPClient
import Foundation
@_spi(Transports) import HTTPCore
import HTTPCoreObservation
import NIOCore
import NIOHTTP1

/// An ``/HTTPCore/HTTPTransport`` over AsyncHTTPClient: server-side Swift's HTTP client under HTTPCore's
/// contract, observed like any other client.
///
/// ```swift
/// import AsyncHTTPClient
/// import HTTPCoreAsyncHTTPClient
/// import HTTPCoreObservation
///
/// let ahc = AsyncHTTPClientTransport.makeHTTPClient()          // AHC's own tracing off
/// let client = HTTPTransportClient(transport: AsyncHTTPClientTransport(client: ahc))
/// let response = try await client.send(HTTPCore.HTTPRequest(url: url, timeout: 5))
/// try await ahc.shutdown()
/// ```
///
/// A streamed call (`send(_:body:)`) is one call of its one method, ``perform(_:body:)``,
/// which streams both ways natively; a buffered call (`send(_:)`) takes the same exchange with
/// the body collected on the event loop (see "The body's path"):
///
/// - Method, headers (repeated ones too, both ways) and body are passed as they are.
/// - The request body is uploaded as AHC's connection takes it, chunk by chunk, never
///   collected: with `Content-Length` when its ``/HTTPCore/HTTPBody/length`` is known, else chunked.
/// - The call returns as soon as the response head arrives. The body is read from AHC's
///   response body, which reads the socket only while asked for more: a slow reader slows the
///   transfer, and at most about 256 KiB wait unread on HTTPCore's side (plus AHC's own few
///   buffers). Its ``/HTTPCore/HTTPBody/length`` is the `Content-Length` when the head has one (and no
///   `Content-Encoding` or `Transfer-Encoding`), `0` for `HEAD`, 204 and 304, else unknown.
/// - Redirects are followed as the `HTTPClient` is configured; the response's `url` is the
///   final one. A redirect that would send a streamed request body again (307, 308, or 301
///   and 302 when configured to keep the method) reads a replayable body
///   (``/HTTPCore/HTTPBody/IterationBehavior/multiple``) again, and a failure of that pass
///   fails the call with the body's error; a body that can be read once cannot be sent twice,
///   so that redirect is not followed and the redirect response itself is returned.
/// - A cap set with ``maximumStreamedResponseBytes`` holds for every response body: one that
///   declares more fails with ``/HTTPCore/HTTPError/Code/responseTooLarge`` before a byte is read; one
///   that turns out longer delivers exactly that many bytes, then fails with it. The request is
///   cancelled and its connection closed. Without it a body has no cap here (a buffered call
///   still takes at most `HTTPBody.maximumBufferedBytes`).
/// - A connection that breaks mid-body fails the body with ``/HTTPCore/HTTPError/Code/connectionLost``
///   after the bytes that arrived; AHC and NIO errors become ``/HTTPCore/HTTPError`` codes (see
///   `HTTPError.init(asyncHTTPClientError:url:)`, in this module), with messages that name the
///   host and port, never the full URL.
/// - When the reader stops early (it is cancelled, or the exchange ends before the body did,
///   as when `receive` returns without reading to the end, or the body is dropped unread) AHC
///   cancels the request and closes its connection, so nothing is left half-read in the pool;
///   the next request opens a new connection.
/// - Task cancellation cancels the request.
/// - A `CONNECT` request fails with ``/HTTPCore/HTTPError/Code/invalidRequest`` before anything is
///   sent: AHC cannot open a tunnel, and a server that accepts one switches the connection to
///   bytes AHC cannot parse.
///
/// ## The deadline
///
/// The request's `timeout` is the time the whole exchange may take, head and body. The
/// transport holds it itself, with one NIO timer for all its exchanges (`ExchangeDeadlines`)
/// rather than AHC's deadline, which costs a timer scheduled on an event loop per request: an
/// exchange still under way at its deadline fails with ``/HTTPCore/HTTPError/timeout``, before
/// the head or in the body after the bytes that came (read or not), and AHC cancels the
/// request, closing its connection.
///
/// The same timer checks on each exchange 50 ms after it began: AHC fails the task of a
/// client already shut down without telling its delegate, and nothing public tells that task
/// apart from one under way, so an exchange still going then watches its task's failure (a
/// callback added to the task's future, which wakes its event loop). A send on a client shut
/// down fails with ``/HTTPCore/HTTPError/Code/invalidRequest`` after those 50 ms, with or
/// without a timeout; an exchange over sooner, as most on a local network are, never wakes
/// that loop for it.
///
/// ## The body's path
///
/// The transport is an AHC response delegate: each body part is copied once, on the event
/// loop the delegate runs on (the one that read it, unless AHC's pool gave the request a
/// connection on another loop: AHC then hops each callback over), into the body the caller
/// reads, waking only the reader, as a bare AHC reader is woken. No task relays it. While
/// about 256 KiB wait unread, the part's future stays pending and AHC reads no more from the
/// socket.
///
/// A buffered call needs the whole body before it returns, so for it the delegate keeps the
/// head and appends each part to the first on the event loop, and resumes the caller once, when
/// the exchange ends, with the whole response: no body stream, no second wake-up, about 10,000
/// instructions less per small exchange than collecting the stream. What it returns and
/// throws is what the stream collected up to the client's `maximumBufferedResponseBytes`
/// would give: the same head, bytes and deadline, and a body over that limit, or over
/// ``maximumStreamedResponseBytes``, fails with the same error (a declared length before a
/// byte is read), and AHC cancels the request.
///
/// AHC's request for a URL is made once and copied for the next exchanges to that URL and
/// method (`RequestTemplates`, the last eight kept, without headers or body): making one takes
/// the URL apart through Foundation, about 11,000 instructions on Linux, a third of what the
/// transport added to a bare AHC exchange.
///
/// AHC creates a span per request with the unredacted URL when its configuration has a
/// tracer. ``makeHTTPClient(configuration:)`` switches that off, so `HTTPCoreTracing` spans
/// are not doubled and `url.full` never leaves the process unredacted; a client you make
/// yourself should set `configuration.tracing.tracer = nil` too (and, for URLSession-like
/// failures, `connectionPool.retryConnectionEstablishment = false`).
public struct AsyncHTTPClientTransport: HTTPTransport {
    /// The AHC client that performs the exchanges; its owner shuts it down.
    public let client: AsyncHTTPClient.HTTPClient
    /// The most bytes of a response body, buffered or streamed; `nil`, the default, for no
    /// limit here: a streamed body is never held whole, so a proxy or a download is not cut at
    /// a size it was never told about, and a buffered call is capped by the client
    /// (`HTTPBody.maximumBufferedBytes`).
    public let maximumStreamedResponseBytes: Int?
    /// The one timer that ends the exchanges still under way at their deadline.
    let deadlines: ExchangeDeadlines
    /// AHC's requests for the URLs sent to last, so that AHC does not take a URL apart again.
    let templates = RequestTemplates()

    /// Creates a transport over `client`.
    ///
    /// - Parameters:
    ///   - client: Performs the exchanges; its owner shuts it down.
    ///   - maximumStreamedResponseBytes: The most bytes of a response body; no limit by default.
    ///     A negative cap is refused: every exchange then fails before it is sent with
    ///     `invalid_request`, naming the setting.
    public init(client: AsyncHTTPClient.HTTPClient, maximumStreamedResponseBytes: Int? = nil) {
        self.init(
            client: client, maximumStreamedResponseBytes: maximumStreamedResponseBytes,
            startCheckDelay: ExchangeDeadlines.defaultStartCheckDelay
        )
    }

    /// Creates a transport over `client` whose exchanges' start checks are due
    /// `startCheckDelay` after they begin: for tests, which set it beyond their own length.
    init(client: AsyncHTTPClient.HTTPClient, maximumStreamedResponseBytes: Int?, startCheckDelay: TimeAmount) {
        self.client = client
        self.maximumStreamedResponseBytes = maximumStreamedResponseBytes
        self.deadlines = ExchangeDeadlines(on: client.eventLoopGroup.next(), startCheckDelay: startCheckDelay)
    }

    /// An `HTTPClient` with AHC's own tracing off (`HTTPCoreTracing` traces instead), failed
    /// connections reported at once rather than retried until the deadline, and the shared
    /// event loop group.
    public static func makeHTTPClient(
        configuration: AsyncHTTPClient.HTTPClient.Configuration = .init()
    ) -> AsyncHTTPClient.HTTPClient {
        var configuration = configuration
        configuration.tracing.tracer = nil
        // A refused or unresolvable host fails at once, as with URLSession, instead of being
        // retried until the request's deadline.
        configuration.connectionPool.retryConnectionEstablishment = false
        return AsyncHTTPClient.HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }

    /// Performs one exchange with AHC, streaming both bodies: returns when the response head
    /// arrives, with the body still coming from the connection.
    ///
    /// `body` (or else the request's ``/HTTPCore/HTTPRequest/body``) is uploaded as AHC's connection
    /// takes it (`Content-Length` when its length is known, else chunked); the returned body is
    /// read from AHC's response body as the caller asks for more, never collected. The request's
    /// `timeout` bounds the exchange, head and body (see the type's documentation); task
    /// cancellation before the head cancels the request. See the type's documentation for the
    /// cap, early stops and errors.
    public func perform(_ request: HTTPCore.HTTPRequest, body: HTTPBody?) async throws -> (HTTPCore.HTTPResponse.Head, HTTPBody) {
        let (head, hasBody) = try await exchange(request, body: body, delivery: .streamed)
        let response = Self.response(to: request, head: head.head, visits: head.visits, hasBody: hasBody)
        switch head.body {
        case .streamed(let body): return (response, body)
        case .collected(let bytes): return (response, HTTPBody(Self.data(of: bytes)))
        }
    }

    /// One exchange with AHC, its response body delivered as `delivery` says; the head, and
    /// whether a request body was sent.
    private func exchange(
        _ request: HTTPCore.HTTPRequest, body: HTTPBody?, delivery: ExchangeDelegate.Delivery
    ) async throws -> (head: ExchangeDelegate.Head, hasBody: Bool) {
        guard request.method != .connect else { throw Self.noTunnels(request.url) }
        if let cap = maximumStreamedResponseBytes, cap < 0 { throw Self.negativeCap(cap) }
        // The delegate runs where the connection reads (AHC picks a connection on this loop
        // when it can), so a body part reaches the reader with no hop between loops.
        let eventLoop = client.eventLoopGroup.any()
        let delegate = ExchangeDelegate(
            request: request,
            maximumBytes: maximumStreamedResponseBytes ?? .max,
            delivery: delivery,
            deadline: request.timeout == nil ? nil : Self.deadline(of: request),
            watchedBy: deadlines
        )
        var uploaded: AsyncHTTPClient.HTTPClient.Body?
        if let body {
            if body.length != .known(0) || request.method != .get {
                uploaded = delegate.upload(body, on: eventLoop)
            }
        } else if let data = request.body, !data.isEmpty || request.method != .get {
            uploaded = .bytes(data)
        }
        let task: AsyncHTTPClient.HTTPClient.Task<Void>
        do {
            let outgoing = try templates.request(
                url: request.url,
                method: .init(rawValue: request.method.rawValue),
                headers: Self.nioHeaders(request.headers),
                body: uploaded
            )
            task = client.execute(
                request: outgoing,
                delegate: delegate,
                eventLoop: .delegate(on: eventLoop)
            )
        } catch {
            throw HTTPCore.HTTPError(asyncHTTPClientError: error, url: request.url)
        }
        // A client already shut down fails the task without telling the delegate. Nothing
        // public tells that task apart from one under way: the delegate watches its task's
        // failure once the exchange outlived its start check (see
        // `ExchangeDelegate.startCheckDue()`). The head itself is awaited without a hop to
        // the event loop.
        delegate.attach(task)
        let head = try await withTaskCancellationHandler {
            try await delegate.awaitHead()
        } onCancel: {
            task.cancel()
        }
        return (head, uploaded != nil)
    }

    /// A collected body's bytes as `Data`, copied once from the buffer's memory; empty for none.
    ///
    /// Not `Data(buffer.readableBytesView)`: that goes through `Data`'s generic sequence
    /// initializer and its dynamic casts, about 1,500 instructions for 64 bytes.
    static func data(of bytes: ByteBuffer?) -> Data {
        guard let bytes, bytes.readableBytes > 0 else { return Data() }
        return bytes.withUnsafeReadableBytes { Data($0) }
    }

    /// The request's `timeout` from now, as AHC's deadline.
    ///
    /// `HTTPTransportClient` hands over only positive timeouts of at most a century; a caller
    /// of ``perform(_:body:)`` itself may hand any, so the conversion clamps instead of trapping:
    /// one of 0 or less is due now, and NaN, infinite or over a century never comes.
    static func deadline(of request: HTTPCore.HTTPRequest) -> NIODeadline {
        guard let timeout = request.timeout, !timeout.isNaN, timeout <= HTTPCore.HTTPRequest.longestTimeout else { return .distantFuture }
        return NIODeadline.now() + .nanoseconds(Int64((max(0, timeout) * 1e9).rounded()))
    }

    /// The HTTPCore response head for `head`, the last of `visits`, for a request sent with a
    /// body when `hasBody`.
    static func response(
        to request: HTTPCore.HTTPRequest, head: HTTPResponseHead, visits: ExchangeDelegate.Visits, hasBody: Bool
    ) -> HTTPCore.HTTPResponse.Head {
        HTTPCore.HTTPResponse.Head(
            requestID: request.id,
            statusCode: Int(head.status.code),
            headers: coreHeaders(head.headers),
            url: visits.last.map(\.url) ?? request.url,
            redirection: redirection(through: visits, hasBody: hasBody)
        )
    }

    /// The redirects AHC followed, from the heads it received: each request before the last
    /// got a redirect. AHC sends the body again only on 307 and 308 (a 303, or a 301 or 302
    /// after a `POST`, becomes a `GET` without one). `nil` when it followed none.
    static func redirection(through visits: ExchangeDelegate.Visits, hasBody: Bool) -> HTTPRedirection? {
        guard !visits.redirects.isEmpty, let last = visits.last, let method = HTTPCore.HTTPMethod(last.method.rawValue) else { return nil }
        let statusCodes = visits.redirects.map { Int($0.head.status.code) }
        let resentBody = hasBody && statusCodes.allSatisfy { $0 == 307 || $0 == 308 }
        return HTTPRedirection(method: method, resentBody: resentBody, statusCodes: statusCodes)
    }

    /// HTTPCore's headers as NIO's, in order, repeated fields kept.
    static func nioHeaders(_ headers: HTTPCore.HTTPHeaders) -> NIOHTTP1.HTTPHeaders {
        var converted = NIOHTTP1.HTTPHeaders()
        converted.reserveCapacity(headers.fields.count)
        for field in headers {
            converted.add(name: field.name, value: field.value)
        }
        return converted
    }

    /// NIO's headers as HTTPCore's, in order, repeated fields kept.
    static func coreHeaders(_ headers: NIOHTTP1.HTTPHeaders) -> HTTPCore.HTTPHeaders {
        var converted = HTTPCore.HTTPHeaders()
        converted.reserveCapacity(headers.count)
        for (name, value) in headers {
            converted.add(name: name, value: value)
        }
        return converted
    }

    /// The error for a response body to `url` over `limit`, the ``maximumStreamedResponseBytes``
    /// it names. Made only when a body goes over: its message costs allocations no exchange
    /// within the limit should pay.
    static func streamedResponseTooLarge(limit: Int, url: URL) -> HTTPCore.HTTPError {
        .transport(
            .responseTooLarge,
            message: "the response body is over \(limit) bytes, "
                + "AsyncHTTPClientTransport.maximumStreamedResponseBytes (\(target(url)))"
        )
    }

    /// The error for a `CONNECT` request: AHC sends it as an ordinary request to a path, and
    /// a server that accepts it switches the connection to a tunnel AHC cannot read.
    static func noTunnels(_ url: URL) -> HTTPCore.HTTPError {
        .transport(
            .invalidRequest,
            message: "method CONNECT: AsyncHTTPClient cannot open a tunnel (RFC 9110, section 9.3.6) (\(target(url)))"
        )
    }

    /// The error for a negative ``maximumStreamedResponseBytes``, which no body could meet:
    /// every exchange is refused before it is sent, naming the setting and the rule.
    static func negativeCap(_ cap: Int) -> HTTPCore.HTTPError {
        .transport(
            .invalidRequest,
            message: "maximumStreamedResponseBytes: must be 0 or more, or nil for no limit; it is \(cap) (AsyncHTTPClientTransport)"
        )
    }

    static func target(_ url: URL) -> String {
        [url.host, url.port.map(String.init)].compactMap { $0 }.joined(separator: ":")
    }
}

@_spi(Transports) extension AsyncHTTPClientTransport: BufferedShortcut {
    /// Performs one exchange for a buffered call (`send(_:)`): the body is collected on the
    /// event loop as AHC delivers it, and the call returns once, with the whole response,
    /// rather than at the head with a body the caller then reads part by part. The same head,
    /// bytes, deadline and errors as ``perform(_:body:)`` collected up to `maximumBytes`: a body
    /// over it, or over ``maximumStreamedResponseBytes``, fails the call with the error that
    /// collect would give, and AHC cancels the request.
    public func performBuffered(_ request: HTTPCore.HTTPRequest, upTo maximumBytes: Int) async throws -> HTTPCore.HTTPResponse {
        let (head, hasBody) = try await exchange(request, body: nil, delivery: .collected(clientLimit: max(0, maximumBytes)))
        let response = Self.response(to: request, head: head.head, visits: head.visits, hasBody: hasBody)
        switch head.body {
        case .collected(let bytes):
            return HTTPCore.HTTPResponse(head: response, body: Self.data(of: bytes))
        case .streamed(let body):
            return HTTPCore.HTTPResponse(head: response, body: try await body.collect(upTo: maximumBytes))
        }
    }
}

extension HTTPTransportClient where Transport == AsyncHTTPClientTransport {
    /// A client over AHC, with middlewares, events and the policy like any HTTPCore client.
    public init(
        asyncHTTPClient client: AsyncHTTPClient.HTTPClient,
        maximumStreamedResponseBytes: Int? = nil,
        middlewares: [any HTTPMiddleware] = [],
        dispatcher: HTTPEventDispatcher = .shared,
        policy: HTTPCorePolicy = .default
    ) {
        self.init(
            transport: AsyncHTTPClientTransport(client: client, maximumStreamedResponseBytes: maximumStreamedResponseBytes),
            middlewares: middlewares, dispatcher: dispatcher, policy: policy
        )
    }
}

