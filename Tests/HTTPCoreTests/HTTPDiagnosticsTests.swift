import Foundation
import HTTPCore
import HTTPCoreConcurrency
import HTTPCoreTesting
import XCTest

/// The one process-wide handler, and a dispatcher that reports to it by default.
final class HTTPDiagnosticsTests: XCTestCase {
    func testADispatcherReportsAnOverflowToTheProcessWideHandlerByDefault() async throws {
        let reports = Locked<[HTTPDiagnostic]>([])
        let previous = HTTPDiagnostics.handler
        HTTPDiagnostics.handler = { report in reports.withLock { $0.append(report) } }
        defer { HTTPDiagnostics.handler = previous }
        let dispatcher = HTTPEventDispatcher(bufferLimit: 4)
        let urls = (0..<5).map { URL(string: "https://a.example/n/\($0)")! }
        // The 16 events of the last four exchanges into a buffer of 4: 12 dropped, 3 of them ends.
        try await GatedObserver.sendBurst(urls, whileBehind: RecordingObserver(), on: dispatcher)

        XCTAssertEqual(reports.withLock { $0 }.filter { $0.source == "HTTPEventDispatcher" }, [
            HTTPDiagnostic(
                source: "HTTPEventDispatcher", level: .warning,
                message: "GatedObserver is behind: its buffer of 4 events is full, dropping the oldest until it catches up",
                metadata: ["observer": "GatedObserver", "buffer_limit": "4"]
            ),
            HTTPDiagnostic(
                source: "HTTPEventDispatcher", level: .error,
                message: "GatedObserver caught up: it never saw 12 events (3 exchange ends, 0 retried attempts)",
                metadata: ["observer": "GatedObserver", "lost": "12"]
            ),
        ])
    }

    func testADispatcherGivenNoHandlerOnlyCounts() async throws {
        let reports = Locked<[HTTPDiagnostic]>([])
        let previous = HTTPDiagnostics.handler
        HTTPDiagnostics.handler = { report in reports.withLock { $0.append(report) } }
        defer { HTTPDiagnostics.handler = previous }
        let dispatcher = HTTPEventDispatcher(bufferLimit: 4, diagnostics: nil)
        let urls = (0..<5).map { URL(string: "https://a.example/n/\($0)")! }
        let subscription = try await GatedObserver.sendBurst(urls, whileBehind: RecordingObserver(), on: dispatcher)

        XCTAssertEqual(subscription.statistics.dropped, 12)
        XCTAssertEqual(reports.withLock { $0 }.filter { $0.source == "HTTPEventDispatcher" }, [])
    }

    func testAReportReachesTheHandlerSetLast() {
        let reports = Locked<[String]>([])
        let previous = HTTPDiagnostics.handler
        defer { HTTPDiagnostics.handler = previous }
        HTTPDiagnostics.handler = { _ in reports.withLock { $0.append("first") } }
        HTTPDiagnostics.handler = { report in reports.withLock { $0.append(report.description) } }
        HTTPDiagnostics.report(HTTPDiagnostic(source: "Test", level: .notice, message: "hello"))
        XCTAssertEqual(reports.withLock { $0 }, ["Test: hello"])
    }
}
