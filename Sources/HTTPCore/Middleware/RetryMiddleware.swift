import Foundation
import HTTPCoreConcurrency

/// Sends a request again when an attempt failed in a way that another attempt may fix.
///
/// By default it retries, at most ``maximumAttempts`` times in all, an idempotent request
/// (`GET`, `HEAD`, `OPTIONS`, `TRACE`, `PUT`, `DELETE`, a request marked
/// ``HTTPRequest/isIdempotent``, or one with an `Idempotency-Key` header) after a connection
/// error, a timeout of one attempt, or a response with status 408, 429, 502, 503 or 504. A
/// request marked `isIdempotent = false` is never retried. With
/// ``retriesUnsentRequests`` it also retries other requests, `POST` included, after an
/// error that means they never left (``unsentTransportCodes``).
///
/// Between attempts it waits by ``backoff`` (exponential, full jitter), or exactly as long as
/// the server's `Retry-After` asks (seconds or an HTTP-date). When the server asks for more
/// than ``maximumRetryAfter``, or a wait would end past the exchange's deadline
/// (``HTTPMiddlewareContext/deadline``), it returns the last outcome at once instead of
/// waiting. Cancelling the request ends a wait at once, and a request cancelled before the
/// wait that would follow an outcome ends as cancelled rather than with that outcome. A
/// cancellation, or the deadline of the whole exchange, is never retried. ``attemptTimeout`` cuts short only an attempt that
/// a retry can follow; a request that will not be retried keeps the caller's whole deadline.
///
/// ```swift
/// let client = URLSessionClient(middlewares: [RetryMiddleware(maximumAttempts: 4, attemptTimeout: 2)])
/// ```
///
/// For a streamed call (``HTTPClient/send(_:body:)``) it retries only when the request body
/// can be sent again: none, or one made replayable (``HTTPBody/IterationBehavior/multiple``:
/// bytes in memory, or ``HTTPBody/init(length:makeSequence:)``). It decides on the response
/// head: a retried attempt's body is stopped unread, and a response handed on is never
/// retried, whatever happens to its body later.
///
/// Each attempt is visible in events (`HTTPEvent.attempt`, `HTTPEvent.Name.requestRetried`),
/// and so in every output, one numbered entry per attempt: a reset or refused connection too.
/// What a transport does within one attempt is not: on Linux, URLSession's libcurl sends a
/// `GET` again on a new connection when a reused one dies before any answer, and reports
/// nothing of it (see the "What differs on Linux" article).
/// Place it before middlewares that should run once per attempt (a fresh trace span, a
/// credential), after those that should run once per request.
public struct RetryMiddleware: HTTPMiddleware {
    /// The most attempts per request, the first included; values below 1 count as 1.
    public var maximumAttempts: Int
    /// The wait between attempts when the server gives no `Retry-After`.
    public var backoff: Backoff
    /// The longest `Retry-After` honoured, in seconds; a server asking for more gets its
    /// answer returned, not a retry.
    public var maximumRetryAfter: TimeInterval
    /// A bound, in seconds, for an attempt that another attempt can follow (set as the
    /// `timeout` of the request that attempt sends); an attempt that exceeds it is retried like
    /// a connection error. `nil` leaves every attempt bounded by the caller's
    /// ``HTTPRequest/timeout`` only.
    ///
    /// Only an idempotent request before its last allowed attempt (``maximumAttempts``) is
    /// cut this way, since only then can a timeout be followed by a retry. Any other attempt,
    /// a `POST` or the last one, keeps the caller's `timeout` and runs until the exchange's
    /// deadline, whatever remains of it; without a caller `timeout`, the transport's own limits
    /// bound it.
    public var attemptTimeout: TimeInterval?
    /// Statuses that are retried.
    public var retryableStatusCodes: Set<Int>
    /// Transport failures that are retried for idempotent requests.
    public var retryableTransportCodes: Set<HTTPError.Code>
    /// Whether requests that are not idempotent are retried after a failure that means they
    /// never left (``unsentTransportCodes``); `false` by default.
    public var retriesUnsentRequests: Bool

    /// Transport failures after which the request cannot have left, so any method is retried.
    public static let unsentTransportCodes: Set<HTTPError.Code> = [.cannotConnect, .cannotResolveHost, .notConnected]

    /// Creates a retry middleware; the defaults suit calls to an API from an app or a service.
    public init(
        maximumAttempts: Int = 3,
        backoff: Backoff = Backoff(initial: 0.2, maximum: 10, jitter: .full),
        maximumRetryAfter: TimeInterval = 30,
        attemptTimeout: TimeInterval? = nil,
        retryableStatusCodes: Set<Int> = [408, 429, 502, 503, 504],
        retryableTransportCodes: Set<HTTPError.Code> = [.cannotConnect, .cannotResolveHost, .notConnected, .connectionLost],
        retriesUnsentRequests: Bool = false
    ) {
        self.maximumAttempts = maximumAttempts
        self.backoff = backoff
        self.maximumRetryAfter = maximumRetryAfter
        self.attemptTimeout = attemptTimeout
        self.retryableStatusCodes = retryableStatusCodes
        self.retryableTransportCodes = retryableTransportCodes
        self.retriesUnsentRequests = retriesUnsentRequests
    }

    /// Sends the request, and again after each retryable outcome, until one is final.
    ///
    /// A streamed request body is sent again only when it can be: no streamed body, or a
    /// replayable one (``HTTPBody/IterationBehavior/multiple``); a body that can be read once
    /// is sent once, whatever the outcome. A retried attempt's response body is stopped unread;
    /// once a response is returned, its body is the caller's and nothing is retried.
    public func intercept(
        _ request: HTTPRequest,
        body: HTTPBody?,
        context: HTTPMiddlewareContext,
        next: HTTPMiddlewareNext
    ) async throws -> (HTTPResponse.Head, HTTPBody) {
        let canResend = body.map { $0.iterationBehavior == .multiple } ?? true
        return try await retrying(request, attempts: canResend ? maximumAttempts : 1, context: context) { try await next($0, body) }
    }

    /// The retry loop: `send` for each attempt, at most `attempts`; the body of each outcome
    /// that another attempt replaces is stopped.
    private func retrying(
        _ request: HTTPRequest,
        attempts: Int,
        context: HTTPMiddlewareContext,
        send: (HTTPRequest) async throws -> (HTTPResponse.Head, HTTPBody)
    ) async throws -> (HTTPResponse.Head, HTTPBody) {
        let attempts = max(1, attempts)
        var attempt = 1
        while true {
            let outcome: Result<(HTTPResponse.Head, HTTPBody), HTTPError>
            do {
                outcome = .success(try await send(self.request(forAttempt: attempt, of: request, attempts: attempts)))
            } catch let error as HTTPError {
                outcome = .failure(error)
            }
            guard attempt < attempts, let wait = wait(beforeRetry: attempt, after: outcome, of: request, context) else {
                return try outcome.get()
            }
            if case .success(let (_, replaced)) = outcome { replaced.stopReading() }
            do {
                try await Task.sleep(nanoseconds: Moment.nanoseconds(wait))
            } catch {
                throw context.interruption ?? .cancelled
            }
            attempt += 1
        }
    }

    /// The request that attempt `number` sends: bounded by ``attemptTimeout`` only when a
    /// timeout of that attempt could be retried, otherwise `request` as the caller built it.
    func request(forAttempt number: Int, of request: HTTPRequest, attempts: Int? = nil) -> HTTPRequest {
        guard let attemptTimeout, number < max(1, attempts ?? maximumAttempts), isRetryable(.timeout, for: request) else { return request }
        var bounded = request
        bounded.timeout = attemptTimeout
        return bounded
    }

    /// How long to wait before retry `retry` after `outcome`; `nil` when it is final.
    ///
    /// Takes the attempt's outcome as `next` returned it: a response taken out of it would be
    /// a copy of every field, made on each request for nothing when it is final.
    func wait(
        beforeRetry retry: Int,
        after outcome: Result<(HTTPResponse.Head, HTTPBody), HTTPError>,
        of request: HTTPRequest,
        _ context: HTTPMiddlewareContext
    ) -> TimeInterval? {
        // Past the deadline there is no room for a wait (below); a cancelled request that
        // would be retried ends as cancelled in the wait, not with the outcome it replaces.
        let wait: TimeInterval
        switch outcome {
        case .success(let (response, _)):
            guard request.isIdempotent, retryableStatusCodes.contains(response.statusCode) else { return nil }
            if let asked = response.retryAfter() {
                guard asked <= maximumRetryAfter else { return nil }
                wait = asked
            } else {
                wait = backoff.delay(beforeRetry: retry)
            }
        case .failure(let error):
            guard isRetryable(error, for: request) else { return nil }
            wait = backoff.delay(beforeRetry: retry)
        }
        if let remaining = context.remainingTime, wait >= remaining { return nil }
        return wait
    }

    private func isRetryable(_ error: HTTPError, for request: HTTPRequest) -> Bool {
        switch error.code {
        case .cancelled, .invalidResponse:
            return false
        case .timeout:
            return request.isIdempotent
        case let code:
            guard retryableTransportCodes.contains(code) else { return false }
            if request.isIdempotent { return true }
            return retriesUnsentRequests && request.idempotencyMark == nil && Self.unsentTransportCodes.contains(code)
        }
    }

}
