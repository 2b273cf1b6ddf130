/// Propagates a W3C Trace Context: every request carries a valid `traceparent` (and keeps its
/// `tracestate`), and its events carry `trace_id` and `span_id` in `HTTPEvent.Request.metadata`.
///
/// Where the trace comes from, first match wins:
/// 1. A valid `traceparent` the request already carries: the caller made the span, so the
///    header is sent as it is.
/// 2. ``TraceContext/current``: the request continues that trace with a new span id, and
///    carries its `tracestate`.
/// 3. Otherwise a new trace starts (sampled unless ``samplesNewTraces`` is `false`).
///
/// In cases 2 and 3 the request's own `traceparent` (invalid, or missing) is replaced and a
/// `tracestate` it carried is dropped: a `tracestate` belongs to the `traceparent` it came
/// with, as the spec requires.
///
/// ```swift
/// let client = URLSessionClient(middlewares: [TraceContextMiddleware(), RetryMiddleware()])
/// ```
///
/// Place it before ``RetryMiddleware``: every attempt of a request then carries the same
/// trace and span. Placed after it, each attempt gets a new span id, in the trace of
/// ``TraceContext/current`` when there is one, else in a new trace of its own.
public struct TraceContextMiddleware: HTTPMiddleware {
    /// The metadata key of the trace id.
    public static let traceIDKey = "trace_id"
    /// The metadata key of the span id that the request was sent with.
    public static let spanIDKey = "span_id"

    /// Whether a trace started here is marked sampled.
    public var samplesNewTraces: Bool

    /// Creates the middleware.
    public init(samplesNewTraces: Bool = true) {
        self.samplesNewTraces = samplesNewTraces
    }

    /// Adds the trace headers and metadata, then sends the request.
    public func intercept(
        _ request: HTTPRequest,
        body: HTTPBody?,
        context: HTTPMiddlewareContext,
        next: HTTPMiddlewareNext
    ) async throws -> (HTTPResponse.Head, HTTPBody) {
        var request = request
        let trace: TraceContext
        if let header = request.headers["traceparent"], let callers = TraceContext(traceparent: header) {
            trace = callers
        } else {
            trace = TraceContext.current?.newSpan() ?? .newTrace(sampled: samplesNewTraces)
            let state = trace.traceState.flatMap { $0.isEmpty ? nil : $0 }
            // Room for the fields added below: the caller's fields, shared with the caller's
            // request, are copied once, and adding the tracestate does not grow them again.
            request.headers.reserveCapacity(request.headers.count + (state == nil ? 1 : 2))
            request.headers.remove(name: "tracestate")
            request.headers.set(name: "traceparent", value: trace.traceparent)
            if let state {
                request.headers.set(name: "tracestate", value: state)
            }
        }
        if request.metadata.isEmpty {
            // The usual request, without metadata: one dictionary made with both keys, in
            // code specialized for its types, where growing an empty one runs the standard
            // library's generic resize (about 1,900 instructions more per request).
            request.metadata = [Self.traceIDKey: trace.traceID, Self.spanIDKey: trace.spanID]
        } else {
            // Room for both keys at once: one copy of the caller's metadata, not two.
            request.metadata.reserveCapacity(request.metadata.count + 2)
            request.metadata[Self.traceIDKey] = trace.traceID
            request.metadata[Self.spanIDKey] = trace.spanID
        }
        return try await next(request, body)
    }
}
