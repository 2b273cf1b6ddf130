import Dispatch
import Foundation
import HTTPCoreConcurrency

extension HTTPTransportClient {
    /// Performs one streaming exchange; see ``/HTTPCore/HTTPClient/send(_:body:)``.
    ///
    /// The bodies stream through the middlewares (``/HTTPCore/HTTPMiddleware/intercept(_:body:context:next:)``)
    /// and the transport (``/HTTPCore/HTTPTransport/perform(_:body:)``), which is handed the exchange's
    /// deadline and ends the wait for the head by it; a tap at the transport counts
    /// their bytes, keeps the first ones the policy captures and splits out server-sent events
    /// and JSON lines for observers, without holding more than those caps. When the policy's
    /// interpreters read the exchange (``HTTPCorePolicy/interpreters``), it also shows them the
    /// head, every chunk and every message, each message up to
    /// ``HTTPExchangeReadingLimits/maximumMessageBytes``, for the terminal event's
    /// ``HTTPEvent/attachments``.
    public func send(_ request: HTTPRequest, body: HTTPBody?) async throws -> (HTTPResponse.Head, HTTPBody) {
        var outgoing = request
        let bodyLength = body?.length ?? .known(Int64(outgoing.body?.count ?? 0))
        // Added first, so the policy's header is checked with the caller's (see send(_:)).
        let added = addCorrelationHeader(to: &outgoing)
        let invalid = body != nil && outgoing.body != nil
            ? HTTPRequest.twoBodiesProblem : Self.prepareForSending(&outgoing, bodyLength: bodyLength)
        let correlation = added ?? reportedCorrelation(in: outgoing)
        let request = outgoing
        let created = RequestRecord(request: request, policy: sharedPolicy, correlation: correlation, isStreamed: true)
        let interprets = interprets
        configuration.dispatcher.emit(.requestCreated) { HTTPEvent(name: $0, request: created, attempt: 0) }
        let start = Moment.now()
        let exchange = MiddlewareExchange(
            request: request, bodyLength: bodyLength, created: created, interprets: interprets,
            deadline: request.timeout.map { start.deadline(after: $0) }, buffers: false, redaction: configuration.redaction
        )
        if let invalid {
            endStream(exchange, created: created, start: start, head: nil, delivered: 0, error: invalid)
            throw invalid
        }
        let answer: (head: HTTPResponse.Head, body: HTTPBody)
        do {
            answer = try await runMiddleware(at: 0, request, body, exchange)
        } catch {
            let error = classify(error, for: request.url, deadline: exchange.context.deadline)
            endStream(exchange, created: created, start: start, head: nil, delivered: 0, error: error)
            throw error
        }
        let head = answer.head
        let response = StreamedResponse(body: answer.body, deadline: exchange.context.deadline) { delivered, error in
            endStream(exchange, created: created, start: start, head: head, delivered: delivered, error: error)
        } classify: { error in
            classify(error, for: request.url, deadline: exchange.context.deadline)
        }
        return (head, response.body)
    }

    /// One streaming attempt with its `started` and `received` events, its bodies tapped.
    func streamedAttempt(_ request: HTTPRequest, _ body: HTTPBody?, _ exchange: MiddlewareExchange) async throws(HTTPError) -> (HTTPResponse.Head, HTTPBody) {
        var outgoing = request
        outgoing.id = exchange.request.id
        // A request a middleware changed is checked again; the caller's was when the exchange began.
        let bodyLength = body?.length ?? .known(Int64(outgoing.body?.count ?? 0))
        if body != nil, outgoing.body != nil { throw HTTPRequest.twoBodiesProblem }
        let isCallers = Self.isUnchanged(outgoing, from: exchange.request)
        if !isCallers || bodyLength != exchange.bodyLength,
            let invalid = Self.prepareForSending(&outgoing, bodyLength: bodyLength, urlCheckedAs: exchange.request.url, headersCheckedAs: exchange.request.headers)
        {
            throw invalid
        }
        let request = outgoing
        if exchange.attempts.hasBegun, let interruption = exchange.context.interruption { throw interruption }
        if let body, body.iterationBehavior == .single, body.hasBeenIterated {
            throw HTTPError.transport(
                .invalidRequest,
                message: "a request body that can be read once was sent already; make it replayable to send it again"
            )
        }
        let (number, retried, _) = exchange.attempts.begin()
        for attempt in retried { emitRetried(attempt) }
        // The caller's request, sent with no streamed body, keeps its record; another shares with it what it left as it was.
        let record: RequestRecord
        if isCallers, body == nil, let created = exchange.created {
            record = created
        } else {
            record = RequestRecord(
                request: request, policy: sharedPolicy, correlation: exchange.created?.correlation ?? reportedCorrelation(in: request),
                isStreamed: true, streamedBodyByteCount: body == nil ? nil : 0, earlier: exchange.created
            )
        }
        let requestTap = body.map { _ in BodyTap(captureLimit: sharedPolicy.policy.capturedBodyBytes) }
        let sentBody = body.map { requestTap!.watching($0, asRequestBody: true) }
        let ownTimeout = request.timeout == exchange.request.timeout ? nil : request.timeout
        var bounded = request
        bounded.timeout = Self.attemptTimeout(own: ownTimeout, deadline: exchange.context.deadline)
        let start = Moment.now()
        configuration.dispatcher.emit(.requestStarted) { HTTPEvent(
            name: $0, request: record, attempt: number, startedAt: start.date,
            attemptTiming: HTTPEvent.AttemptTiming(startedAt: start.date, ended: nil)
        ) }
        let result: Swift.Result<(HTTPResponse.Head, HTTPBody), HTTPError>
        do {
            if let interruption = exchange.context.interruption { throw interruption }
            result = .success(try await configuration.transport.perform(bounded, body: sentBody))
        } catch {
            result = .failure(classify(error, for: request.url, deadline: exchange.context.deadline))
        }
        let ended = start.ended()
        switch result {
        case .failure(let error):
            let sent = streamedRecord(record, tap: requestTap)
            exchange.attempts.end(AttemptLog.Attempt(
                number: number, request: sent, response: nil, error: error, startedAt: start.date, ended: ended,
                taps: BodyTaps(request: requestTap, response: nil)
            ))
            throw error
        case .success(let (head, responseBody)):
            let headRecord = ResponseRecord(response: HTTPResponse(head: head), policy: sharedPolicy, streamedBodyByteCount: 0)
            let timing = HTTPEvent.AttemptTiming(startedAt: start.date, ended: ended)
            configuration.dispatcher.emit(.responseReceived) { HTTPEvent(
                name: $0, request: record, attempt: number, response: headRecord, startedAt: start.date,
                attemptTiming: timing
            ) }
            let responseTap = messageTap(
                for: head, request: record, headRecord: headRecord, attempt: number, timing: timing, began: start,
                readings: exchange.interprets ? readings(for: request) : []
            )
            exchange.attempts.end(AttemptLog.Attempt(
                number: number, request: record, response: headRecord, error: nil, startedAt: start.date, ended: ended,
                taps: BodyTaps(request: requestTap, response: responseTap)
            ))
            // A body nobody reads on (a retried attempt's, dropped) stops the transport's transfer.
            return (head, responseTap.watching(responseBody, stopsWhenDropped: true))
        }
    }

    /// The tap of a response body: its capture, its messages emitted as events when the
    /// policy captures bodies, and the interpreters' `readings` of the response, whose
    /// arrival times count from `began`, the start of the attempt that got it (not of the
    /// exchange: middlewares, earlier attempts and their backoff are not the server's time).
    private func messageTap(
        for head: HTTPResponse.Head, request: RequestRecord, headRecord: ResponseRecord, attempt: Int, timing: HTTPEvent.AttemptTiming,
        began: Moment, readings: [any HTTPExchangeReading]
    ) -> BodyTap {
        let emit: (@Sendable (BodyTap.MessageArrival) -> Void)?
        if sharedPolicy.policy.bodyCapture == .omitted {
            emit = nil
        } else {
            emit = { [dispatcher, sharedPolicy] arrival in
                dispatcher.emit(.responseMessage) { HTTPEvent(
                    name: $0, request: request, attempt: attempt, response: headRecord, startedAt: timing.startedAt,
                    attemptTiming: timing,
                    message: StreamMessageRecord(
                        raw: arrival.message, index: arrival.index, millisecondsSincePrevious: arrival.millisecondsSincePrevious,
                        policy: sharedPolicy
                    )
                ) }
            }
        }
        return BodyTap(
            captureLimit: sharedPolicy.policy.capturedBodyBytes, contentType: head.headers["Content-Type"],
            messages: sharedPolicy.policy.streamMessages,
            onMessage: emit, readings: readings, head: head, began: began.uptimeNanoseconds
        )
    }

    /// A request record whose streamed body is what the tap saw go out.
    private func streamedRecord(_ record: RequestRecord, tap: BodyTap?) -> RequestRecord {
        guard let tap else { return record }
        let seen = tap.snapshot
        var request = record.request
        request.body = seen.captured
        return RequestRecord(
            request: request, policy: sharedPolicy, correlation: record.correlation, isStreamed: true, streamedBodyByteCount: seen.byteCount,
            earlier: record
        )
    }

    /// Emits the terminal event of a streaming exchange: after its body ended, failed or was
    /// given up (`head` set), or when no head came; for an LLM call (its request as it last
    /// went out), with what the interpreters derived from it. `created`: the exchange's record,
    /// which a streamed exchange always makes, observed or not; the terminal event describes it
    /// when no attempt was made.
    private func endStream(
        _ exchange: MiddlewareExchange, created: RequestRecord, start: Moment, head: HTTPResponse.Head?, delivered: Int, error: HTTPError?
    ) {
        let ended = start.ended()
        let (last, unreported) = exchange.attempts.finish()
        for attempt in unreported { emitRetried(attempt) }
        let request = last.map { streamedRecord($0.request, tap: $0.taps?.request) } ?? created
        var response: ResponseRecord?
        var summary: HTTPEvent.StreamSummary?
        var responseTap: BodyTap?
        if let head {
            if let last, let tap = last.taps?.response, last.response?.holds(head) ?? false {
                responseTap = tap
                let seen = tap.snapshot
                let captured = HTTPResponse(head: head, body: seen.captured)
                response = ResponseRecord(response: captured, policy: sharedPolicy, streamedBodyByteCount: seen.byteCount)
                if seen.messageCount > 0 {
                    summary = HTTPEvent.StreamSummary(
                        messageCount: seen.messageCount, droppedMessageCount: seen.messageCount - seen.emittedMessageCount
                    )
                }
            } else {
                response = ResponseRecord(response: HTTPResponse(head: head), policy: sharedPolicy, streamedBodyByteCount: delivered)
            }
        }
        let name: HTTPEvent.Name = error == nil ? .requestSucceeded : error?.code == .cancelled ? .requestCancelled : .requestFailed
        configuration.dispatcher.emit(name) { HTTPEvent(
            name: $0, request: request, attempt: last?.number ?? 0, response: response, error: error, startedAt: start.date,
            ended: ended, attemptTiming: last?.timing, streamSummary: summary,
            attachments: exchange.interprets
                ? Self.finish(responseTap?.readings ?? readings(for: request.request), request: request, response: head.map { HTTPResponse(head: $0) }, error: error) : []
        ) }
    }
}
