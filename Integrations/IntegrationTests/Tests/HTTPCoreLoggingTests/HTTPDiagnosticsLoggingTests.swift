import Foundation
import HTTPCore
import HTTPCoreObservation
import HTTPCoreLogging
import HTTPCoreTesting
import Logging
import XCTest

/// HTTPCore's diagnostics as swift-log lines: the level, the message, the source and the
/// numbers as metadata.
final class HTTPDiagnosticsLoggingTests: XCTestCase {
    /// Keeps every log event it is given.
    private struct KeepingLogHandler: LogHandler {
        let kept: KeptEvents
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) { kept.keep(event) }
    }

    /// The events, behind a lock: reports come from the dispatcher's queue.
    private final class KeptEvents: @unchecked Sendable {   // safe: `events` is only touched under `lock`
        private let lock = NSLock()
        private var events: [LogEvent] = []

        func keep(_ event: LogEvent) { lock.withLock { events.append(event) } }

        /// Level, source, message and metadata of each event, in order.
        var lines: [String] {
            lock.withLock {
                events.map { event in
                    let metadata = (event.metadata ?? [:]).sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
                    return "\(event.level) [\(event.source)] \(event.message) \(metadata.joined(separator: " "))"
                }
            }
        }
    }

    func testEachLevelBecomesTheSwiftLogLevelOfTheSameName() {
        let kept = KeptEvents()
        let handler = HTTPDiagnostics.logging(to: Logger(label: "httpcore") { _ in KeepingLogHandler(kept: kept) })
        handler(HTTPDiagnostic(source: "LokiLogger", level: .notice, message: "the destination is reachable again"))
        handler(HTTPDiagnostic(source: "LokiLogger", level: .warning, message: "the destination is unreachable", metadata: ["reason": "refused"]))
        handler(HTTPDiagnostic(
            source: "LokiLogger", level: .error, message: "23 lines arrived after shutdown and were dropped",
            metadata: ["lost": "23", "lost_after_shutdown": "23"]
        ))
        XCTAssertEqual(kept.lines, [
            "notice [LokiLogger] the destination is reachable again ",
            "warning [LokiLogger] the destination is unreachable reason=refused",
            "error [LokiLogger] 23 lines arrived after shutdown and were dropped lost=23 lost_after_shutdown=23",
        ])
    }
}
