import AsyncHTTPClient
import CoreMetrics
import Dispatch
import Logging
import NIOCore
import Tracing

/// The `hand-written` variant's GET: bare AHC's, plus the instrumentation a service writes by
/// hand when it does not use HTTPCore, inline on the caller's task.
///
/// Per request: one client span (`withSpan`) whose context the bootstrapped instrument injects
/// into the request's headers (`traceparent` with a W3C propagator), a swift-metrics `Timer`
/// recording the duration and a `Counter` incremented, both with method and status dimensions,
/// and one swift-log line at info with method, URL, status and duration metadata. The handles
/// are made per request, as swift-metrics' README writes them; a factory that caches them by
/// label and dimensions (as swift-prometheus does) makes that a look-up.
///
/// It runs on exactly the backends the `production` variant's observers and middlewares use:
/// nothing bootstrapped for tracing (`NoOpTracer`) or metrics (`NOOPMetricsHandler`), and the
/// same `SwiftLogNoOpLogHandler` logger (``VariantClient/logger``), so the comparison is of the
/// two ways of calling them, not of the backends.
enum HandWrittenGET {
    /// The GET of `address` through `http`, instrumented by hand, logging to `logger`; returns
    /// the body's byte count and throws on a failure or a status other than 200.
    static func make(_ address: String, with http: HTTPClient, logger: Logger) -> @Sendable () async throws -> Int {
        let deadline = Int64(VariantClient.timeoutSeconds)
        let limit = VariantClient.maximumResponseBytes
        return {
            try await withSpan("GET", ofKind: .client) { span in
                span.attributes["http.request.method"] = "GET"
                span.attributes["url.full"] = address
                var request = HTTPClientRequest(url: address)
                InstrumentationSystem.instrument.inject(span.context, into: &request.headers, using: NIOHTTPHeadersInjector())
                let start = DispatchTime.now().uptimeNanoseconds
                let response = try await http.execute(request, deadline: .now() + .seconds(deadline))
                let body = try await response.body.collect(upTo: limit)
                let nanoseconds = DispatchTime.now().uptimeNanoseconds - start
                let status = Int(response.status.code)
                span.attributes["http.response.status_code"] = status
                let dimensions = [("http.request.method", "GET"), ("http.response.status_code", String(status))]
                CoreMetrics.Timer(label: "http.client.request.duration", dimensions: dimensions).recordNanoseconds(Int64(nanoseconds))
                Counter(label: "http.client.requests", dimensions: dimensions).increment()
                logger.info(
                    "GET \(address) -> \(status)",
                    metadata: [
                        "http.request.method": "GET",
                        "url.full": "\(address)",
                        "http.response.status_code": "\(status)",
                        "duration_ms": "\(Double(nanoseconds) / 1e6)",
                    ]
                )
                guard status == 200 else { throw ServerBenchError("status \(status)") }
                return body.readableBytes
            }
        }
    }
}
