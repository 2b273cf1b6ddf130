import CoreMetrics
import Foundation
import HTTPCore
import HTTPCoreObservation
import HTTPCoreGenAI

/// An ``/HTTPCoreObservation/HTTPObserver`` that records client metrics through swift-metrics, with low-cardinality
/// dimensions only: method, status class, server address, error type. Never a path, a query
/// or an id.
///
/// - `http.client.request.duration`: a timer (its display unit seconds) of each exchange,
///   retries and waits included.
/// - `http.client.requests`: a counter of completed exchanges.
/// - `http.client.active_requests`: a meter of exchanges in flight (method and server only),
///   with the dimensions of the request as the caller made it: an exchange leaves the meter
///   it entered even when a middleware sent it to another host.
/// - `http.client.request.body.size` and `http.client.response.body.size`: recorders
///   (histograms in most backends) of the bytes sent and received per exchange; the response's
///   only when there was one. Streamed bodies count what really went through.
///
/// The backend chooses histogram buckets. The conventions advise
/// ``durationBucketBoundaries`` for the duration; swift-prometheus takes them per label:
///
/// ```swift
/// factory.durationHistogramBuckets[MetricsObserver.durationLabel] =
///     MetricsObserver.durationBucketBoundaries.map { .nanoseconds(Int64($0 * 1e9)) }
/// factory.valueHistogramBuckets[MetricsObserver.responseBodySizeLabel] = MetricsObserver.bodySizeBucketBoundaries
/// ```
///
/// ```swift
/// MetricsSystem.bootstrap(PrometheusMetricsFactory(registry: registry))
/// HTTPEventDispatcher.shared.subscribe(MetricsObserver())
/// ```
///
/// An LLM call's terminal event (`event.genAI`) also records the GenAI client
/// metrics, with their bucket boundaries: see ``genAIOperationDurationLabel`` and the
/// extension that declares it. Any other event pays one `nil` check for them.
///
/// Dimensions follow OpenTelemetry's HTTP client conventions: `http.request.method` (one of
/// the standard methods, else `_OTHER`), `http.response.status_class` (`2xx` … `5xx`, or
/// `none` without a response), `server.address`, and `error.type` (``/HTTPCore/HTTPError/typeName``, or
/// the status code for a 4xx or 5xx answer, else empty).
public struct MetricsObserver: HTTPObserver {
    /// The duration timer's label.
    public static let durationLabel = "http.client.request.duration"
    /// The request counter's label.
    public static let requestsLabel = "http.client.requests"
    /// The active-request meter's label.
    public static let activeRequestsLabel = "http.client.active_requests"
    /// The request body size recorder's label.
    public static let requestBodySizeLabel = "http.client.request.body.size"
    /// The response body size recorder's label.
    public static let responseBodySizeLabel = "http.client.response.body.size"

    /// The bucket boundaries, in seconds, that OpenTelemetry's HTTP client conventions advise
    /// for `http.client.request.duration`: 5 ms to 10 s.
    public static let durationBucketBoundaries: [Double] = [0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10]
    /// Bucket boundaries, in bytes, for the body size recorders: powers of four from 64 B to
    /// 16 MiB (the conventions advise none).
    public static let bodySizeBucketBoundaries: [Double] = (0...9).map { 64 * pow(4, Double($0)) }

    /// The default number of dimension sets whose handles are kept.
    public static let defaultMaximumCachedDimensionSets = 1_000
    /// The default number of exchanges in flight that the active-request meter follows.
    public static let defaultMaximumActiveExchanges = 10_000

    /// The handles made so far, shared by copies of this observer.
    let handles: MetricsHandleCache
    /// The active-request meter each exchange in flight was counted on, shared by copies of
    /// this observer. Its lock also guards the reads of the meters `handles` caches.
    let activeExchanges: HTTPExchangeTable<Meter>

    /// Creates an observer that records through the bootstrapped `MetricsSystem`.
    ///
    /// Handles are made once per set of dimensions and reused. Bootstrap the metrics system
    /// before the first event: handles already made keep the factory they were made with.
    ///
    /// - Parameters:
    ///   - maximumCachedDimensionSets: How many sets of dimensions keep their handles
    ///     (each kind of metric counts separately); sets beyond it are recorded with handles
    ///     made per event. 1,000 by default, far above what low-cardinality dimensions reach.
    ///   - maximumActiveExchanges: How many exchanges in flight the active-request meter
    ///     follows: each is remembered from its created event to its terminal one, so that it
    ///     leaves the meter it entered. An exchange created while this many are in flight is
    ///     left off the meter altogether (``untrackedActiveExchangeCount`` counts it), so the
    ///     meter never drifts. 10,000 by default.
    ///   - diagnostics: Where the observer reports that it follows `maximumActiveExchanges`
    ///     already (a warning), and that it has room again (a notice, with how many it left
    ///     off): see ``/HTTPCoreObservation/HTTPExchangeTable``. ``/HTTPCoreObservation/HTTPDiagnostics`` by default.
    public init(
        maximumCachedDimensionSets: Int = MetricsObserver.defaultMaximumCachedDimensionSets,
        maximumActiveExchanges: Int = MetricsObserver.defaultMaximumActiveExchanges,
        diagnostics: @escaping @Sendable (HTTPDiagnostic) -> Void = { HTTPDiagnostics.report($0) }
    ) {
        handles = MetricsHandleCache(limit: maximumCachedDimensionSets)
        activeExchanges = HTTPExchangeTable(limit: maximumActiveExchanges, owner: "MetricsObserver", diagnostics: diagnostics)
    }

    /// How many sets of dimensions have their handles kept (meters, outcomes and GenAI sets
    /// together).
    public var cachedDimensionSetCount: Int { handles.count }

    /// How many exchanges the active-request meter left out because
    /// `maximumActiveExchanges` others were in flight when they were created.
    public var untrackedActiveExchangeCount: Int { activeExchanges.untrackedCount }

    /// Created and terminal events: the only ones that change a metric.
    public var handledEventNames: Set<HTTPEvent.Name>? {
        HTTPEvent.Name.terminal.union([.requestCreated])
    }

    /// Records a created (active +1) or terminal event (active -1 on the meter the created
    /// event counted, duration, count, body sizes, and an LLM call's GenAI metrics).
    ///
    /// Reads only the event's unredacted summary (method, host, status, error type, duration,
    /// byte counts),
    /// so recording metrics never redacts a URL, headers or a body; ignores other events
    /// before reading anything.
    public func handle(_ event: HTTPEvent) {
        let response: HTTPEvent.Response?, errorType: String?, exchange: HTTPEvent.Exchange
        switch event.step {
        case .created:
            let request = event.request
            enterActiveRequests(event.requestID, destination: .init(method: Self.methodDimension(request.method.rawValue), server: request.host ?? ""))
            return
        case .succeeded(let received, let ended): (response, errorType, exchange) = (received, nil, ended)
        case .failed(let error, let received, let ended): (response, errorType, exchange) = (received, error.typeName, ended)
        case .cancelled(let received, let ended): (response, errorType, exchange) = (received, HTTPError.Code.cancelled.rawValue, ended)
        case .started, .received, .message, .retried: return
        }
        activeExchanges.take(for: event.requestID)?.decrement()
        let request = event.request
        let status = response?.status
        let outcome = MetricsHandleCache.Outcome(
            method: Self.methodDimension(request.method.rawValue),
            statusClass: status?.kind.label ?? "none",
            server: request.host ?? "",
            errorType: errorType ?? status.flatMap { $0.kind.isError ? String($0.code) : nil } ?? ""
        )
        let recorded = handles.recorders(for: outcome)
        recorded.duration.recordNanoseconds(Int64((exchange.durationMilliseconds * 1_000_000).rounded()))
        recorded.requests.increment()
        recorded.requestBodySize.record(request.bodyByteCount)
        if let response { recorded.responseBodySize.record(response.bodyByteCount) }
        if let call = event.genAI { record(call, durationMilliseconds: exchange.durationMilliseconds) }
        if let webSocket = exchange.webSocket {
            record(webSocket, server: request.host ?? "", errorType: errorType, durationMilliseconds: exchange.durationMilliseconds)
        }
    }

    /// Counts exchange `id` on the active-request meter of `destination`, and keeps that meter
    /// for its terminal event: one lock when the meter is cached, the table's, which looks it
    /// up as it keeps the exchange; none looked up or made when the table is full.
    private func enterActiveRequests(_ id: HTTPRequest.ID, destination: MetricsHandleCache.Destination) {
        let handles = handles
        activeExchanges.keep(
            for: id,
            lookingUp: { handles.cachedMeter(for: destination) },
            making: { handles.makeMeter(for: destination) },
            storing: { handles.cache($0, for: destination) }
        )?.increment()
    }

    /// The `http.request.method` dimension of a method: itself when standard, else `_OTHER`.
    /// Compared, not hashed: a short string compares faster than it hashes.
    static func methodDimension(_ method: String) -> String {
        switch method {
        case "GET", "HEAD", "POST", "PUT", "DELETE", "CONNECT", "OPTIONS", "TRACE", "PATCH": method
        default: "_OTHER"
        }
    }
}
