import CoreMetrics
import Foundation
import HTTPCore

/// An ``HTTPObserver`` that records client metrics through swift-metrics, with low-cardinality
/// dimensions only: method, status class, server address, error type. Never a path, a query
/// or an id.
///
/// - `http.client.request.duration`: a timer (its display unit seconds) of each exchange,
///   retries and waits included.
/// - `http.client.requests`: a counter of completed exchanges.
/// - `http.client.active_requests`: a meter of exchanges in flight (method and server only).
///
/// ```swift
/// MetricsSystem.bootstrap(PrometheusMetricsFactory(registry: registry))
/// HTTPEventDispatcher.shared.subscribe(MetricsObserver())
/// ```
///
/// Dimensions follow OpenTelemetry's HTTP client conventions: `http.request.method` (one of
/// the standard methods, else `_OTHER`), `http.response.status_class` (`2xx` … `5xx`, or
/// `none` without a response), `server.address`, and `error.type` (``HTTPError/typeName``, or
/// the status code for a 4xx or 5xx answer, else empty).
public struct MetricsObserver: HTTPObserver {
    /// The duration timer's label.
    public static let durationLabel = "http.client.request.duration"
    /// The request counter's label.
    public static let requestsLabel = "http.client.requests"
    /// The active-request meter's label.
    public static let activeRequestsLabel = "http.client.active_requests"

    private static let standardMethods: Set<String> = ["GET", "HEAD", "POST", "PUT", "DELETE", "CONNECT", "OPTIONS", "TRACE", "PATCH"]

    /// Creates an observer that records through the bootstrapped `MetricsSystem`.
    public init() {}

    /// Records a created (active +1) or terminal event (active -1, duration, count).
    ///
    /// Reads only the event's unredacted summary (method, host, status, error type, duration),
    /// so recording metrics never redacts a URL, headers or a body.
    public func handle(_ event: HTTPEvent) {
        let method = Self.standardMethods.contains(event.method.rawValue) ? event.method.rawValue : "_OTHER"
        let server = event.host ?? ""
        let active = Meter(label: Self.activeRequestsLabel, dimensions: [("http.request.method", method), ("server.address", server)])
        if event.name == .requestCreated {
            active.increment()
            return
        }
        guard event.name.isTerminal else { return }
        active.decrement()
        let statusCode = event.statusCode
        let errorType = event.errorTypeName ?? statusCode.flatMap { HTTPResponse.Status.Kind(code: $0).isError ? String($0) : nil } ?? ""
        let dimensions = [
            ("http.request.method", method),
            ("http.response.status_class", statusCode.map { HTTPResponse.Status.Kind(code: $0).label } ?? "none"),
            ("server.address", server),
            ("error.type", errorType),
        ]
        if let milliseconds = event.durationMilliseconds {
            Timer(label: Self.durationLabel, dimensions: dimensions, preferredDisplayUnit: .seconds)
                .recordNanoseconds(Int64((milliseconds * 1_000_000).rounded()))
        }
        Counter(label: Self.requestsLabel, dimensions: dimensions).increment()
    }
}
