import CoreMetrics
import Foundation

/// The metric handles of a ``MetricsObserver``, made once per set of dimensions and reused,
/// as swift-metrics advises: making a handle asks the factory for one, builds the dimension
/// array and, with a registry-backed factory, looks the metric up under its lock.
///
/// At most `limit` sets of each kind are kept; a set beyond them gets fresh handles per event,
/// which record the same values, so a burst of unexpected hosts cannot grow memory without
/// bound. Copies of the observer share one cache.
final class MetricsHandleCache: @unchecked Sendable {   // safe: the dictionaries are touched only under `lock`
    /// The dimensions of a completed exchange.
    struct Outcome: Hashable {
        let method: String
        let statusClass: String
        let server: String
        let errorType: String

        /// The dimensions of its active-request meter.
        var destination: Destination { Destination(method: method, server: server) }
    }

    /// The dimensions of the active-request meter.
    struct Destination: Hashable {
        let method: String
        let server: String
    }

    /// The handles that record one completed exchange.
    struct OutcomeHandles {
        /// The active-request meter of the exchange's destination.
        let active: Meter
        let recorders: Recorders
    }

    /// The timer, counter and body size recorders of one outcome.
    struct Recorders {
        let duration: CoreMetrics.Timer
        let requests: Counter
        let requestBodySize: Recorder
        let responseBodySize: Recorder
    }

    /// An outcome's recorders as cached, with its destination's meter when that was cached
    /// by then: a terminal event then finds both with one look-up.
    private struct CachedOutcome {
        let recorders: Recorders
        let active: Meter?
    }

    let limit: Int
    private let lock = NSLock()
    private var outcomes: [Outcome: CachedOutcome] = [:]
    private var meters: [Destination: Meter] = [:]

    /// A cache of at most `limit` (at least 0) dimension sets per kind.
    init(limit: Int) {
        self.limit = max(0, limit)
    }

    /// The number of dimension sets cached, outcomes and meters together.
    var count: Int {
        lock.lock()
        defer { lock.unlock() }
        return outcomes.count + meters.count
    }

    /// The active-request meter of `destination`.
    func meter(for destination: Destination) -> Meter {
        lock.lock()
        let found = meters[destination]
        lock.unlock()
        if let found { return found }
        let made = Meter(
            label: MetricsObserver.activeRequestsLabel,
            dimensions: [("http.request.method", destination.method), ("server.address", destination.server)]
        )
        lock.lock()
        defer { lock.unlock() }
        if let raced = meters[destination] { return raced }
        if meters.count < limit { meters[destination] = made }
        return made
    }

    /// The handles of `outcome`: its destination's active-request meter, and its timer,
    /// counter and body size recorders. Once both are cached, one look-up under the lock.
    func handles(for outcome: Outcome) -> OutcomeHandles {
        lock.lock()
        let cached = outcomes[outcome]
        let active = cached?.active ?? meters[outcome.destination]
        lock.unlock()
        if let cached, let active { return OutcomeHandles(active: active, recorders: cached.recorders) }
        // What is missing is made outside the lock, the meter first.
        let meter = active ?? meter(for: outcome.destination)
        return OutcomeHandles(active: meter, recorders: cached?.recorders ?? recorders(for: outcome))
    }

    /// Makes the recorders of `outcome`, kept while fewer than ``limit`` outcomes are.
    private func recorders(for outcome: Outcome) -> Recorders {
        let dimensions = [
            ("http.request.method", outcome.method),
            ("http.response.status_class", outcome.statusClass),
            ("server.address", outcome.server),
            ("error.type", outcome.errorType),
        ]
        let made = Recorders(
            duration: CoreMetrics.Timer(label: MetricsObserver.durationLabel, dimensions: dimensions, preferredDisplayUnit: .seconds),
            requests: Counter(label: MetricsObserver.requestsLabel, dimensions: dimensions),
            requestBodySize: Recorder(label: MetricsObserver.requestBodySizeLabel, dimensions: dimensions),
            responseBodySize: Recorder(label: MetricsObserver.responseBodySizeLabel, dimensions: dimensions)
        )
        lock.lock()
        defer { lock.unlock() }
        if let raced = outcomes[outcome] { return raced.recorders }
        if outcomes.count < limit { outcomes[outcome] = CachedOutcome(recorders: made, active: meters[outcome.destination]) }
        return made
    }
}
