import Foundation
import HTTPCoreConcurrency

/// The one place where HTTPCore's diagnostics go unless a component is given a handler of
/// its own: standard error by default, or a swift-log `Logger` through the integrations.
///
/// Set it once, at launch, before the components that report are made:
///
/// ```swift
/// HTTPDiagnostics.handler = { diagnostic in myLog(diagnostic.description) }
/// // With HTTPCoreLogging (Integrations): every report as a log line, at its level.
/// HTTPDiagnostics.handler = HTTPDiagnostics.logging(to: Logger(label: "httpcore"))
/// ```
///
/// Who reports here by default: `QueuedObserver` (an overflow of the observer it runs), the
/// `DeliveryQueue` and the sinks built on it, `ConsoleObserver` and the dev-see and Loki
/// loggers (a full buffer, an outage, a refusal, items given up, expired, or arriving after
/// shutdown), `DevSeeObserver` and
/// `LokiObserver` (logs never made from dropped events), `HTTPObservabilityService`
/// (exchanges that ended after it stopped), and every ``HTTPExchangeTable``, such as
/// `MetricsObserver`'s and `GenAISpanObserver`'s (a table of exchanges in flight full, and
/// room again). Each also has a parameter or a configuration
/// property that replaces it for that one component.
///
/// Reports are rare: each is made once per occurrence (an outage, an overflow, a status that
/// refuses), never once per item, and counted in the component's statistics as well.
public enum HTTPDiagnostics {
    private static let current = Locked<@Sendable (HTTPDiagnostic) -> Void>(writeToStandardError)

    /// Receives every report made by a component that was not given a handler of its own;
    /// ``writeToStandardError`` by default.
    ///
    /// It is called on the reporting component's thread, one report at a time per component
    /// and in order, but concurrently across components: keep it cheap and never wait in it.
    /// It may log through the loggers that report here. A change applies to the reports made
    /// after it.
    public static var handler: @Sendable (HTTPDiagnostic) -> Void {
        get { current.withLock { $0 } }
        set { current.withLock { $0 = newValue } }
    }

    /// Hands `diagnostic` to ``handler``.
    public static func report(_ diagnostic: HTTPDiagnostic) {
        let handler = current.withLock { $0 }
        handler(diagnostic)
    }

    /// The default handler: one line on standard error,
    /// `[HTTPCore] error: LokiLogger: 23 lines arrived after shutdown and were dropped`.
    public static let writeToStandardError: @Sendable (HTTPDiagnostic) -> Void = { diagnostic in
        FileHandle.standardError.write(Data("[HTTPCore] \(diagnostic.level.rawValue): \(diagnostic)\n".utf8))
    }
}
