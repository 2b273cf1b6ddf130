import Foundation

/// A stage that shapes requests on their way to the transport: adds headers, retries,
/// refreshes credentials, propagates a trace.
///
/// `HTTPTransportClient` runs its middlewares in list order: the first in the list sees the
/// caller's request first and the final response last. Each middleware receives the request
/// and a `next` that runs the rest of the chain (the later middlewares, then one attempt on
/// the transport). It may change the request, call `next` zero, one or several times, and
/// return any response.
///
/// Use it by passing middlewares to a client:
///
/// ```swift
/// let client = URLSessionClient(middlewares: [
///     TraceContextMiddleware(),
///     RetryMiddleware(),
///     DefaultHeadersMiddleware(["User-Agent": "MyApp/1.0"]),
/// ])
/// ```
///
/// Implement it with one method, which sees the request head and its body, and returns the
/// response head and its body:
///
/// ```swift
/// struct APIVersionMiddleware: HTTPMiddleware {
///     func intercept(
///         _ request: HTTPRequest,
///         body: HTTPBody?,
///         context: HTTPMiddlewareContext,
///         next: HTTPMiddlewareNext
///     ) async throws -> (HTTPResponse.Head, HTTPBody) {
///         var request = request
///         request.headers["API-Version"] = "2"
///         return try await next(request, body)
///     }
/// }
/// ```
///
/// The same method serves buffered calls (``HTTPClient/send(_:)``) and streamed ones
/// (``HTTPClient/send(_:body:)``):
/// - The request's bytes are in ``HTTPRequest/body`` with `body` `nil`, or in `body`, read as
///   it is sent, with ``HTTPRequest/body`` `nil`: a request has one body, and `next` refuses
///   one with both (``HTTPError/Code/invalidRequest``). Pass `body` on to `next` as it is, or
///   wrap it; a body that can be read once can be sent once.
/// - The response is an ``HTTPResponse/Head`` and the ``HTTPBody`` that delivers its bytes.
///   Return the body as it is, wrap it, or replace it.
/// - To decide by the response's bytes, collect them: in a buffered call the body is in
///   memory already, and `collect(upTo:)` hands it back without a copy; in a streamed call it
///   reads the stream, so return the bytes collected as a new `HTTPBody(data)`.
/// - A response you do not return (a retried attempt's) is not read by anyone: drop it, and
///   the client ends its transfer.
///
/// What the client guarantees around a chain:
/// - Every call of `next` is one attempt, with its own `HTTPEvent.Name.requestStarted` event
///   describing the request exactly as passed to `next`, and the attempt number
///   (`HTTPEvent.attempt`). An attempt followed by another is reported as
///   `HTTPEvent.Name.requestRetried` before the next one starts. The request keeps its id
///   and ends with exactly one terminal event.
/// - `next` throws only ``HTTPError``: ``HTTPError/timeout`` when the exchange's deadline
///   passed (or the attempt's own, see below), ``HTTPError/cancelled`` when the caller
///   cancelled. Whatever a middleware throws reaches the middleware before it, and the
///   caller, as an ``HTTPError``.
/// - A `timeout` on the request passed to `next` that differs from the caller's bounds that
///   attempt alone; the caller's ``HTTPRequest/timeout`` bounds the whole exchange, retries
///   and waits included (``HTTPMiddlewareContext/deadline``).
/// - ``HTTPRequest/metadata`` set before calling `next` appears in that attempt's events.
///
/// Rules for implementers: never wait past ``HTTPMiddlewareContext/deadline`` (bound a wait
/// of your own with ``HTTPMiddlewareContext/withinDeadline(_:)``, as
/// ``AuthorizationMiddleware`` does for its credential), honour task cancellation in every
/// wait, never call `next` after returning, and do not emit events: the client does.
public protocol HTTPMiddleware: Sendable {
    /// Handles one request on its way to the transport and returns the response head with
    /// its body.
    ///
    /// - Parameters:
    ///   - request: The request as the previous middleware (or the caller) passed it.
    ///   - body: The request body to stream, `nil` when `request.body` is all there is.
    ///   - context: The exchange's deadline and how to tell an interruption's cause.
    ///   - next: Runs the rest of the chain for a request; may be called zero, one or
    ///     several times, one call after another. A body that can be iterated once can be
    ///     passed to it once (a second attempt with it fails with
    ///     ``HTTPError/Code/invalidRequest``).
    func intercept(
        _ request: HTTPRequest,
        body: HTTPBody?,
        context: HTTPMiddlewareContext,
        next: HTTPMiddlewareNext
    ) async throws -> (HTTPResponse.Head, HTTPBody)
}

/// The rest of a middleware chain: the later middlewares, then one attempt on the transport,
/// returning the response head and its body.
///
/// It throws only ``HTTPError``, so a middleware can tell ``HTTPError/timeout`` (a deadline)
/// from ``HTTPError/cancelled`` (the caller) by the error alone:
/// `do { ... } catch HTTPError.timeout { ... }`. It is declared untyped, like
/// ``HTTPClient/send(_:)``, so the same catches work in a middleware as in app code. The
/// body it returns throws ``HTTPError`` too when the exchange breaks mid-body.
public typealias HTTPMiddlewareNext = @Sendable (HTTPRequest, HTTPBody?) async throws -> (HTTPResponse.Head, HTTPBody)
