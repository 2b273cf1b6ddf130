import AsyncHTTPClient
import CoreMetrics
import Dispatch
import Foundation
import HTTPCore
import HTTPCoreMetrics
import Logging
import NIOCore
import Tracing

/// The `hand-written-production` variant's GET: bare AHC plus, by hand and inline on the
/// caller's task, the work the `production` variant's middlewares and observers do for a
/// request, so that comparing the two measures the way of doing it, not the amount done.
///
/// Per request, beside ``HandWrittenGET``'s span:
/// - a W3C trace context as `TraceContextMiddleware` makes it: a new trace and span id
///   (`TraceContext.newTrace()`, HTTPCore's generator) sent as `traceparent`, and carried as
///   `trace_id` and `span_id` on the log line;
/// - a retry loop as `RetryMiddleware`'s defaults: up to three attempts within the one 30 s
///   deadline, another after a 408, 429, 502, 503 or 504 or a lost connection, with a backoff
///   before it (never taken here: the server answers 200);
/// - `MetricsObserver`'s five OpenTelemetry instruments under its labels and dimensions: the
///   active requests meter raised and lowered, the duration timer, the request counter, and
///   the request and response body size recorders;
/// - `LoggingObserver`'s line: method, URL, status, duration, resend count when retried, and
///   the trace ids, at info.
///
/// The handles are made per request, as in ``HandWrittenGET``, and the backends are the same:
/// nothing bootstrapped for tracing or metrics, and the no-op log handler.
enum HandWrittenProductionGET {
    /// The statuses `RetryMiddleware` retries by default.
    private static let retryableStatusCodes: Set<UInt> = [408, 429, 502, 503, 504]
    /// `RetryMiddleware`'s default number of attempts.
    private static let maximumAttempts = 3

    /// The GET of `url` through `http`, with the production stack's work written by hand,
    /// logging to `logger`; returns the body's byte count and throws on a failure or a status
    /// other than 200.
    static func make(_ url: URL, with http: AsyncHTTPClient.HTTPClient, logger: Logger) -> @Sendable () async throws -> Int {
        let address = url.absoluteString
        let server = url.host ?? ""
        let timeout = Int64(VariantClient.timeoutSeconds)
        let limit = VariantClient.maximumResponseBytes
        return {
            try await withSpan("GET", ofKind: .client) { span in
                span.attributes["http.request.method"] = "GET"
                span.attributes["url.full"] = address
                let trace = TraceContext.newTrace()
                let traceparent = trace.traceparent
                let active = Meter(
                    label: MetricsObserver.activeRequestsLabel, dimensions: [("http.request.method", "GET"), ("server.address", server)]
                )
                active.increment()
                defer { active.decrement() }
                let start = DispatchTime.now().uptimeNanoseconds
                let deadline = NIODeadline.now() + .seconds(timeout)
                var attempt = 1
                var response: HTTPClientResponse
                while true {
                    var request = HTTPClientRequest(url: address)
                    InstrumentationSystem.instrument.inject(span.context, into: &request.headers, using: NIOHTTPHeadersInjector())
                    request.headers.replaceOrAdd(name: "traceparent", value: traceparent)
                    do {
                        response = try await http.execute(request, deadline: deadline)
                    } catch let error as HTTPClientError where error == .remoteConnectionClosed && attempt < maximumAttempts {
                        try await backOff(before: attempt)
                        attempt += 1
                        continue
                    }
                    guard attempt < maximumAttempts, retryableStatusCodes.contains(response.status.code) else { break }
                    try await backOff(before: attempt)
                    attempt += 1
                }
                let body = try await response.body.collect(upTo: limit)
                let nanoseconds = DispatchTime.now().uptimeNanoseconds - start
                let status = Int(response.status.code)
                span.attributes["http.response.status_code"] = status
                let dimensions = [
                    ("http.request.method", "GET"),
                    ("http.response.status_class", "\(status / 100)xx"),
                    ("server.address", server),
                    ("error.type", status >= 400 ? String(status) : ""),
                ]
                CoreMetrics.Timer(label: MetricsObserver.durationLabel, dimensions: dimensions, preferredDisplayUnit: .seconds)
                    .recordNanoseconds(Int64(nanoseconds))
                Counter(label: MetricsObserver.requestsLabel, dimensions: dimensions).increment()
                Recorder(label: MetricsObserver.requestBodySizeLabel, dimensions: dimensions).record(0)
                Recorder(label: MetricsObserver.responseBodySizeLabel, dimensions: dimensions).record(body.readableBytes)
                let milliseconds = (Double(nanoseconds) / 1e5).rounded() / 10
                var metadata: Logger.Metadata = [
                    "http.request.method": "GET",
                    "url.full": "\(address)",
                    "http.response.status_code": "\(status)",
                    "duration_ms": "\(milliseconds)",
                    "trace_id": "\(trace.traceID)",
                    "span_id": "\(trace.spanID)",
                ]
                if attempt > 1 { metadata["http.request.resend_count"] = "\(attempt - 1)" }
                logger.info("GET \(address) -> \(status) (\(milliseconds) ms)", metadata: metadata)
                guard status == 200 else { throw ServerBenchError("status \(status)") }
                return body.readableBytes
            }
        }
    }

    /// Waits `RetryMiddleware`'s default backoff before retry number `retry` (HTTPCore's
    /// `Backoff`: 0.2 s doubled per retry, at most 10 s, full jitter).
    private static func backOff(before retry: Int) async throws {
        try await Task.sleep(nanoseconds: UInt64(Backoff().delay(beforeRetry: retry) * 1e9))
    }
}
