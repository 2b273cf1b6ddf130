@_spi(Transports) import HTTPCore
import Dispatch
import Foundation
import HTTPCoreConcurrency
import HTTPCoreText

/// The ``/HTTPCore/HTTPClient`` that every transport gets for free: wrap an ``/HTTPCore/HTTPTransport`` in it.
///
/// It gives the transport's exchanges process-unique ids, timing, a precise deadline
/// (``/HTTPCore/HTTPRequest/timeout``), cancellation (Swift task cancellation), the policy
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
/// ``/HTTPCore/HTTPMiddleware`` for the events of each attempt).
///
/// Every request is checked before a transport sees it (``/HTTPCore/HTTPRequest/validate()``): a request
/// that cannot be sent fails with ``/HTTPCore/HTTPError/Code/invalidRequest`` naming the field and the
/// rule, after its `created` event and without a `started` one. A request a middleware passes
/// on is checked again when the middleware changed it (its URL only when that changed).
///
/// Buffered calls (``send(_:)``) and streamed ones (``send(_:body:)``) run one pipeline: the
/// same middlewares, each attempt one call of the transport's one method. A buffered call
/// takes each attempt's response body whole before its middlewares see it, so they, and the
/// events, see the complete response.
///
/// Deadlines: each attempt hands the transport what remains of the exchange's deadline as the
/// request's ``/HTTPCore/HTTPRequest/timeout`` (or the attempt's own timeout, when a middleware set a
/// shorter one), and the transport ends the exchange by then (see ``/HTTPCore/HTTPTransport``); a
/// streamed body read past the deadline throws ``/HTTPCore/HTTPError/timeout``. The client itself races
/// no timer against a call.
///
/// Cost on the request path: the check (one pass over the URL's text and the header bytes,
/// about 0.25 µs for three headers), a few clock reads, two allocations for the request's
/// record and two for the response's, and each handling observer's ``HTTPObserver/handle(_:)``
/// per event, inline. Through middlewares, an attempt of the caller's request as it was keeps
/// its record; one whose request a middleware changed makes a record (one allocation), which
/// reads from the caller's record the redaction of the parts left as they were, so that only
/// the changed parts are redacted again: which parts those are is found when a sink first
/// reads a field, not on the request path. Redaction
/// runs where an observer reads a redacted field: on the sinks' workers. With no observer subscribed when the exchange starts, it emits no event
/// (and, with no middleware either, makes no record): an observer subscribing during that
/// exchange sees none of it rather than part, and the client costs the transport call alone.
///
/// Interpreters: an observed exchange's request, as it last went out, is offered to the
/// policy's interpreters (``HTTPCorePolicy/interpreters``) when its terminal event is built,
/// and a streamed attempt's as its response head arrives. What they derive rides on the
/// terminal event (``HTTPEvent/attachments``): a streamed call's body is shown to them as it
/// passes, on the reading task; a buffered call's is read when an observer first reads the
/// attachment (a sink, on its worker), not as the event is emitted.
public struct HTTPTransportClient<Transport: HTTPTransport>: HTTPClient {
    /// The transport that performs each attempt.
    public var transport: Transport { configuration.transport }
    /// The middlewares every request goes through, first to last, before the transport.
    public var middlewares: [any HTTPMiddleware] { configuration.middlewares }
    /// The dispatcher that receives this client's events.
    public var dispatcher: HTTPEventDispatcher { configuration.dispatcher }
    /// What events expose, and whether requests carry a correlation header.
    public var policy: HTTPCorePolicy { configuration.sharedPolicy.policy }
    /// The most response body bytes a buffered call (``send(_:)``) takes into memory; a longer
    /// body fails it with ``/HTTPCore/HTTPError/Code/responseTooLarge``. Read such a body with
    /// ``send(_:body:)``. A transport's own limit may be lower.
    public var maximumBufferedResponseBytes: Int { configuration.maximumBufferedResponseBytes }
    /// ``policy``, boxed once: the records of this client's exchanges share it.
    var sharedPolicy: SharedPolicy { configuration.sharedPolicy }
    /// The transport's cheaper way to answer a buffered call (``/HTTPCore/BufferedShortcut``), when it has
    /// one: looked for once, here, rather than by a dynamic cast per call.
    var bufferedShortcut: (any BufferedShortcut)? { configuration.bufferedShortcut }
    /// All of the above, in one reference (see ``Configuration``).
    let configuration: Configuration

    /// Creates a client around a transport.
    ///
    /// - Parameters:
    ///   - transport: Performs each attempt.
    ///   - middlewares: Shape each request, first to last; none by default.
    ///   - dispatcher: Where events go; by default ``HTTPEventDispatcher/shared``.
    ///   - policy: What events expose; by default ``HTTPCorePolicy/default``.
    ///   - maximumBufferedResponseBytes: The most response body bytes a buffered call takes
    ///     into memory; 64 MiB by default.
    public init(
        transport: Transport,
        middlewares: [any HTTPMiddleware] = [],
        dispatcher: HTTPEventDispatcher = .shared,
        policy: HTTPCorePolicy = .default,
        maximumBufferedResponseBytes: Int = 64 << 20
    ) {
        configuration = Configuration(
            transport: transport, middlewares: middlewares, dispatcher: dispatcher, sharedPolicy: SharedPolicy(policy),
            maximumBufferedResponseBytes: max(0, maximumBufferedResponseBytes)
        )
    }

    /// Not API: how ``/HTTPCore/HTTPClient/send(_:)`` answers for this client, its body collected up to
    /// ``maximumBufferedResponseBytes`` (a longer one is ``/HTTPCore/HTTPError/Code/responseTooLarge``):
    /// the transport's cheaper buffered answer, when it has one, and the buffered call's events.
    public func _sendBuffered(_ request: HTTPRequest) async throws -> HTTPResponse {
        var request = request
        // Added first, so the policy's header is checked with the caller's: an attempt of the
        // caller's request as it was is not checked again.
        let added = addCorrelationHeader(to: &request)
        let invalid = Self.prepareForSending(&request, bodyLength: .known(Int64(request.body?.count ?? 0)))
        if !configuration.dispatcher.hasObservers {
            if let invalid { throw invalid }
            // Nobody observes: no events, only the middlewares, the transport and the deadline.
            guard !middlewares.isEmpty else {
                return try await performBuffered(request, timeout: request.timeout, deadline: nil, madeFrom: nil).get()
            }
            return try await sendThroughMiddlewares(request, created: nil)
        }
        let correlation = added ?? reportedCorrelation(in: request)
        let created = RequestRecord(request: request, policy: sharedPolicy, correlation: correlation)
        configuration.dispatcher.emit(.requestCreated) { HTTPEvent(name: $0, request: created, attempt: 0) }
        if let invalid {
            let now = Moment.now()
            return try finish(
                .failure(invalid), request: created, attempt: 0, response: nil, startedAt: now.date, ended: now.ended(), attemptTiming: nil
            )
        }
        if middlewares.isEmpty {
            return try await sendDirectly(created)
        }
        return try await sendThroughMiddlewares(request, created: created)
    }

    /// Checks the caller's request before anything is sent (``/HTTPCore/HTTPRequest/validate()``) and
    /// makes a timeout past ``/HTTPCore/HTTPRequest/longestTimeout`` `nil`; the problem, or `nil` when the
    /// request can be sent. `checkedURL` and `checkedHeaders`: the URL and headers of the
    /// caller's request, checked already, for a request a middleware passes on (see
    /// ``/HTTPCore/HTTPRequest/prepareForSending(bodyLength:urlCheckedAs:headersCheckedAs:)``).
    static func prepareForSending(
        _ request: inout HTTPRequest, bodyLength: HTTPBody.Length, urlCheckedAs checkedURL: URL? = nil, headersCheckedAs checkedHeaders: HTTPHeaders? = nil
    ) -> HTTPError? {
        do throws(HTTPError) {
            try request.prepareForSending(bodyLength: bodyLength, urlCheckedAs: checkedURL, headersCheckedAs: checkedHeaders)
            return nil
        } catch {
            return error
        }
    }

    /// Whether a middleware passed `request` on as `original` was: the header and metadata
    /// counts first, which a middleware that adds a header or a key (a trace context) changes,
    /// so such an attempt costs two comparisons, not a walk of the URL and the fields; then
    /// every field, each an identity check for one the middlewares left as it was; then the
    /// header fields' byte counts, since strings equal in Swift may be spelled with other
    /// bytes (a name respelled with the Kelvin sign for `K` is equal to the one checked, but
    /// is no token: it must be checked again).
    static func isUnchanged(_ request: HTTPRequest, from original: HTTPRequest) -> Bool {
        request.headers.count == original.headers.count && request.metadata.count == original.metadata.count && request == original
            && request.headers.countOfLeadingFields(sharedWith: original.headers) == request.headers.count
    }

    /// The policy's correlation header, added with a new UUID when missing, as the request's
    /// correlation id; `nil` when the policy names none (``reportedCorrelation(in:)`` then
    /// finds one the caller set).
    func addCorrelationHeader(to request: inout HTTPRequest) -> RequestRecord.Correlation? {
        guard let name = sharedPolicy.policy.correlationHeaderName else { return nil }
        if let existing = request.headers[name] { return .init(headerName: name, value: existing, isGenerated: false) }
        let value = UUID().uuidString
        request.headers.add(name: name, value: value)
        return .init(headerName: name, value: value, isGenerated: true)
    }

    /// The first of the policy's reported headers that the request carries, as its correlation id.
    func reportedCorrelation(in request: HTTPRequest) -> RequestRecord.Correlation? {
        sharedPolicy.reportedCorrelation(in: request.headers)
    }

    // MARK: Without middlewares: one attempt, the caller's request as it is

    nonisolated(nonsending) private func sendDirectly(_ record: RequestRecord) async throws(HTTPError) -> HTTPResponse {
        let (attempt, result) = await performBuffered(record, number: 1, timeout: record.request.timeout, deadline: nil, madeFrom: nil)
        return try finish(
            result, request: record, attempt: 1, response: attempt.response, startedAt: attempt.startedAt, ended: attempt.ended,
            attemptTiming: attempt.timing
        )
    }

    // MARK: Through middlewares: zero or more attempts

    nonisolated(nonsending) private func sendThroughMiddlewares(_ request: HTTPRequest, created: RequestRecord?) async throws(HTTPError) -> HTTPResponse {
        let start = Moment.now()
        let exchange = MiddlewareExchange(
            request: request, created: created, deadline: request.timeout.map { start.deadline(after: $0) }, buffers: true, redaction: configuration.redaction
        )
        let result: Result<HTTPResponse, HTTPError>
        do {
            let (head, body) = try await runMiddleware(at: 0, request, nil, exchange)
            // An attempt's body is in memory: taken back without a copy. A middleware's own is read.
            result = .success(HTTPResponse(head: head, body: try await body.collectForBufferedCall(upTo: maximumBufferedResponseBytes)))
        } catch {
            result = .failure(classify(error, for: request.url, deadline: exchange.context.deadline))
        }
        guard let created else { return try result.get() }
        let ended = start.ended()
        let (last, unreported) = exchange.attempts.finish()
        for attempt in unreported { emitRetried(attempt) }
        var response: ResponseRecord?
        if case .success(let value) = result {
            response = last?.response.flatMap { $0.holds(value) ? $0 : nil } ?? ResponseRecord(response: value, policy: sharedPolicy)
        }
        return try finish(
            result, request: last?.request ?? created, attempt: last?.number ?? 0, response: response,
            startedAt: start.date, ended: ended, attemptTiming: last?.timing
        )
    }

    /// Runs the middleware at `index` with a `next` that runs the rest of the chain; past the
    /// last middleware, makes one attempt.
    nonisolated(nonsending) func runMiddleware(
        at index: Int, _ request: HTTPRequest, _ body: HTTPBody?, _ exchange: MiddlewareExchange
    ) async throws(HTTPError) -> (HTTPResponse.Head, HTTPBody) {
        guard index < middlewares.count else {
            return exchange.buffers ? try await bufferedAttempt(request, body, exchange) : try await streamedAttempt(request, body, exchange)
        }
        do {
            return try await middlewares[index].intercept(request, body: body, context: exchange.context) { request, body in
                try await runMiddleware(at: index + 1, request, body, exchange)
            }
        } catch {
            throw classify(error, for: request.url, deadline: exchange.context.deadline)
        }
    }

    /// The timeout an attempt hands the transport: its own (`own`, when a middleware set one)
    /// or what remains of the exchange's `deadline`, whichever is shorter.
    static func attemptTimeout(own: TimeInterval?, deadline: DispatchTime?) -> TimeInterval? {
        guard let remaining = HTTPMiddlewareContext(deadline: deadline).remainingTime else { return own }
        return own.map { min($0, remaining) } ?? remaining
    }

    /// Emits a retried attempt's event. Call it in a loop: passed as `forEach(emitRetried)`, a
    /// method becomes a closure that copies the client into a new allocation on every call.
    func emitRetried(_ attempt: AttemptLog.Attempt) {
        configuration.dispatcher.emit(.requestRetried) { HTTPEvent(
            name: $0, request: attempt.request, attempt: attempt.number, response: attempt.response,
            error: attempt.error, startedAt: attempt.startedAt, ended: attempt.ended, attemptTiming: attempt.timing
        ) }
    }

    // MARK: Shared steps

    /// Emits the terminal event of a buffered exchange's result, with the facts of the LLM
    /// call `request` (as it last went out) is, if any, and returns or throws the result.
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
            configuration.dispatcher.emit(.requestSucceeded) { HTTPEvent(
                name: $0, request: request, attempt: attempt, response: response, startedAt: startedAt, ended: ended,
                attemptTiming: attemptTiming,
                attachments: bufferedAttachments(request, response: value, error: nil)
            ) }
            return value
        case .failure(let error):
            let name: HTTPEvent.Name = error.code == .cancelled ? .requestCancelled : .requestFailed
            configuration.dispatcher.emit(name) { HTTPEvent(
                name: $0, request: request, attempt: attempt, error: error, startedAt: startedAt, ended: ended, attemptTiming: attemptTiming,
                attachments: bufferedAttachments(request, response: nil, error: error)
            ) }
            throw error
        }
    }

    /// The ``/HTTPCore/HTTPError`` for anything a transport or middleware threw. An interruption once
    /// the exchange's `deadline` passed is a timeout; otherwise a cancelled task is
    /// cancelled, whatever the error says. The header fields a transport reported adding to
    /// the request (``/HTTPCore/HTTPError/addedRequestHeaders``) stay on the error, so that the
    /// events of a failed attempt show the request as it went out.
    func classify(_ error: any Error, for url: URL, deadline: DispatchTime?) -> HTTPError {
        if error is DeadlineExceeded { return .timeout }
        let isCancellation = Task.isCancelled || error is CancellationError || (error as? HTTPError)?.code == .cancelled
        if isCancellation, let deadline, MonotonicClock.nanoseconds() >= deadline.uptimeNanoseconds {
            return HTTPError.timeout.keepingAddedRequestHeaders(of: error)
        }
        if isCancellation { return HTTPError.cancelled.keepingAddedRequestHeaders(of: error) }
        return scrubbed(error, for: url)
    }

    /// An error as an ``/HTTPCore/HTTPError`` whose transport message is scrubbed.
    private func scrubbed(_ error: any Error, for url: URL) -> HTTPError {
        switch error {
        case let error as HTTPError:
            guard let message = error.message else { return error }
            return HTTPError.transport(error.code, message: scrubbed(message, for: url), underlyingError: error.underlyingError)
                .keepingAddedRequestHeaders(of: error)
        default:
            return .transport(.other, message: scrubbed(HTTPError.safeDescription(of: error), for: url))
        }
    }

    /// Removes the request URL's query, userinfo and fragment from a message, in every
    /// spelling, whatever the level, and cuts it to ``/HTTPCore/HTTPError/maximumMessageBytes``. Cheap:
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
