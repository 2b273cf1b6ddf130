import Foundation
// For `observingPieces`: counting a body's bytes never copies a transport's chunk.
@_spi(Transports) import HTTPCore
import Tracing

/// An ``/HTTPCore/HTTPMiddleware`` that makes a client span on the swift-distributed-tracing API, with
/// OpenTelemetry's HTTP client conventions, propagates its context in the request's headers
/// (`traceparent` with swift-otel's W3C propagator), and puts the span's ids in the request's
/// metadata, so every log line and payload about the request can be joined to its trace.
///
/// Where it stands in the chain decides what a span covers:
///
/// ```swift
/// // One span per attempt, as the conventions ask: a retry is a new span with
/// // `http.request.resend_count`.
/// let client = URLSessionClient(middlewares: [RetryMiddleware(), TracingMiddleware()])
/// // One span over every attempt (the events still show each attempt).
/// let client = URLSessionClient(middlewares: [TracingMiddleware(), RetryMiddleware()])
/// ```
///
/// Use both places for a logical span over the whole request with a child span per attempt.
/// A span is a child of the caller's span (`ServiceContext.current`) and is named after the
/// method (`GET`), as the conventions ask for when the route is unknown.
///
/// **Ids in the metadata.** When the tracer injects a W3C `traceparent` (swift-otel does by
/// default), the request's ``/HTTPCore/HTTPRequest/metadata`` gets `trace_id` and `span_id`
/// (``/HTTPCore/TraceContextMiddleware/traceIDKey`` and ``/HTTPCore/TraceContextMiddleware/spanIDKey``): the ids of
/// the span the request was sent in. Every event of the attempt carries them, so
/// `LoggingObserver`'s metadata, Loki lines and dev-see payloads show them. A tracer with
/// another propagation format leaves the metadata as it is.
///
/// With no tracer bootstrapped (swift-distributed-tracing's `NoOpTracer`), it passes the request
/// on untouched and costs nothing more than the call. The tracer is read at each request
/// (unless one is given), so a middleware made before the tracing system is bootstrapped
/// traces once it is.
///
/// A span ends with its response's body: for a buffered call (`send(_:)`), whose body is in
/// memory when the head comes back, with the response; for a streamed one (`send(_:body:)`),
/// when the body ends, with the bytes that really went through, and as an error when the body
/// fails.
///
/// Attributes: `http.request.method` (`_OTHER` and `http.request.method_original` for
/// non-standard methods), `url.full` redacted by the client's policy
/// (``/HTTPCore/HTTPMiddlewareContext/redactor``), `server.address`, `server.port`, `http.request.resend_count` on a
/// retry (``/HTTPCore/HTTPMiddlewareContext/attemptsStarted``), `http.request.body.size`,
/// `http.response.status_code`, `http.response.body.size`, and on failure `error.type`
/// (``/HTTPCore/HTTPError/typeName``, or the status code for a 5xx). A 5xx or a failure sets the span's
/// status to error; a 4xx does not, as the conventions say for clients. No header, query value
/// or body ever becomes an attribute.
///
/// **LLM calls.** The span of an LLM call stays an HTTP span: the same name and HTTP
/// attributes, no `gen_ai.*` attribute, since the call's facts (response model, usage, finish
/// reasons, time to first chunk) are known only when the exchange ends, after this span's
/// attempt. ``GenAISpanObserver`` records the GenAI span the conventions describe
/// (`chat gpt-4o`, kind CLIENT, over the whole exchange with its retries) from the terminal
/// event, as a sibling of these spans under the caller's span.
public struct TracingMiddleware: HTTPMiddleware {
    /// The tracer given at creation, if any; `nil` reads the bootstrapped one at each request.
    private let configuredTracer: (any Tracer)?

    private static let standardMethods: Set<String> = ["GET", "HEAD", "POST", "PUT", "DELETE", "CONNECT", "OPTIONS", "TRACE", "PATCH"]

    /// Creates a middleware. Without a `tracer`, each request is traced with the one
    /// bootstrapped then (`InstrumentationSystem.tracer`), so a middleware made before
    /// `OTel.bootstrap` (or `InstrumentationSystem.bootstrap`) still traces.
    ///
    /// - Parameter tracer: The tracer spans are made with; `nil`, the bootstrapped one.
    public init(tracer: (any Tracer)? = nil) {
        configuredTracer = tracer
    }

    /// The tracer spans are made with now: the one given, or the bootstrapped one.
    public var tracer: any Tracer { configuredTracer ?? InstrumentationSystem.tracer }

    /// Runs the rest of the chain inside a client span, with its context in the headers, and
    /// ends the span with the response's body.
    ///
    /// A response body already whole when the head comes back (replayable and of known length,
    /// as a buffered call's is, in memory) ends the span at once, its length the response's
    /// size: the body is handed back as it is, so a buffered call still takes it without a
    /// copy. Any other body ends the span when it ends: read to its end, failed (the span is
    /// then an error), or stopped; the span records the bytes that really went through in both
    /// directions.
    public func intercept(
        _ request: HTTPRequest,
        body: HTTPBody?,
        context: HTTPMiddlewareContext,
        next: HTTPMiddlewareNext
    ) async throws -> (HTTPResponse.Head, HTTPBody) {
        // With nothing bootstrapped (`NoOpInstrument`, whose tracer is `NoOpTracer`) no span is
        // made, no URL redacted and no header written. Asked first of the instrument: a cast to
        // one struct, where finding the tracer checks a protocol conformance per request.
        guard configuredTracer != nil || !(InstrumentationSystem.instrument is NoOpInstrument) else { return try await next(request, body) }
        let tracer = tracer
        guard !(tracer is NoOpTracer) else { return try await next(request, body) }
        let (span, outgoing) = start(request, context: context, tracer: tracer)
        let sent = ByteCount()
        let observedBody = body?.observingPieces(readingBegins: sent.reset, piece: { sent.add($0.count) }, end: { _ in })
        let (response, responseBody): (HTTPResponse.Head, HTTPBody)
        do {
            (response, responseBody) = try await ServiceContext.withValue(span.context) {
                try await next(outgoing, observedBody)
            }
        } catch let failure as HTTPError {
            // `next` throws only HTTPError, and `withValue` rethrows what `next` throws.
            Self.record(failure, on: span)
            span.end()
            throw failure
        }
        Self.record(response, on: span)
        if responseBody.iterationBehavior == .multiple, case .known(let size) = responseBody.length {
            if body != nil { span.attributes["http.request.body.size"] = sent.value }
            span.attributes["http.response.body.size"] = Int(size)
            span.end()
            return (response, responseBody)
        }
        let received = ByteCount()
        let watched = responseBody.observingPieces(piece: { received.add($0.count) }) { end in
            if body != nil { span.attributes["http.request.body.size"] = sent.value }
            span.attributes["http.response.body.size"] = received.value
            switch end {
            case .finished: break
            case .failed(let error):
                Self.record(bodyFailure: error, on: span)
            case .stopped:
                span.attributes["error.type"] = "stopped"
            }
            span.end()
        }
        return (response, watched)
    }

    /// Starts the client span of a request, with the conventions' request attributes, and the
    /// request as it goes on: the span's context in its headers, its ids in its metadata.
    private func start(_ request: HTTPRequest, context: HTTPMiddlewareContext, tracer: any Tracer) -> (any Span, HTTPRequest) {
        let method = request.method.rawValue
        let isStandard = Self.standardMethods.contains(method)
        let span = tracer.startSpan(isStandard ? method : "HTTP", context: ServiceContext.current ?? .topLevel, ofKind: .client)
        span.attributes["http.request.method"] = isStandard ? method : "_OTHER"
        if !isStandard { span.attributes["http.request.method_original"] = method }
        span.attributes["url.full"] = context.redactor.redactedURL(request.url)
        if let host = request.url.host { span.attributes["server.address"] = host }
        if let port = request.url.port ?? Self.defaultPort(of: request.url) { span.attributes["server.port"] = port }
        if let body = request.body { span.attributes["http.request.body.size"] = body.count }
        let resendCount = context.attemptsStarted
        if resendCount > 0 { span.attributes["http.request.resend_count"] = resendCount }

        var outgoing = request
        tracer.inject(span.context, into: &outgoing.headers, using: HTTPHeadersInjector())
        if let traceparent = outgoing.headers["traceparent"], let sent = TraceContext(traceparent: traceparent) {
            outgoing.metadata[TraceContextMiddleware.traceIDKey] = sent.traceID
            outgoing.metadata[TraceContextMiddleware.spanIDKey] = sent.spanID
        }
        return (span, outgoing)
    }

    /// The response's status on the span; a 5xx makes it an error.
    private static func record(_ response: HTTPResponse.Head, on span: any Span) {
        span.attributes["http.response.status_code"] = response.statusCode
        if response.status.kind == .serverError {
            span.attributes["error.type"] = String(response.statusCode)
            span.setStatus(SpanStatus(code: .error))
        }
    }

    /// A failure on the span: its type, and the error status.
    private static func record(_ failure: HTTPError, on span: any Span) {
        span.attributes["error.type"] = failure.typeName
        span.setStatus(SpanStatus(code: .error, message: failure.typeName))
    }

    /// A failure while the response body was read: an ``HTTPError`` as the client reports it,
    /// any other error by its type's name, as the conventions' `error.type` asks.
    private static func record(bodyFailure error: any Error, on span: any Span) {
        if let failure = HTTPError(error) { return record(failure, on: span) }
        let typeName = String(reflecting: type(of: error))
        span.attributes["error.type"] = typeName
        span.setStatus(SpanStatus(code: .error, message: typeName))
    }

    private static func defaultPort(of url: URL) -> Int? {
        switch url.scheme?.lowercased() {
        case "https": 443
        case "http": 80
        default: nil
        }
    }
}

/// Writes a tracer's propagation headers (`traceparent`, `tracestate`, …) into HTTPCore headers,
/// replacing any of the same name.
public struct HTTPHeadersInjector: Injector {
    /// Creates an injector.
    public init() {}

    /// Sets `key` to `value` in `headers`.
    public func inject(_ value: String, forKey key: String, into headers: inout HTTPHeaders) {
        headers.set(name: key, value: value)
    }
}

/// Bytes counted as they pass, from any thread.
private final class ByteCount: @unchecked Sendable {   // safe: `count` is only touched under `lock`
    private let lock = NSLock()
    private var count = 0

    func add(_ bytes: Int) {
        lock.lock()
        count += bytes
        lock.unlock()
    }

    /// Starts the count again, for a body read anew.
    @Sendable func reset() {
        lock.lock()
        count = 0
        lock.unlock()
    }

    var value: Int {
        lock.lock()
        defer { lock.unlock() }
        return count
    }
}
