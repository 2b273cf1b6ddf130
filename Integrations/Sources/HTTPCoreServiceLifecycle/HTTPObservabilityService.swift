import DevSeeObserver
import HTTPCore
import HTTPCoreObservation
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
/// List it before the services that send requests. A `ServiceGroup` shuts its services down
/// one at a time in reverse order, each once the one after it has returned: listed first, this
/// service stops last, after the server has finished the requests it was handling, so the
/// logs of their exchanges are delivered too. Listed after the server, it would stop first,
/// while the server still runs, and every log of an exchange that ends after that would be
/// dropped.
///
/// On graceful shutdown (or when its task is cancelled) it flushes the dispatcher, so every
/// observer that queues work of its own (a `QueuedObserver`) has handled every event emitted
/// until then (the others handled each event as it was emitted), then shuts both loggers
/// down at once:
/// each uploads what it holds and stops. What a logger could not deliver (its server down)
/// is counted in its statistics as failed and reported through its diagnostics, not lost
/// silently. Logs given to a logger after that are dropped, counted
/// (`droppedAfterShutdown`) and reported by the logger; and the first exchange that ends
/// after the loggers stopped makes the service itself report, to `diagnostics`, that it was
/// stopped while exchanges still ran, and where it belongs in the group.
public struct HTTPObservabilityService: Service {
    /// The dispatcher flushed first.
    public let dispatcher: HTTPEventDispatcher
    /// The dev-see logger shut down after the dispatcher's flush, if any.
    public let devSeeLogger: DevSeeLogger?
    /// The Loki logger shut down after the dispatcher's flush, if any.
    public let lokiLogger: LokiLogger?
    /// Receives the service's own report: an exchange that ended after it had shut the
    /// loggers down.
    public let diagnostics: @Sendable (HTTPDiagnostic) -> Void

    /// Creates the service for `dispatcher` (by default the shared one) and the loggers its
    /// observers write to; its report goes to `diagnostics`, by default
    /// `HTTPDiagnostics.handler`.
    public init(
        dispatcher: HTTPEventDispatcher = .shared,
        devSeeLogger: DevSeeLogger? = nil,
        lokiLogger: LokiLogger? = nil,
        diagnostics: @escaping @Sendable (HTTPDiagnostic) -> Void = { HTTPDiagnostics.report($0) }
    ) {
        self.dispatcher = dispatcher
        self.devSeeLogger = devSeeLogger
        self.lokiLogger = lokiLogger
        self.diagnostics = diagnostics
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
        let loggers = [devSeeLogger.map { _ in "DevSeeLogger" }, lokiLogger.map { _ in "LokiLogger" }].compactMap { $0 }
        if !loggers.isEmpty {
            LateExchangeWatcher.watch(dispatcher, loggers: loggers, diagnostics: diagnostics)
        }
    }
}
