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
    }

    /// The dimensions of the active-request meter.
    struct Destination: Hashable {
        let method: String
        let server: String
    }

    /// The handles that record one completed exchange.
    struct OutcomeHandles {
        let duration: CoreMetrics.Timer
        let requests: Counter
        let requestBodySize: Recorder
        let responseBodySize: Recorder
    }

    let limit: Int
    private let lock = NSLock()
    private var outcomes: [Outcome: OutcomeHandles] = [:]
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

    /// The timer, counter and body size recorders of `outcome`.
    func handles(for outcome: Outcome) -> OutcomeHandles {
        cached(outcome, in: \.outcomes) {
            let dimensions = [
                ("http.request.method", outcome.method),
                ("http.response.status_class", outcome.statusClass),
                ("server.address", outcome.server),
                ("error.type", outcome.errorType),
            ]
            return OutcomeHandles(
                duration: CoreMetrics.Timer(label: MetricsObserver.durationLabel, dimensions: dimensions, preferredDisplayUnit: .seconds),
                requests: Counter(label: MetricsObserver.requestsLabel, dimensions: dimensions),
                requestBodySize: Recorder(label: MetricsObserver.requestBodySizeLabel, dimensions: dimensions),
                responseBodySize: Recorder(label: MetricsObserver.responseBodySizeLabel, dimensions: dimensions)
            )
        }
    }

    /// The active-request meter of `destination`.
    func meter(for destination: Destination) -> Meter {
        cached(destination, in: \.meters) {
            Meter(
                label: MetricsObserver.activeRequestsLabel,
                dimensions: [("http.request.method", destination.method), ("server.address", destination.server)]
            )
        }
    }

    /// The value for `key` in one of the dictionaries, made by `make` outside the lock on a
    /// miss and kept while the dictionary holds fewer than ``limit`` entries.
    private func cached<Key: Hashable, Value>(
        _ key: Key, in dictionary: ReferenceWritableKeyPath<MetricsHandleCache, [Key: Value]>, make: () -> Value
    ) -> Value {
        lock.lock()
        if let found = self[keyPath: dictionary][key] {
            lock.unlock()
            return found
        }
        lock.unlock()
        let made = make()
        lock.lock()
        defer { lock.unlock() }
        if let found = self[keyPath: dictionary][key] { return found }
        if self[keyPath: dictionary].count < limit { self[keyPath: dictionary][key] = made }
        return made
    }
}
