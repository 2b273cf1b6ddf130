import HTTPCore
import HTTPCoreObservation
import HTTPCoreConcurrency

/// Keeps every ``/HTTPCoreObservation/HTTPDiagnostic`` a component reports, in the order they were
/// made, for assertions in tests: hand ``report(_:)`` to the component as its diagnostics
/// handler.
///
/// ```swift
/// let diagnostics = DiagnosticsRecorder()
/// let observer = MetricsObserver(maximumActiveExchanges: 1, diagnostics: diagnostics.report)
/// // ...
/// XCTAssertEqual(diagnostics.reports.map(\.level), [.warning, .notice])
/// ```
///
/// Thread-safe: components report from their own threads.
public final class DiagnosticsRecorder: Sendable {
    private let kept = Locked<[HTTPDiagnostic]>([])

    /// Creates an empty recorder.
    public init() {}

    /// Keeps a report; pass this method as a component's `diagnostics`.
    ///
    /// - Parameter diagnostic: The report to keep.
    @Sendable public func report(_ diagnostic: HTTPDiagnostic) {
        kept.withLock { $0.append(diagnostic) }
    }

    /// Every report kept so far, in the order they were made.
    public var reports: [HTTPDiagnostic] { kept.withLock { $0 } }
}
