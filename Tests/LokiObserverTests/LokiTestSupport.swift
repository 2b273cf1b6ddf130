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

extension LokiHarness {
    /// The one line a receiver got for the exchange `send` made through a dispatcher that a
    /// `LokiObserver` is subscribed to (it flushes it, or returns once it was), with its
    /// duration and time to the first chunk shown as `<t>`; its labels; and the request's id.
    ///
    /// - Parameter send: Makes the exchange through the dispatcher; returns its request.
    static func onlyLine(
        of send: (HTTPEventDispatcher) async throws -> HTTPRequest
    ) async throws -> (line: String, labels: [[String: String]], requestID: String) {
        let receiver = try LokiReceiver()
        defer { receiver.stop() }
        let harness = LokiHarness(receiver: receiver)
        let dispatcher = HTTPEventDispatcher()
        dispatcher.subscribe(LokiObserver(logger: harness.logger))
        let request = try await send(dispatcher)
        await dispatcher.flush()
        await harness.logger.flush()
        let received = try await receiver.waitForEntries(1)
        XCTAssertEqual(received.rejections, [])
        let line = try XCTUnwrap(received.lines.first)
            .replacingOccurrences(of: #"duration_ms=[0-9.]+"#, with: "duration_ms=<t>", options: .regularExpression)
            .replacingOccurrences(of: #"time_to_first_chunk=[0-9.e-]+"#, with: "time_to_first_chunk=<t>", options: .regularExpression)
        return (line, received.labelSets, request.id.description)
    }
}
