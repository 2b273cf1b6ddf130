import DevSeeObserver
import HTTPCore
import LokiObserver
import ServiceLifecycle

/// A swift-service-lifecycle `Service` that keeps HTTPCore's observability running for as long
/// as the service group runs and, when the group shuts down, delivers what it accepted: the
/// dispatcher's events to their observers first, then the dev-see and Loki loggers' logs.
///
/// ```swift
/// let observability = HTTPObservabilityService(devSeeLogger: devSee, lokiLogger: loki)
/// let group = ServiceGroup(
///     services: [observability, server],   // shut down in reverse: the server first
///     gracefulShutdownSignals: [.sigterm, .sigint],
///     logger: logger
/// )
/// try await group.run()
/// ```
///
/// List it before the services that send requests: a `ServiceGroup` shuts its services down
/// in reverse order, so the exchanges they finish while shutting down are delivered too.
///
/// On graceful shutdown (or when its task is cancelled) it flushes the dispatcher, so every
/// event emitted until then reaches its observers, then shuts both loggers down at once:
/// each uploads what it holds and stops. What a logger could not deliver (its server down)
/// is counted in its statistics as dropped, and reported through its diagnostics, not lost
/// silently. Logs accepted after that are counted as dropped too.
public struct HTTPObservabilityService: Service {
    /// The dispatcher flushed first.
    public let dispatcher: HTTPEventDispatcher
    /// The dev-see logger shut down after the dispatcher's flush, if any.
    public let devSeeLogger: DevSeeLogger?
    /// The Loki logger shut down after the dispatcher's flush, if any.
    public let lokiLogger: LokiLogger?

    /// Creates the service for `dispatcher` (by default the shared one) and the loggers its
    /// observers write to.
    public init(dispatcher: HTTPEventDispatcher = .shared, devSeeLogger: DevSeeLogger? = nil, lokiLogger: LokiLogger? = nil) {
        self.dispatcher = dispatcher
        self.devSeeLogger = devSeeLogger
        self.lokiLogger = lokiLogger
    }

    /// Waits for the group's graceful shutdown (or cancellation), then flushes the dispatcher
    /// and shuts the loggers down. It never throws.
    public func run() async {
        // Throws only CancellationError: the group is being torn down, and what was accepted
        // is delivered all the same.
        try? await gracefulShutdown()
        await dispatcher.flush()
        async let devSee: Void? = devSeeLogger?.shutdown()
        async let loki: Void? = lokiLogger?.shutdown()
        _ = await (devSee, loki)
    }
}
