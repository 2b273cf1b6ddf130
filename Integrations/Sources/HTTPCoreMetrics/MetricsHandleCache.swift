import CoreMetrics
import Foundation
import HTTPCore

/// The metric handles of a ``MetricsObserver``, made once per set of dimensions and reused,
/// as swift-metrics advises: making a handle asks the factory for one, builds the dimension
/// array and, with a registry-backed factory, looks the metric up under its lock.
///
/// At most `limit` sets of each kind are kept; a set beyond them gets fresh handles per event,
/// which record the same values, so a burst of unexpected hosts cannot grow memory without
/// bound. Copies of the observer share one cache.
///
/// The active-request meters are looked up under the lock of the observer's table of
/// exchanges in flight (``MetricsObserver/activeExchanges``), as the exchange is kept: one lock
/// per created event rather than one here and one there.
final class MetricsHandleCache: @unchecked Sendable {   // safe: see each dictionary
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

    /// The dimensions that an LLM call's GenAI metrics share (``MetricsObserver/genAIDimensions(of:)``),
    /// and its `error.type`, which the token usage leaves out.
    struct GenAIDimensions: Hashable {
        let shared: [Dimension]
        let errorType: String?
    }

    /// One dimension, hashable.
    struct Dimension: Hashable {
        let name: String
        let value: String
    }

    /// The GenAI metric handles of one ``GenAIDimensions``, each made when a call first needs
    /// it: a call without usage or chunks makes no token or chunk instrument.
    struct GenAIHandles {
        var operationDuration: CoreMetrics.Timer?
        var timeToFirstChunk: CoreMetrics.Timer?
        var timePerOutputChunk: CoreMetrics.Timer?
        var inputTokenUsage: Recorder?
        var outputTokenUsage: Recorder?
    }

    /// The timer, counter and body size recorders of one outcome.
    struct Recorders {
        let duration: CoreMetrics.Timer
        let requests: Counter
        let requestBodySize: Recorder
        let responseBodySize: Recorder
    }

    let limit: Int
    private let lock = NSLock()
    /// Touched only under `lock`.
    private var outcomes: [Outcome: Recorders] = [:]
    /// The outcome whose cached recorders were handed out last, and those recorders: an
    /// exchange mostly ends as the one before did, and comparing with it spares hashing four
    /// strings. Only ever one of ``outcomes``. Touched only under `lock`.
    private var latestOutcome: (outcome: Outcome, recorders: Recorders)?
    /// Read under the lock of the table that keeps the meters (``cachedMeter(for:)``,
    /// ``cache(_:for:)``), or under `lock` (``count``); written under both (``cache(_:for:)``).
    private var meters: [Destination: Meter] = [:]
    /// The destination whose cached meter was looked up last, and that meter, for the same
    /// reason as ``latestOutcome``. Only ever one of ``meters``. Touched only under the lock
    /// of the table that keeps the meters (``cachedMeter(for:)``).
    private var latestMeter: (destination: Destination, meter: Meter)?
    /// Touched only under `lock`.
    private var genAI: [GenAIDimensions: GenAIHandles] = [:]

    /// A cache of at most `limit` (at least 0) dimension sets per kind.
    init(limit: Int) {
        self.limit = max(0, limit)
    }

    /// The number of dimension sets cached, outcomes, meters and GenAI sets together.
    var count: Int {
        lock.lock()
        defer { lock.unlock() }
        return outcomes.count + meters.count + genAI.count
    }

    /// The active-request meter of `destination` made already; `nil` when none is cached.
    /// Called only under the lock of the table that keeps the meters, as its look-up.
    func cachedMeter(for destination: Destination) -> Meter? {
        if let latest = latestMeter, latest.destination == destination { return latest.meter }
        guard let cached = meters[destination] else { return nil }
        latestMeter = (destination, cached)
        return cached
    }

    /// A new active-request meter of `destination`, made outside any lock: the factory is the
    /// application's code.
    func makeMeter(for destination: Destination) -> Meter {
        Meter(
            label: MetricsObserver.activeRequestsLabel,
            dimensions: [("http.request.method", destination.method), ("server.address", destination.server)]
        )
    }

    /// The meter of `destination`: the one cached, else `made`, cached while fewer than
    /// ``limit`` destinations are. Called only under the lock of the table that keeps the
    /// meters, as its store; takes `lock` as well to write, so that ``count`` reads under it.
    func cache(_ made: Meter, for destination: Destination) -> Meter {
        if let raced = meters[destination] { return raced }
        guard meters.count < limit else { return made }
        lock.lock()
        meters[destination] = made
        lock.unlock()
        return made
    }

    /// The timer, counter and body size recorders of `outcome`.
    func recorders(for outcome: Outcome) -> Recorders {
        lock.lock()
        if let latest = latestOutcome, latest.outcome == outcome {
            lock.unlock()
            return latest.recorders
        }
        let cached = outcomes[outcome]
        if let cached { latestOutcome = (outcome, cached) }
        lock.unlock()
        return cached ?? makeRecorders(for: outcome)
    }

    /// Makes the recorders of `outcome`, kept while fewer than ``limit`` outcomes are.
    private func makeRecorders(for outcome: Outcome) -> Recorders {
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
        if let raced = outcomes[outcome] { return raced }
        if outcomes.count < limit { outcomes[outcome] = made }
        return made
    }

    /// The GenAI handle at `handle` of `dimensions`: the one cached, else one `make` makes,
    /// kept when its set is cached already or fewer than ``limit`` GenAI sets are.
    func genAIHandle<Handle>(_ handle: WritableKeyPath<GenAIHandles, Handle?>, of dimensions: GenAIDimensions, make: () -> Handle) -> Handle {
        lock.lock()
        let cached = genAI[dimensions]?[keyPath: handle]
        lock.unlock()
        if let cached { return cached }
        let made = make()
        lock.lock()
        defer { lock.unlock() }
        if let raced = genAI[dimensions]?[keyPath: handle] { return raced }
        if genAI[dimensions] != nil || genAI.count < limit { genAI[dimensions, default: GenAIHandles()][keyPath: handle] = made }
        return made
    }
}
