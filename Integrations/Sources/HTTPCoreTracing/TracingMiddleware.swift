import Foundation
import HTTPCore
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
/// on untouched and costs nothing more than the call.
///
/// Attributes: `http.request.method` (`_OTHER` and `http.request.method_original` for
/// non-standard methods), `url.full` redacted by the redactor (the policy's, by default
/// ``/HTTPCoreRedaction/Redactor/standard``), `server.address`, `server.port`, `http.request.resend_count` on a
/// retry (``/HTTPCore/HTTPMiddlewareContext/attemptsStarted``), `http.request.body.size`,
/// `http.response.status_code`, `http.response.body.size`, and on failure `error.type`
/// (``/HTTPCore/HTTPError/typeName``, or the status code for a 5xx). A 5xx or a failure sets the span's
/// status to error; a 4xx does not, as the conventions say for clients. No header, query value
/// or body ever becomes an attribute.
public struct TracingMiddleware: HTTPMiddleware {
    /// The tracer spans are made with.
    public let tracer: any Tracer
    /// What `url.full` is redacted with.
    public let redactor: Redactor
    /// Whether `tracer` is swift-distributed-tracing's `NoOpTracer` (nothing bootstrapped):
    /// then no span is made, no URL redacted and no header written.
    private let isNoOp: Bool

    private static let standardMethods: Set<String> = ["GET", "HEAD", "POST", "PUT", "DELETE", "CONNECT", "OPTIONS", "TRACE", "PATCH"]

    /// Creates a middleware; by default with the bootstrapped tracer and `.standard` redaction.
    public init(tracer: any Tracer = InstrumentationSystem.tracer, redactor: Redactor = .standard) {
        self.tracer = tracer
        self.redactor = redactor
        isNoOp = tracer is NoOpTracer
    }

    /// `true`: it waits for nothing.
    public var staysWithinDeadline: Bool { true }

    /// Runs the rest of the chain inside a client span, with its context in the headers.
    public func intercept(
        _ request: HTTPRequest,
        context: HTTPMiddlewareContext,
        next: HTTPMiddlewareNext
    ) async throws -> HTTPResponse {
        guard !isNoOp else { return try await next(request) }
        let method = request.method.rawValue
        let isStandard = Self.standardMethods.contains(method)
        let span = tracer.startSpan(isStandard ? method : "HTTP", context: ServiceContext.current ?? .topLevel, ofKind: .client)
        defer { span.end() }
        span.attributes["http.request.method"] = isStandard ? method : "_OTHER"
        if !isStandard { span.attributes["http.request.method_original"] = method }
        span.attributes["url.full"] = redactor.redactedURL(request.url)
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
        do {
            let response = try await ServiceContext.withValue(span.context) {
                try await next(outgoing)
            }
            span.attributes["http.response.status_code"] = response.statusCode
            span.attributes["http.response.body.size"] = response.body.count
            if response.status.kind == .serverError {
                span.attributes["error.type"] = String(response.statusCode)
                span.setStatus(SpanStatus(code: .error))
            }
            return response
        } catch let failure as HTTPError {
            // `next` throws only HTTPError, and `withValue` rethrows what `next` throws.
            span.attributes["error.type"] = failure.typeName
            span.setStatus(SpanStatus(code: .error, message: failure.typeName))
            throw failure
        }
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
