import Foundation
import HTTPCoreConcurrency

/// The adapter contract: one method that performs one HTTP exchange.
///
/// Implement it to bring a new transport (an HTTP library, a recorded-response replayer, a
/// retrying wrapper) under HTTPCore. Wrap it in `HTTPTransportClient` and the wrapper
/// provides `send`, request ids, timing, cancellation, the policy and every lifecycle event:
/// an adapter writes no event code and is observed automatically.
///
/// ```swift
/// struct EchoTransport: HTTPTransport {
///     func perform(_ request: HTTPRequest, body: HTTPBody?) async throws -> (HTTPResponse.Head, HTTPBody) {
///         let head = HTTPResponse.Head(requestID: request.id, statusCode: 200, url: request.url)
///         return (head, body ?? HTTPBody(request.body ?? Data()))
///     }
/// }
/// let client = HTTPTransportClient(transport: EchoTransport(), dispatcher: dispatcher)
/// ```
///
/// The method streams both ways: it returns when the response head arrives, with the body
/// still arriving. Every call, buffered (``HTTPClient/send(_:)``) or streamed
/// (``HTTPClient/send(_:body:)``), goes through it. A library that only hands over whole
/// bodies implements it too: it collects `body` first (``HTTPBody/collect(upTo:)``) and
/// returns the response's bytes as `HTTPBody(data)`, which a buffered call takes back without
/// a copy.
///
/// Rules for implementers:
/// - Return the response for any status; do not throw for 4xx or 5xx.
/// - Throw ``HTTPError`` for failures you can classify; any other error is reported as
///   ``HTTPError/transport(_:message:underlyingError:)`` with code ``HTTPError/Code/other``.
/// - End the exchange by its deadline: ``HTTPRequest/timeout`` is the time this call may
///   take, the head and the whole body, counted from the call. Throw ``HTTPError/timeout``
///   past it before the head; fail the body with it after. The client does not race a timer
///   against the head: a transport that never answers holds its caller until it gives up.
/// - Honour Swift task cancellation promptly: `cancel()` works through it.
/// - Do not emit events, assign ids or apply the policy: the client does.
///
/// What the method owes its callers:
/// - The returned ``HTTPResponse/Head`` holds the status, headers and final URL; the
///   returned ``HTTPBody`` delivers the body.
/// - When `body` is non-`nil` it replaces ``HTTPRequest/body``, which is `nil` then; its
///   ``HTTPBody/length`` is the `Content-Length` to send when known, else send it chunked.
/// - Never hold a body whole: read the request body as the connection takes it, and make
///   the response body with ``HTTPBody/makeStream(length:bufferSize:)`` (or wrap a source
///   that reads only when asked), so a slow reader slows the transfer.
/// - Stop when the reader stops: ``HTTPBody/Writer/onTermination(_:)`` runs when the
///   exchange ended before the body did (the body was dropped, cancelled or timed out);
///   cancel the underlying request then, so its connection is released.
/// - Fail the body, not the call, for a break after the head: finish it with an
///   ``HTTPError`` (``HTTPError/Code/connectionLost`` for a dropped connection,
///   ``HTTPError/Code/responseTooLarge`` for a size cap).
///
/// `HTTPCoreTesting`'s `TransportConformance` checks these rules against a loopback server.
public protocol HTTPTransport: Sendable {
    /// Performs one exchange, uploading `body` as it is read and returning when the response
    /// head arrives, with the response body still streaming.
    ///
    /// - Parameters:
    ///   - request: What to send; its ``HTTPRequest/timeout`` is the time the whole exchange
    ///     may take from now.
    ///   - body: The request body to stream, `nil` when ``HTTPRequest/body`` is all there is.
    /// - Returns: The response head and the body, still arriving.
    func perform(_ request: HTTPRequest, body: HTTPBody?) async throws -> (HTTPResponse.Head, HTTPBody)
}

/// A transport that hands over whole responses, for this package's tests and benchmarks:
/// implement ``perform(_:)`` and it is an ``HTTPTransport``.
///
/// The adapter collects a streamed request body (up to ``HTTPBody/maximumBufferedBytes``, else
/// ``HTTPError/Code/invalidRequest`` before anything is sent) into ``HTTPRequest/body``, bounds
/// the call by the request's ``HTTPRequest/timeout`` with a timer (so a transport that ignores
/// the timeout still ends by the deadline), and hands the response body over in memory.
/// Users' transports implement ``HTTPTransport/perform(_:body:)`` alone (see
/// WritingATransport.md).
package protocol HTTPBufferedTransport: HTTPTransport {
    /// Performs one exchange for `request` and returns the complete response.
    ///
    /// Honour Swift task cancellation: the adapter's timer works through it.
    func perform(_ request: HTTPRequest) async throws -> HTTPResponse
}

extension HTTPBufferedTransport {
    /// ``performBuffering(_:body:)``.
    package func perform(_ request: HTTPRequest, body: HTTPBody?) async throws -> (HTTPResponse.Head, HTTPBody) {
        try await performBuffering(request, body: body)
    }

    /// Collects `body`, calls ``perform(_:)`` bounded by the request's timeout, and returns
    /// the head with the body in memory (see ``HTTPBufferedTransport``); for a public
    /// conformer, whose ``HTTPTransport/perform(_:body:)`` must be its own.
    package func performBuffering(_ request: HTTPRequest, body: HTTPBody?) async throws -> (HTTPResponse.Head, HTTPBody) {
        var request = request
        if let body { request.body = try await HTTPBody.collectForBuffering(body) }
        guard let timeout = request.timeout else { return try await perform(request).splitBody }
        let bounded = request
        do {
            return try await withDeadline(seconds: timeout) { try await perform(bounded) }.splitBody
        } catch is DeadlineExceeded {
            throw HTTPError.timeout
        }
    }
}

/// A transport with a cheaper way to answer a call that buffers (``HTTPClient/send(_:)``)
/// than streaming and collecting: URLSession's completion-handler tasks, or
/// AsyncHTTPClient's response delegate collecting the body on its event loop.
///
/// Not a seam, and not part of the public contract: a transport implements
/// ``HTTPTransport/perform(_:body:)`` alone. HTTPCore's own transports adopt it through the
/// `Transports` SPI (`@_spi(Transports) import HTTPCore`), which may change in any release.
/// `HTTPTransportClient` takes the shortcut when its transport offers it, and the answer must
/// be what ``HTTPTransport/perform(_:body:)`` with a `nil` body, collected up to the same
/// limit, would give, within the same deadline: the same head, the same bytes, the same
/// errors.
@_spi(Transports) public protocol BufferedShortcut: HTTPTransport {
    /// Performs one exchange of `request` (its body in ``HTTPRequest/body``) and returns the
    /// whole response by the request's ``HTTPRequest/timeout``.
    ///
    /// A body over `maximumBytes` fails the call with
    /// ``HTTPBody/bufferedCallTooLarge(_:)``, as the client's collect of a streamed body would;
    /// a transport's own lower limit fails it with the transport's error.
    func performBuffered(_ request: HTTPRequest, upTo maximumBytes: Int) async throws -> HTTPResponse
}

extension HTTPTransport {
    /// One exchange of `request` (its body in ``HTTPRequest/body``) with the response body
    /// taken whole: through the transport's ``BufferedShortcut`` when it has one (its own
    /// limits apply), else its one method and a collect of up to `maximumBytes`.
    package func performWhole(_ request: HTTPRequest, upTo maximumBytes: Int) async throws -> HTTPResponse {
        if let shortcut = self as? any BufferedShortcut { return try await shortcut.performBuffered(request, upTo: maximumBytes) }
        return try await performCollected(request, upTo: maximumBytes)
    }

    /// One exchange of `request` (its body in ``HTTPRequest/body``) through the transport's one
    /// method, the response body collected up to `maximumBytes`; ``performWhole(_:upTo:)``
    /// without the shortcut, for a caller that looked for it once.
    package func performCollected(_ request: HTTPRequest, upTo maximumBytes: Int) async throws -> HTTPResponse {
        let (head, body) = try await perform(request, body: nil)
        return HTTPResponse(head: head, body: try await body.collectForBufferedCall(upTo: maximumBytes))
    }
}
