import Foundation
import HTTPCore
import HTTPCoreObservation
import HTTPCoreConcurrency
import HTTPCoreTesting
import XCTest

/// The one process-wide handler.
final class HTTPDiagnosticsTests: XCTestCase {
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
