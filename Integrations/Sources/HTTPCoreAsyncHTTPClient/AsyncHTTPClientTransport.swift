import AsyncHTTPClient
import Foundation
import HTTPCore
import NIOCore
import NIOHTTP1

/// An ``/HTTPCore/HTTPTransport`` over AsyncHTTPClient: server-side Swift's HTTP client under HTTPCore's
/// contract, observed like any other client.
///
/// ```swift
/// import AsyncHTTPClient
/// import HTTPCore
/// import HTTPCoreAsyncHTTPClient
///
/// let ahc = AsyncHTTPClientTransport.makeHTTPClient()          // AHC's own tracing off
/// let client = HTTPTransportClient(transport: AsyncHTTPClientTransport(client: ahc))
/// let response = try await client.send(HTTPCore.HTTPRequest(url: url, timeout: 5))
/// try await ahc.shutdown()
/// ```
///
/// - Method, headers (repeated ones too, both ways) and body are passed as they are.
/// - The request's `timeout` becomes AHC's deadline, enforced in NIO, which holds until the
///   response head. ``perform(_:)`` then bounds the body with one timer per transport for all
///   bodies, so the transport declares ``enforcesTimeout``: `HTTPTransportClient` races no
///   timer of its own against a buffered exchange (a task group and a sleeping task per
///   request saved). ``perform(_:body:)`` holds the deadline for the body too, and the client
///   bounds streaming exchanges itself as well.
/// - Redirects are followed as the `HTTPClient` is configured; the response's `url` is the
///   final one. With a streamed request body, a redirect that would send the body again (307,
///   308, or 301 and 302 when configured to keep the method) is not followed: AHC cannot read
///   the stream twice, so the redirect response itself is returned.
/// - The buffered response body is read up to ``maximumResponseBytes``; beyond it the exchange
///   fails with ``/HTTPCore/HTTPError/Code/responseTooLarge`` (`response_too_large`, its message naming
///   the setting), so a huge answer cannot exhaust memory. A streamed body has no cap unless
///   ``maximumStreamedResponseBytes`` sets one: it is never held whole.
/// - Task cancellation cancels the request.
/// - AHC and NIO errors become ``/HTTPCore/HTTPError`` codes (see `HTTPError.init(asyncHTTPClientError:url:)`, in this module),
///   with messages that name the host and port, never the full URL.
///
/// ## Streaming
///
/// ``perform(_:body:)``, which `HTTPClient.send(_:body:receive:)` uses, streams both ways
/// natively:
///
/// - The request body is uploaded as AHC's connection takes it, chunk by chunk, never
///   collected: with `Content-Length` when its ``/HTTPCore/HTTPBody/length`` is known, else chunked.
/// - The call returns as soon as the response head arrives. The body is read from AHC's
///   response body, which reads the socket only while asked for more: a slow reader slows the
///   transfer, and at most about 256 KiB wait unread on HTTPCore's side (plus AHC's own few
///   buffers). Its ``/HTTPCore/HTTPBody/length`` is the `Content-Length` when the head has one (and no
///   `Content-Encoding` or `Transfer-Encoding`), `0` for `HEAD`, 204 and 304, else unknown.
/// - A cap set with ``maximumStreamedResponseBytes`` holds mid-stream: a body that declares
///   more fails with ``/HTTPCore/HTTPError/Code/responseTooLarge`` before a byte is read; one that turns
///   out longer delivers exactly that many bytes, then fails with it. The request is
///   cancelled and its connection closed.
/// - A connection that breaks mid-body fails the body with ``/HTTPCore/HTTPError/Code/connectionLost``
///   after the bytes that arrived; other failures map as above.
/// - When the reader stops early (it is cancelled, or the exchange ends before the body did,
///   as when `receive` returns without reading to the end) AHC cancels the request and closes
///   its connection, so nothing is left half-read in the pool; the next request opens a new
///   connection.
/// - At the deadline the body fails with ``/HTTPCore/HTTPError/timeout`` and the request is cancelled.
///
/// AHC creates a span per request with the unredacted URL when its configuration has a
/// tracer. ``makeHTTPClient(configuration:)`` switches that off, so `HTTPCoreTracing` spans
/// are not doubled and `url.full` never leaves the process unredacted; a client you make
/// yourself should set `configuration.tracing.tracer = nil` too (and, for URLSession-like
/// failures, `connectionPool.retryConnectionEstablishment = false`).
public struct AsyncHTTPClientTransport: HTTPTransport {
    /// The AHC client that performs the exchanges; its owner shuts it down.
    public let client: AsyncHTTPClient.HTTPClient
    /// The most bytes of a response body the buffered ``perform(_:)`` reads whole; 64 MiB by
    /// default. Read a larger body with the streaming `send(_:body:receive:)`.
    public let maximumResponseBytes: Int
    /// The most bytes of a streamed response body (``perform(_:body:)``); `nil`, the default,
    /// for no limit: a streamed body is never held whole, so a proxy or a download is not cut
    /// at a size it was never told about.
    public let maximumStreamedResponseBytes: Int?
    /// The one timer that ends the bodies read past their deadline.
    let bodyDeadlines: BodyDeadlines

    /// Creates a transport over `client`.
    ///
    /// - Parameters:
    ///   - client: Performs the exchanges; its owner shuts it down.
    ///   - maximumResponseBytes: The most bytes of a buffered response body; 64 MiB by default.
    ///   - maximumStreamedResponseBytes: The most bytes of a streamed response body; no limit
    ///     by default.
    public init(
        client: AsyncHTTPClient.HTTPClient, maximumResponseBytes: Int = 64 * 1024 * 1024, maximumStreamedResponseBytes: Int? = nil
    ) {
        self.client = client
        self.maximumResponseBytes = maximumResponseBytes
        self.maximumStreamedResponseBytes = maximumStreamedResponseBytes
        self.bodyDeadlines = BodyDeadlines(on: client.eventLoopGroup.next())
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

    /// `true`: ``perform(_:)`` ends the exchange, head and body, at the request's `timeout`
    /// with ``/HTTPCore/HTTPError/timeout``.
    public var enforcesTimeout: Bool { true }

    /// Performs one exchange with AHC, the response body read whole (up to
    /// ``maximumResponseBytes``), within the request's `timeout`.
    ///
    /// AHC's async API holds the deadline until the head arrives. The body is then read by a
    /// task that the transport's one timer for all bodies cancels at the deadline (see
    /// `BodyDeadlines`), so the whole exchange is bounded without a timer per request. Where
    /// the runtime has `Task.immediate` (Swift 6.2 on Linux, the 26 releases of Apple's
    /// platforms), that task starts on the caller's thread: a body that already arrived with
    /// the head is read with no hop to another thread and back. Task cancellation cancels the
    /// request.
    public func perform(_ request: HTTPCore.HTTPRequest) async throws -> HTTPCore.HTTPResponse {
        var outgoing = Self.outgoing(request)
        if let data = request.body, !data.isEmpty || request.method != .get {
            outgoing.body = .bytes(ByteBuffer(bytes: data))
        }
        let deadline = Self.deadline(of: request)
        let response: HTTPClientResponse
        let body: ByteBuffer
        do {
            response = try await client.execute(outgoing, deadline: deadline)
            body = try await collect(response.body, until: request.timeout == nil ? nil : deadline)
        } catch let error as HTTPCore.HTTPError {
            throw error
        } catch is NIOTooManyBytesError {
            throw bufferedResponseTooLarge(request.url)
        } catch {
            throw HTTPCore.HTTPError(asyncHTTPClientError: error, url: request.url)
        }
        return HTTPCore.HTTPResponse(
            requestID: request.id,
            statusCode: Int(response.status.code),
            headers: Self.coreHeaders(response.headers),
            body: Data(body.readableBytesView),
            url: Self.finalURL(of: response, for: request),
            redirection: Self.redirection(of: response, hasBody: !(request.body?.isEmpty ?? true))
        )
    }

    /// `body` read whole, up to ``maximumResponseBytes``; by the time `deadline` passes, or
    /// ``/HTTPCore/HTTPError/timeout``.
    private func collect(_ body: HTTPClientResponse.Body, until deadline: NIODeadline?) async throws -> ByteBuffer {
        let maximumBytes = maximumResponseBytes
        guard let deadline else { return try await body.collect(upTo: maximumBytes) }
        let reading: Task<ByteBuffer, any Error>
        #if compiler(>=6.2)
        if #available(macOS 26, iOS 26, tvOS 26, watchOS 26, visionOS 26, *) {
            reading = Task.immediate { try await body.collect(upTo: maximumBytes) }
        } else {
            reading = Task { try await body.collect(upTo: maximumBytes) }
        }
        #else
        reading = Task { try await body.collect(upTo: maximumBytes) }
        #endif
        let ticket = bodyDeadlines.watch(reading, until: deadline)
        let result = await withTaskCancellationHandler {
            await reading.result
        } onCancel: {
            reading.cancel()
        }
        let cancelledAtDeadline = !bodyDeadlines.unwatch(ticket)
        if case .success(let bytes) = result { return bytes }
        if cancelledAtDeadline { throw HTTPCore.HTTPError.timeout }
        return try result.get()
    }

    /// The AHC request for `request`: method, URL and headers, without a body.
    static func outgoing(_ request: HTTPCore.HTTPRequest) -> HTTPClientRequest {
        var outgoing = HTTPClientRequest(url: request.url.absoluteString)
        outgoing.method = .init(rawValue: request.method.rawValue)
        outgoing.headers = nioHeaders(request.headers)
        return outgoing
    }

    /// The request's `timeout` from now, as AHC's deadline.
    ///
    /// `HTTPTransportClient` hands over only positive timeouts of at most a century; a caller
    /// of ``perform(_:)`` itself may hand any, so the conversion clamps instead of trapping:
    /// one of 0 or less is due now, and NaN, infinite or over a century never comes.
    static func deadline(of request: HTTPCore.HTTPRequest) -> NIODeadline {
        guard let timeout = request.timeout, !timeout.isNaN, timeout <= HTTPCore.HTTPRequest.longestTimeout else { return .distantFuture }
        return NIODeadline.now() + .nanoseconds(Int64((max(0, timeout) * 1e9).rounded()))
    }

    /// The HTTPCore response head of an AHC response, with an empty body, for a request sent
    /// with a body when `hasBody`.
    static func head(of response: HTTPClientResponse, for request: HTTPCore.HTTPRequest, hasBody: Bool) -> HTTPCore.HTTPResponse {
        HTTPCore.HTTPResponse(
            requestID: request.id,
            statusCode: Int(response.status.code),
            headers: coreHeaders(response.headers),
            body: Data(),
            url: finalURL(of: response, for: request),
            redirection: redirection(of: response, hasBody: hasBody)
        )
    }

    /// The redirects AHC followed, from its history of the exchange: each request before the
    /// last got a redirect. AHC sends the body again only on 307 and 308 (a 303, or a 301 or
    /// 302 after a `POST`, becomes a `GET` without one). `nil` when it followed none.
    static func redirection(of response: HTTPClientResponse, hasBody: Bool) -> HTTPRedirection? {
        guard response.history.count > 1, let last = response.history.last,
            let method = HTTPCore.HTTPMethod(last.request.method.rawValue)
        else { return nil }
        let statusCodes = response.history.dropLast().map { Int($0.responseHead.status.code) }
        let resentBody = hasBody && statusCodes.allSatisfy { $0 == 307 || $0 == 308 }
        return HTTPRedirection(method: method, resentBody: resentBody, statusCodes: statusCodes)
    }

    /// The URL of the last request AHC sent: `request`'s own unless a redirect was followed,
    /// so an exchange without one parses no URL.
    static func finalURL(of response: HTTPClientResponse, for request: HTTPCore.HTTPRequest) -> URL {
        guard let last = response.history.last?.request.url, last != request.url.absoluteString else { return request.url }
        return URL(string: last) ?? request.url
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

    /// The error for a buffered response body over ``maximumResponseBytes``, naming the setting.
    func bufferedResponseTooLarge(_ url: URL) -> HTTPCore.HTTPError {
        .transport(
            .responseTooLarge,
            message: "the response body is over \(maximumResponseBytes) bytes, AsyncHTTPClientTransport.maximumResponseBytes "
                + "(\(Self.target(url))); raise it, or read the body with the streaming send(_:body:receive:)"
        )
    }

    /// The error for a streamed response body over ``maximumStreamedResponseBytes``, naming the setting.
    func streamedResponseTooLarge(_ url: URL) -> HTTPCore.HTTPError {
        .transport(
            .responseTooLarge,
            message: "the response body is over \(maximumStreamedResponseBytes ?? 0) bytes, "
                + "AsyncHTTPClientTransport.maximumStreamedResponseBytes (\(Self.target(url)))"
        )
    }

    static func target(_ url: URL) -> String {
        [url.host, url.port.map(String.init)].compactMap { $0 }.joined(separator: ":")
    }
}

extension HTTPTransportClient where Transport == AsyncHTTPClientTransport {
    /// A client over AHC, with middlewares, events and the policy like any HTTPCore client.
    public init(
        asyncHTTPClient client: AsyncHTTPClient.HTTPClient,
        maximumResponseBytes: Int = 64 * 1024 * 1024,
        maximumStreamedResponseBytes: Int? = nil,
        middlewares: [any HTTPMiddleware] = [],
        dispatcher: HTTPEventDispatcher = .shared,
        policy: HTTPCorePolicy = .default
    ) {
        self.init(
            transport: AsyncHTTPClientTransport(
                client: client, maximumResponseBytes: maximumResponseBytes, maximumStreamedResponseBytes: maximumStreamedResponseBytes
            ),
            middlewares: middlewares, dispatcher: dispatcher, policy: policy
        )
    }
}

