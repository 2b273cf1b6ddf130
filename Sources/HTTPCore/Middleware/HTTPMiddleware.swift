import Foundation
import HTTPCoreConcurrency

/// A stage that shapes requests on their way to the transport: adds headers, retries,
/// refreshes credentials, propagates a trace.
///
/// ``HTTPTransportClient`` runs its middlewares in list order: the first in the list sees the
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
/// Implement it with one method:
///
/// ```swift
/// struct APIVersionMiddleware: HTTPMiddleware {
///     func intercept(
///         _ request: HTTPRequest,
///         context: HTTPMiddlewareContext,
///         next: HTTPMiddlewareNext
///     ) async throws -> HTTPResponse {
///         var request = request
///         request.headers["API-Version"] = "2"
///         return try await next(request)
///     }
/// }
/// ```
///
/// What the client guarantees around a chain:
/// - Every call of `next` is one attempt, with its own ``HTTPEvent/Name/requestStarted`` event
///   describing the request exactly as passed to `next`, and the attempt number
///   (``HTTPEvent/attempt``). An attempt followed by another is reported as
///   ``HTTPEvent/Name/requestRetried`` before the next one starts. The request keeps its id
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
/// Rules for implementers: honour task cancellation in every wait, never call `next` after
/// returning, and do not emit events: the client does.
///
/// A middleware that never waits past ``HTTPMiddlewareContext/deadline`` of its own accord
/// (it waits for nothing, or bounds its waits by the deadline, as ``RetryMiddleware`` does)
/// declares ``staysWithinDeadline``: over a transport that enforces timeouts itself
/// (``HTTPTransport/enforcesTimeout``), a chain of such middlewares runs without a timer.
public protocol HTTPMiddleware: Sendable {
    /// Handles one request on its way to the transport and returns the response for it.
    ///
    /// - Parameters:
    ///   - request: The request as the previous middleware (or the caller) passed it.
    ///   - context: The exchange's deadline and how to tell an interruption's cause.
    ///   - next: Runs the rest of the chain for a request; may be called zero, one or
    ///     several times, one call after another.
    func intercept(
        _ request: HTTPRequest,
        context: HTTPMiddlewareContext,
        next: HTTPMiddlewareNext
    ) async throws -> HTTPResponse

    /// Handles one request of a streaming exchange (``HTTPClient/send(_:body:receive:isolation:)``)
    /// and returns the response head with its body still streaming.
    ///
    /// The default runs ``intercept(_:context:next:)``: the middleware sees the request
    /// without its streamed body (``HTTPRequest/body`` is `nil`) and the response head
    /// without its body (``HTTPResponse/body`` is empty), and the streamed bodies pass
    /// through it untouched; a response body it sets in place of the head's replaces the
    /// streamed one. When it calls `next` again, the previous attempt's body is stopped.
    /// Implement this method to read or replace streamed bodies, or to decide by them, as
    /// ``RetryMiddleware`` does (it retries only a body that can be sent again).
    ///
    /// - Parameters:
    ///   - request: The request as the previous middleware (or the caller) passed it.
    ///   - body: The request body to stream, `nil` when `request.body` is all there is.
    ///   - context: The exchange's deadline and how to tell an interruption's cause.
    ///   - next: Runs the rest of the chain; a body that can be iterated once can be passed
    ///     to it once (a second attempt with it fails with ``HTTPError/Code/invalidRequest``).
    func intercept(
        _ request: HTTPRequest,
        body: HTTPBody?,
        context: HTTPMiddlewareContext,
        next: HTTPStreamingMiddlewareNext
    ) async throws -> (HTTPResponse, HTTPBody)

    /// Whether this middleware's own work never outlasts the exchange's deadline: it waits
    /// for nothing, or stops waiting by ``HTTPMiddlewareContext/deadline``. `false` by default.
    ///
    /// When every middleware of a client says so and its transport enforces timeouts itself
    /// (``HTTPTransport/enforcesTimeout``), ``HTTPTransportClient`` races no timer against the
    /// chain: each attempt gets what remains of the deadline as its timeout, and an attempt
    /// that would start after the deadline fails with ``HTTPError/timeout`` at once. Leave it
    /// `false` for a middleware that awaits something it does not bound (a token refresh, a
    /// rate limiter): the client then keeps bounding the whole chain with its timer.
    var staysWithinDeadline: Bool { get }
}

extension HTTPMiddleware {
    /// `false`: the client bounds the chain with a timer of its own.
    public var staysWithinDeadline: Bool { false }

    /// The default: runs ``intercept(_:context:next:)`` with the streamed bodies passing
    /// around it (see the requirement).
    public func intercept(
        _ request: HTTPRequest,
        body: HTTPBody?,
        context: HTTPMiddlewareContext,
        next: HTTPStreamingMiddlewareNext
    ) async throws -> (HTTPResponse, HTTPBody) {
        // The body of the last attempt, the one a response from `next` comes with.
        let latest = Locked<HTTPBody?>(nil)
        let response: HTTPResponse
        do {
            response = try await intercept(request, context: context) { request in
                let (head, responseBody) = try await next(request, body)
                latest.withLock { previous in
                    previous?.stopReading()
                    previous = responseBody
                }
                return head
            }
        } catch {
            latest.withLock { $0?.stopReading() }
            throw error
        }
        guard let streamed = latest.withLock({ $0 }) else { return response.splitBody }
        guard response.body.isEmpty else {
            streamed.stopReading()
            return response.splitBody
        }
        return (response, streamed)
    }
}

/// The rest of a middleware chain: the later middlewares, then one attempt on the transport.
///
/// It throws only ``HTTPError``, so a middleware can tell ``HTTPError/timeout`` (a deadline)
/// from ``HTTPError/cancelled`` (the caller) by the error alone:
/// `do { ... } catch HTTPError.timeout { ... }`. It is declared untyped, like
/// ``HTTPClient/send(_:)``, so the same catches work in a middleware as in app code.
public typealias HTTPMiddlewareNext = @Sendable (HTTPRequest) async throws -> HTTPResponse

/// The rest of a streaming middleware chain: the later middlewares, then one attempt on the
/// transport, returning the response head and its body as it streams.
///
/// It throws only ``HTTPError``, as ``HTTPMiddlewareNext`` does; the body it returns throws
/// ``HTTPError`` too when the exchange breaks mid-body.
public typealias HTTPStreamingMiddlewareNext = @Sendable (HTTPRequest, HTTPBody?) async throws -> (HTTPResponse, HTTPBody)
