import Foundation
import HTTPCore
import HTTPCoreObservation

/// Watches a dispatcher once ``HTTPObservabilityService`` has shut the loggers down, and
/// reports the first exchange that ends after that: its logs were dropped, so the service
/// stopped before work it should have outlived.
///
/// One report, then it unsubscribes: the loggers count every log they drop after shutdown
/// and report those themselves, a flood of them in a few reports; this report says why.
final class LateExchangeWatcher: HTTPObserver, @unchecked Sendable {   // safe: `subscription` and `isDone` are touched only under `lock`
    private let loggers: [String]
    private let diagnostics: @Sendable (HTTPDiagnostic) -> Void
    private let lock = NSLock()
    private var subscription: HTTPEventSubscription?
    private var isDone = false

    /// Subscribes a watcher to `dispatcher` that reports to `diagnostics` on behalf of the
    /// service that shut `loggers` (their type names) down.
    @discardableResult
    static func watch(
        _ dispatcher: HTTPEventDispatcher, loggers: [String], diagnostics: @escaping @Sendable (HTTPDiagnostic) -> Void
    ) -> LateExchangeWatcher {
        let watcher = LateExchangeWatcher(loggers: loggers, diagnostics: diagnostics)
        let subscription = dispatcher.subscribe(watcher)
        let isDone = watcher.lock.withLock {
            watcher.subscription = subscription
            return watcher.isDone
        }
        // An exchange may have ended between the subscription and the line above.
        if isDone { subscription.cancel() }
        return watcher
    }

    private init(loggers: [String], diagnostics: @escaping @Sendable (HTTPDiagnostic) -> Void) {
        self.loggers = loggers
        self.diagnostics = diagnostics
    }

    /// Exchange ends only.
    var handledEventNames: Set<HTTPEvent.Name>? { HTTPEvent.Name.terminal }

    /// Reports the first exchange end, then unsubscribes.
    func handle(_ event: HTTPEvent) {
        let (isFirst, held) = lock.withLock { () -> (Bool, HTTPEventSubscription?) in
            defer { isDone = true }
            return (!isDone, subscription)
        }
        guard isFirst else { return }
        held?.cancel()
        let exchange = "\(event.request.method.rawValue) \(event.request.host ?? "")".trimmingCharacters(in: .whitespaces)
        let loggers = loggers.joined(separator: " and ")
        diagnostics(HTTPDiagnostic(
            source: "HTTPObservabilityService",
            level: .error,
            message: "an exchange (\(exchange)) ended after the service had shut \(loggers) down: its logs were dropped, "
                + "as are those of later exchanges (\(loggers) count\(self.loggers.count == 1 ? "s" : "") and report them). "
                + "Exchanges still ran when the service stopped: list it before the services that send requests, "
                + "since a ServiceGroup shuts its services down in reverse order",
            metadata: ["exchange": exchange, "loggers": loggers]
        ))
    }
}
