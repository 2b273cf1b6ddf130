import Foundation

/// The adapter contract: one method that performs one HTTP exchange.
///
/// Implement it to bring a new transport (an HTTP library, a recorded-response replayer, a
/// retrying wrapper) under HTTPCore. Wrap it in ``HTTPTransportClient`` and the wrapper
/// provides `send`, `execute`, request ids, timing, deadlines, cancellation, the policy and
/// every lifecycle event: an adapter writes no event code and is observed automatically.
///
/// ```swift
/// struct EchoTransport: HTTPTransport {
///     func perform(_ request: HTTPRequest) async throws -> HTTPResponse {
///         HTTPResponse(requestID: request.id, statusCode: 200, body: request.body ?? Data(), url: request.url)
///     }
/// }
/// let client = HTTPTransportClient(transport: EchoTransport(), dispatcher: dispatcher)
/// ```
///
/// Rules for implementers:
/// - Return the complete response for any status; do not throw for 4xx or 5xx.
/// - Throw ``HTTPError`` for failures you can classify; any other error is reported as
///   ``HTTPError/transport(_:message:)`` with code ``HTTPError/Code/other``.
/// - Honour Swift task cancellation promptly: deadlines and `cancel()` work through it.
/// - Do not emit events, assign ids or apply the policy: the client does.
///
/// ## Deadlines
///
/// By default ``HTTPTransportClient`` races a timer against every attempt that has a
/// ``HTTPRequest/timeout``, so a transport that ignores it still cannot hold the caller past
/// it. That race costs a task group and a sleeping child task per request. A transport whose
/// underlying client already ends an exchange at a deadline (AsyncHTTPClient does, in NIO)
/// declares ``enforcesTimeout`` and the client trusts it instead:
///
/// ```swift
/// struct NIOTransport: HTTPTransport {
///     var enforcesTimeout: Bool { true }
///     func perform(_ request: HTTPRequest) async throws -> HTTPResponse {
///         // Ends the whole exchange, head and body, `request.timeout` seconds from now
///         // with HTTPError.timeout; honours task cancellation with HTTPError.cancelled.
///     }
/// }
/// ```
///
/// ## Streaming
///
/// The second requirement, ``perform(_:body:)``, serves ``HTTPClient/send(_:body:)`` (and its scoped form, ``HTTPClient/send(_:body:receive:isolation:)``):
/// it returns as soon as the response head arrives and hands the body over as it comes. A
/// transport that only buffers does not implement it: the default collects the request body,
/// calls ``perform(_:)`` and hands over the buffered response body, so streaming callers
/// keep working, with the memory of the buffered path. A transport that streams implements
/// both and gets the full benefit: bounded memory and the first bytes as soon as they arrive.
/// See ``perform(_:body:)`` for what a streaming implementation owes.
public protocol HTTPTransport: Sendable {
    /// Performs one exchange for `request` and returns the complete response.
    func perform(_ request: HTTPRequest) async throws -> HTTPResponse

    /// Whether ``perform(_:)`` ends every exchange by itself once its request's
    /// ``HTTPRequest/timeout`` has passed since the call (the response head and the whole
    /// body), throwing ``HTTPError/timeout``, so that ``HTTPTransportClient`` races no timer
    /// against it. `false` by default.
    ///
    /// The client then hands each attempt the time it may take as the request's `timeout`:
    /// the caller's timeout, or what remains of the exchange's deadline after middlewares and
    /// earlier attempts, whichever is shorter. It reports a cancellation after the deadline as
    /// a timeout and any other as ``HTTPError/cancelled``, as it does for every transport.
    /// Declare it only when a transport that is never answered still returns at the deadline:
    /// otherwise a caller's timeout no longer bounds its wait. It does not cover
    /// ``perform(_:body:)``, which the client always bounds itself.
    var enforcesTimeout: Bool { get }

    /// Performs one exchange, uploading `body` as it is read and returning when the response
    /// head arrives, with the response body still streaming.
    ///
    /// The returned ``HTTPResponse`` is the head: status, headers and final URL, with an
    /// empty ``HTTPResponse/body``; the returned ``HTTPBody`` delivers the body. When `body`
    /// is non-`nil` it replaces ``HTTPRequest/body``, which is `nil` then; its
    /// ``HTTPBody/length`` is the `Content-Length` to send when known, else send it chunked.
    ///
    /// What a streaming implementation owes its callers:
    /// - Never hold a body whole: read the request body as the connection takes it, and make
    ///   the response body with ``HTTPBody/makeStream(length:bufferSize:)`` (or wrap a source
    ///   that reads only when asked), so a slow reader slows the transfer.
    /// - Stop when the reader stops: ``HTTPBody/Writer/onTermination(_:)`` runs when the
    ///   exchange ended before the body did; cancel the underlying request then.
    /// - Fail the body, not the call, for a break after the head: finish it with an
    ///   ``HTTPError`` (``HTTPError/Code/connectionLost`` for a dropped connection,
    ///   ``HTTPError/Code/responseTooLarge`` for a size cap).
    /// - Honour task cancellation while waiting for the head, as ``perform(_:)`` does.
    func perform(_ request: HTTPRequest, body: HTTPBody?) async throws -> (HTTPResponse, HTTPBody)
}

extension HTTPTransport {
    /// `false`: the client bounds every attempt with a timer of its own.
    public var enforcesTimeout: Bool { false }

    /// The buffering default: collects `body` (up to ``HTTPBody/maximumBufferedBytes``, else
    /// ``HTTPError/Code/invalidRequest`` before anything is sent), calls ``perform(_:)`` and
    /// returns the response head with its body as a replayable ``HTTPBody``.
    public func perform(_ request: HTTPRequest, body: HTTPBody?) async throws -> (HTTPResponse, HTTPBody) {
        var request = request
        if let body { request.body = try await HTTPBody.collectForBuffering(body) }
        return try await perform(request).splitBody
    }
}
