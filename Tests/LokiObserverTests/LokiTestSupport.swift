import Foundation
import HTTPCore
import HTTPCoreObservation
import HTTPCoreDelivery
import HTTPCoreTesting
import LokiObserver
import HTTPCoreConcurrency
import HTTPCoreTestEnd
import HTTPCoreTestPeers
import XCTest

/// A logger pushing to a test receiver with short backoffs, its diagnostics recorded: their
/// messages, and whole.
struct LokiHarness {
    let logger: LokiLogger
    let diagnostics = Locked<[String]>([])
    let reports = Locked<[HTTPDiagnostic]>([])

    init(receiver: LokiReceiver, configure: (inout LokiConfiguration) -> Void = { _ in }) {
        var configuration = LokiConfiguration(url: receiver.url, app: "checkout")
        configuration.delivery.backoff = Backoff(initial: 0.02, maximum: 0.2, jitter: .none)
        // A timeout only bounds a hang (tests of a hanging server set their own): a push on a
        // machine loaded by the thread sanitizer and other work may take seconds.
        configuration.timeout = 60
        configure(&configuration)
        let (diagnostics, reports) = (diagnostics, reports)
        configuration.diagnostics = { report in
            reports.withLock { $0.append(report) }
            diagnostics.withLock { $0.append(report.message) }
        }
        logger = LokiLogger(configuration: configuration)
        TestEndShutdowns.shared.add { [logger] in await logger.shutdown() }
    }

    /// Waits for a diagnostic line containing `text`.
    func waitForDiagnostic(containing text: String) async throws {
        let diagnostics = diagnostics
        try await waitUntil("a diagnostic containing '\(text)' in \(diagnostics.withLock { $0 })") {
            diagnostics.withLock { $0 }.contains { $0.contains(text) }
        }
    }
}
