import Dispatch
import Foundation
import HTTPCoreConcurrency
import HTTPCoreText

/// The ``HTTPClient`` that every transport gets for free: wrap an ``HTTPTransport`` in it.
///
/// It gives the transport's exchanges process-unique ids, timing, a precise deadline
/// (``HTTPRequest/timeout``), cancellation (Swift tasks and ``Cancellable``), the policy
/// (correlation header, redaction of what events expose), the middlewares that shape
/// requests, and every lifecycle event, in order, with exactly one terminal event per
/// request.
///
/// ```swift
/// let client = HTTPTransportClient(
///     transport: MyTransport(),
///     middlewares: [TraceContextMiddleware(), RetryMiddleware()],
///     dispatcher: dispatcher,
///     policy: .debug
/// )
/// let response = try await client.send(HTTPRequest(url: url, timeout: 5))
/// ```
///
/// Middlewares run in list order: the first sees the caller's request first (see
/// ``HTTPMiddleware`` for the events of each attempt).
///
/// Every request is checked before a transport sees it (``HTTPRequest/validate()``): a request
/// that cannot be sent fails with ``HTTPError/Code/invalidRequest`` naming the field and the
/// rule, after its `created` event and without a `started` one. A request a middleware passes
/// on is checked again.
///
/// Cost on the request path: the check (one pass over the URL's text and the header bytes,
/// about 0.25 µs for three headers), a few clock reads, two allocations for the request's
/// record and two for the response's, and one enqueue per event and observer, plus one
/// allocation per attempt when there are middlewares. Redaction and observers run on the dispatcher's
/// delivery queue. With no observer subscribed when the exchange starts, it emits no event
/// (and, with no middleware either, makes no record): an observer subscribing during that
/// exchange sees none of it rather than part. Over a transport that enforces its timeout
/// (``HTTPTransport/enforcesTimeout``) no timer is added either, so the client costs the
/// transport call alone.
public struct HTTPTransportClient<Transport: HTTPTransport>: HTTPClient {
    /// The transport that performs each attempt.
    public let transport: Transport
    /// The middlewares every request goes through, first to last, before the transport.
    public let middlewares: [any HTTPMiddleware]
    /// The dispatcher that receives this client's events.
    public let dispatcher: HTTPEventDispatcher
    /// What events expose, and whether requests carry a correlation header.
    public let policy: HTTPCorePolicy
    /// Whether a timer bounds the middleware chain: unless the transport enforces timeouts
    /// and every middleware stays within the deadline.
    private let timesTheChain: Bool

    /// Creates a client around a transport.
    ///
    /// - Parameters:
    ///   - transport: Performs each attempt.
    ///   - middlewares: Shape each request, first to last; none by default.
    ///   - dispatcher: Where events go; by default ``HTTPEventDispatcher/shared``.
    ///   - policy: What events expose; by default ``HTTPCorePolicy/default``.
    public init(
        transport: Transport,
        middlewares: [any HTTPMiddleware] = [],
        dispatcher: HTTPEventDispatcher = .shared,
        policy: HTTPCorePolicy = .default
    ) {
        self.transport = transport
        self.middlewares = middlewares
        self.dispatcher = dispatcher
        self.policy = policy
        timesTheChain = !transport.enforcesTimeout || middlewares.contains { !$0.staysWithinDeadline }
    }

    /// Performs one exchange; see ``HTTPClient/send(_:)``.
    public func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        var request = request
        let invalid = Self.prepareForSending(&request, bodyLength: .known(Int64(request.body?.count ?? 0)))
        let added = addCorrelationHeader(to: &request)
        if !dispatcher.hasObservers {
            if let invalid { throw invalid }
            // Nobody observes: no events, only the middlewares, the transport and the deadline.
            guard !middlewares.isEmpty else {
                return try await perform(request, timeout: request.timeout, deadline: nil, checks: false).get()
            }
            return try await sendThroughMiddlewares(RequestRecord(request: request, policy: policy, correlation: nil), isObserved: false)
        }
        let correlation = added ?? reportedCorrelation(in: request)
        let created = RequestRecord(request: request, policy: policy, correlation: correlation)
        dispatcher.emit(.requestCreated) { HTTPEvent(name: $0, request: created, attempt: 0) }
        if let invalid {
            let now = Moment.now()
            return try finish(.failure(invalid), request: created, attempt: 0, response: nil, startedAt: now.date, ended: now.ended(), attemptTiming: nil)
        }
        if middlewares.isEmpty {
            return try await sendDirectly(created)
        }
        return try await sendThroughMiddlewares(created)
    }

    /// Checks the caller's request before anything is sent (``HTTPRequest/validate()``) and
    /// makes a timeout past ``HTTPRequest/longestTimeout`` `nil`; the problem, or `nil` when the
    /// request can be sent.
    static func prepareForSending(_ request: inout HTTPRequest, bodyLength: HTTPBody.Length) -> HTTPError? {
        do throws(HTTPError) {
            try request.prepareForSending(bodyLength: bodyLength)
            return nil
        } catch {
            return error
        }
    }

    /// The policy's correlation header, added with a new UUID when missing, as the request's
    /// correlation id; `nil` when the policy names none (``reportedCorrelation(in:)`` then
    /// finds one the caller set).
    func addCorrelationHeader(to request: inout HTTPRequest) -> RequestRecord.Correlation? {
        guard let name = policy.correlationHeaderName else { return nil }
        if let existing = request.headers[name] { return .init(headerName: name, value: existing, isGenerated: false) }
        let value = UUID().uuidString
        request.headers.add(name: name, value: value)
        return .init(headerName: name, value: value, isGenerated: true)
    }

    /// The first of the policy's reported headers that the request carries, as its correlation id.
    func reportedCorrelation(in request: HTTPRequest) -> RequestRecord.Correlation? {
        policy.reportedCorrelation(in: request.headers).map { .init(headerName: $0.headerName, value: $0.value, isGenerated: false) }
    }

    // MARK: Without middlewares: one attempt, the caller's request as it is

    private func sendDirectly(_ record: RequestRecord) async throws(HTTPError) -> HTTPResponse {
        let attempt = await perform(record, number: 1, timeout: record.request.timeout, deadline: nil, checks: false)
        return try finish(
            attempt.result, request: record, attempt: 1, response: attempt.response, startedAt: attempt.startedAt, ended: attempt.ended,
            attemptTiming: attempt.timing
        )
    }

    // MARK: Through middlewares: zero or more attempts

    /// What the steps of one exchange through the middlewares share.
    struct Exchange: Sendable {
        /// The caller's request, whose id, correlation id and timeout every attempt keeps.
        let created: RequestRecord
        let context: HTTPMiddlewareContext
        let attempts: AttemptLog
        /// Whether its events are emitted: `false` when nobody observed as it began, and then
        /// its attempts are only counted.
        let isObserved: Bool

        /// An exchange of `created` that must be over by `deadline`, with no attempt yet.
        init(created: RequestRecord, deadline: DispatchTime?, isObserved: Bool = true) {
            self.created = created
            self.isObserved = isObserved
            attempts = AttemptLog()
            context = HTTPMiddlewareContext(deadline: deadline, attempts: attempts)
        }
    }

    private func sendThroughMiddlewares(_ created: RequestRecord, isObserved: Bool = true) async throws(HTTPError) -> HTTPResponse {
        let start = Moment.now()
        let request = created.request
        let callerTimeout = request.timeout
        let exchange = Exchange(created: created, deadline: callerTimeout.map { start.deadline(after: $0) }, isObserved: isObserved)
        let result: Result<HTTPResponse, HTTPError>
        do {
            if let callerTimeout, timesTheChain {
                result = .success(try await withDeadline(seconds: callerTimeout) {
                    try await runMiddleware(at: 0, request, exchange)
                })
            } else {
                result = .success(try await runMiddleware(at: 0, request, exchange))
            }
        } catch {
            result = .failure(classify(error, for: request.url, deadline: exchange.context.deadline))
        }
        guard isObserved else { return try result.get() }
        let ended = start.ended()
        let (last, unreported) = exchange.attempts.finish()
        for attempt in unreported { emitRetried(attempt) }
        var response: ResponseRecord?
        if case .success(let value) = result {
            response = last?.response.flatMap { $0.holds(value) ? $0 : nil } ?? ResponseRecord(response: value, policy: policy)
        }
        return try finish(
            result, request: last?.request ?? created, attempt: last?.number ?? 0, response: response,
            startedAt: start.date, ended: ended, attemptTiming: last?.timing
        )
    }

    /// Runs the middleware at `index` with a `next` that runs the rest of the chain; past the
    /// last middleware, makes one attempt.
    private func runMiddleware(at index: Int, _ request: HTTPRequest, _ exchange: Exchange) async throws(HTTPError) -> HTTPResponse {
        guard index < middlewares.count else { return try await attempt(request, exchange) }
        do {
            return try await middlewares[index].intercept(request, context: exchange.context) { request in
                try await runMiddleware(at: index + 1, request, exchange)
            }
        } catch {
            throw classify(error, for: request.url, deadline: exchange.context.deadline)
        }
    }

    /// One attempt: reports the attempts it follows as retried, then hands the request to the
    /// transport with its events.
    ///
    /// The request keeps the exchange's id, whatever id a middleware gave it. Once the deadline
    /// passed or the caller cancelled, an attempt after the first fails at once without events,
    /// so a middleware that keeps calling `next` cannot flood observers.
    private func attempt(_ request: HTTPRequest, _ exchange: Exchange) async throws(HTTPError) -> HTTPResponse {
        let created = exchange.created
        var request = request
        request.id = created.request.id
        if exchange.attempts.hasBegun, let interruption = exchange.context.interruption { throw interruption }
        let ownTimeout = request.timeout == created.request.timeout ? nil : request.timeout
        guard exchange.isObserved else {
            _ = exchange.attempts.begin()
            return try await perform(request, timeout: ownTimeout, deadline: exchange.context.deadline, checks: true).get()
        }
        let (number, retried) = exchange.attempts.begin()
        for attempt in retried { emitRetried(attempt) }
        // A correlation header that a middleware added (a traceparent) counts from this attempt on.
        let record = RequestRecord(request: request, policy: policy, correlation: created.correlation ?? reportedCorrelation(in: request))
        let attempt = await perform(record, number: number, timeout: ownTimeout, deadline: exchange.context.deadline, checks: true)
        exchange.attempts.end(attempt)
        return try attempt.result.get()
    }

    /// Emits a retried attempt's event. Call it in a loop: passed as `forEach(emitRetried)`, a
    /// method becomes a closure that copies the client into a new allocation on every call.
    func emitRetried(_ attempt: AttemptLog.Attempt) {
        dispatcher.emit(.requestRetried) { HTTPEvent(
            name: $0, request: attempt.request, attempt: attempt.number, response: attempt.response,
            error: attempt.result.failure, startedAt: attempt.startedAt, ended: attempt.ended, attemptTiming: attempt.timing
        ) }
    }

    // MARK: Shared steps

    /// Emits the terminal event of a result and returns or throws it.
    func finish(
        _ result: Result<HTTPResponse, HTTPError>,
        request: RequestRecord,
        attempt: Int,
        response: ResponseRecord?,
        startedAt: Date,
        ended: (date: Date, durationMilliseconds: Double),
        attemptTiming: HTTPEvent.AttemptTiming?
    ) throws(HTTPError) -> HTTPResponse {
        switch result {
        case .success(let value):
            dispatcher.emit(.requestSucceeded) { HTTPEvent(
                name: $0, request: request, attempt: attempt, response: response, startedAt: startedAt, ended: ended,
                attemptTiming: attemptTiming
            ) }
            return value
        case .failure(let error):
            let name: HTTPEvent.Name = error.code == .cancelled ? .requestCancelled : .requestFailed
            dispatcher.emit(name) { HTTPEvent(
                name: $0, request: request, attempt: attempt, error: error, startedAt: startedAt, ended: ended, attemptTiming: attemptTiming
            ) }
            throw error
        }
    }

    /// One attempt with its `started` and `received` events: the transport called once for
    /// `record`'s request, bounded by `timeout` when given. `deadline` is the exchange's, to
    /// report a cancellation it caused as a timeout. `checks`: whether the request is checked
    /// first, as one a middleware passed on.
    private func perform(
        _ record: RequestRecord, number: Int, timeout: TimeInterval?, deadline: DispatchTime?, checks: Bool
    ) async -> AttemptLog.Attempt {
        let start = Moment.now()
        dispatcher.emit(.requestStarted) { HTTPEvent(
            name: $0, request: record, attempt: number, startedAt: start.date,
            attemptTiming: HTTPEvent.AttemptTiming(startedAt: start.date, ended: nil)
        ) }
        let result = await perform(record.request, timeout: timeout, deadline: deadline, checks: checks)
        let ended = start.ended()
        var response: ResponseRecord?
        if case .success(let value) = result {
            response = ResponseRecord(response: value, policy: policy)
            dispatcher.emit(.responseReceived) { HTTPEvent(
                name: $0, request: record, attempt: number, response: response, startedAt: start.date,
                attemptTiming: HTTPEvent.AttemptTiming(startedAt: start.date, ended: ended)
            ) }
        }
        return AttemptLog.Attempt(number: number, request: record, response: response, result: result, startedAt: start.date, ended: ended)
    }

    /// The transport called once, bounded by `timeout` and `deadline` when given: by a timer
    /// of the client's, or by the transport itself when it enforces timeouts. `checks`: whether
    /// the request is checked first (``HTTPRequest/validate()``), as one a middleware passed on;
    /// the caller's was checked when the exchange began.
    private func perform(
        _ request: HTTPRequest, timeout: TimeInterval?, deadline: DispatchTime?, checks: Bool
    ) async -> Result<HTTPResponse, HTTPError> {
        var checked = request
        var timeout = timeout
        if checks {
            if let invalid = Self.prepareForSending(&checked, bodyLength: .known(Int64(checked.body?.count ?? 0))) { return .failure(invalid) }
            if let own = timeout, own > HTTPRequest.longestTimeout { timeout = nil }
        }
        let request = checked
        let context = HTTPMiddlewareContext(deadline: deadline)
        if let interruption = context.interruption { return .failure(interruption) }
        do {
            if transport.enforcesTimeout {
                var request = request
                if let remaining = context.remainingTime {
                    request.timeout = timeout.map { min($0, remaining) } ?? remaining
                } else {
                    request.timeout = timeout
                }
                return .success(try await transport.perform(request))
            }
            guard let timeout else {
                return .success(try await transport.perform(request))
            }
            return .success(try await withDeadline(seconds: timeout) { try await transport.perform(request) })
        } catch {
            return .failure(classify(error, for: request.url, deadline: deadline))
        }
    }

    /// The ``HTTPError`` for anything a transport or middleware threw. An interruption once
    /// the exchange's `deadline` passed is a timeout; otherwise a cancelled task is
    /// cancelled, whatever the error says.
    func classify(_ error: any Error, for url: URL, deadline: DispatchTime?) -> HTTPError {
        if error is DeadlineExceeded { return .timeout }
        let isCancellation = Task.isCancelled || error is CancellationError || (error as? HTTPError)?.code == .cancelled
        if isCancellation, let deadline, DispatchTime.now() >= deadline { return .timeout }
        if isCancellation { return .cancelled }
        return scrubbed(error, for: url)
    }

    /// An error as an ``HTTPError`` whose transport message is scrubbed.
    private func scrubbed(_ error: any Error, for url: URL) -> HTTPError {
        switch error {
        case let error as HTTPError:
            guard let message = error.message else { return error }
            return .transport(error.code, message: scrubbed(message, for: url))
        default:
            return .transport(.other, message: scrubbed(HTTPError.safeDescription(of: error), for: url))
        }
    }

    /// Removes the request URL's query, userinfo and fragment from a message, in every
    /// spelling, whatever the level, and cuts it to ``HTTPError/maximumMessageBytes``. Cheap:
    /// the redactor's text rules run later, when an observer reads the event's error.
    private func scrubbed(_ message: String, for url: URL) -> String {
        TransportMessageScrubber(url: url).scrubbed(message)
    }
}

extension Result {
    /// The error of a failure, `nil` for a success.
    var failure: Failure? {
        guard case .failure(let error) = self else { return nil }
        return error
    }
}
