@_spi(Transports) import HTTPCore
import Dispatch
import Foundation
import HTTPCoreConcurrency

extension HTTPTransportClient {
    /// One attempt of a buffered exchange: reports the attempts it follows as retried, then
    /// calls the transport with its events and takes the response body whole.
    ///
    /// The request keeps the exchange's id, whatever id a middleware gave it. Once the deadline
    /// passed or the caller cancelled, an attempt after the first fails at once without events,
    /// so a middleware that keeps calling `next` cannot flood observers.
    nonisolated(nonsending) func bufferedAttempt(_ request: HTTPRequest, _ body: HTTPBody?, _ exchange: MiddlewareExchange) async throws(HTTPError) -> (HTTPResponse.Head, HTTPBody) {
        var request = request
        request.id = exchange.request.id
        if exchange.attempts.hasBegun, let interruption = exchange.context.interruption { throw interruption }
        if let body {
            if request.body != nil { throw HTTPRequest.twoBodiesProblem }
            // A middleware streamed a body into a buffered call: it is sent, and shown, whole.
            do {
                request.body = try await HTTPBody.collectForBuffering(body)
            } catch {
                throw classify(error, for: request.url, deadline: exchange.context.deadline)
            }
        }
        let ownTimeout = request.timeout == exchange.request.timeout ? nil : request.timeout
        // The caller's request as the middlewares left it (a retry's, for one) was checked as the exchange began.
        let isCallers = Self.isUnchanged(request, from: exchange.request)
        let checked = isCallers ? nil : exchange.request
        guard let created = exchange.created else {
            _ = exchange.attempts.begin()
            return try await performBuffered(request, timeout: ownTimeout, deadline: exchange.context.deadline, madeFrom: checked)
                .get().splitBody
        }
        let (number, retried, latest) = exchange.attempts.begin()
        for attempt in retried { emitRetried(attempt) }
        // The caller's request keeps its record, and a retry of a middleware's the record of the
        // attempt before; another shares with the caller's what the middlewares left as it was.
        // A correlation header that a middleware added (a traceparent) counts from this attempt on.
        let record: RequestRecord
        if isCallers {
            record = created
        } else if let latest, Self.isUnchanged(request, from: latest.request) {
            record = latest
        } else {
            record = RequestRecord(
                request: request, policy: sharedPolicy, correlation: created.correlation ?? reportedCorrelation(in: request), earlier: created
            )
        }
        let (attempt, result) = await performBuffered(record, number: number, timeout: ownTimeout, deadline: exchange.context.deadline, madeFrom: checked)
        exchange.attempts.end(attempt)
        return try result.get().splitBody
    }

    /// One buffered attempt with its `started` and `received` events: the transport called
    /// once for `record`'s request (see ``performBuffered(_:timeout:deadline:madeFrom:)``).
    /// Returns the attempt, as the log keeps it, and its result apart, which only the caller
    /// needs.
    nonisolated(nonsending) func performBuffered(
        _ record: RequestRecord, number: Int, timeout: TimeInterval?, deadline: DispatchTime?, madeFrom checked: HTTPRequest?
    ) async -> (attempt: AttemptLog.Attempt, result: Result<HTTPResponse, HTTPError>) {
        let start = Moment.now()
        configuration.dispatcher.emit(.requestStarted) { HTTPEvent(
            name: $0, request: record, attempt: number, startedAt: start.date,
            attemptTiming: HTTPEvent.AttemptTiming(startedAt: start.date, ended: nil)
        ) }
        let result = await performBuffered(record.request, timeout: timeout, deadline: deadline, madeFrom: checked)
        let ended = start.ended()
        var response: ResponseRecord?
        if case .success(let value) = result {
            response = ResponseRecord(response: value, policy: sharedPolicy)
            configuration.dispatcher.emit(.responseReceived) { HTTPEvent(
                name: $0, request: record, attempt: number, response: response, startedAt: start.date,
                attemptTiming: HTTPEvent.AttemptTiming(startedAt: start.date, ended: ended)
            ) }
        }
        let attempt = AttemptLog.Attempt(number: number, request: record, response: response, error: result.failure, startedAt: start.date, ended: ended)
        return (attempt, result)
    }

    /// The transport called once and its response body taken whole, within `timeout` (the
    /// attempt's own) and what remains before `deadline` (the exchange's), which the
    /// transport is handed as the request's timeout. `checked`: the caller's request, checked
    /// when the exchange began, when this one is a middleware's made from it and is checked
    /// first (``/HTTPCore/HTTPRequest/validate()``), its URL only when the middleware changed it; `nil`
    /// for the caller's own.
    nonisolated(nonsending) func performBuffered(
        _ request: HTTPRequest, timeout: TimeInterval?, deadline: DispatchTime?, madeFrom checked: HTTPRequest?
    ) async -> Result<HTTPResponse, HTTPError> {
        var request = request
        var timeout = timeout
        if let checked {
            let bodyLength = HTTPBody.Length.known(Int64(request.body?.count ?? 0))
            if let invalid = Self.prepareForSending(&request, bodyLength: bodyLength, urlCheckedAs: checked.url, headersCheckedAs: checked.headers) {
                return .failure(invalid)
            }
            if let own = timeout, own > HTTPRequest.longestTimeout { timeout = nil }
        }
        if let interruption = HTTPMiddlewareContext(deadline: deadline).interruption { return .failure(interruption) }
        request.timeout = deadline == nil ? timeout : Self.attemptTimeout(own: timeout, deadline: deadline)
        do {
            if let bufferedShortcut { return .success(try await bufferedShortcut.performBuffered(request, upTo: maximumBufferedResponseBytes)) }
            return .success(try await configuration.transport.performCollected(request, upTo: maximumBufferedResponseBytes))
        } catch {
            return .failure(classify(error, for: request.url, deadline: deadline))
        }
    }
}
