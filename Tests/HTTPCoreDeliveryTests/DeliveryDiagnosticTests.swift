import HTTPCore
import HTTPCoreObservation
import HTTPCoreDelivery
import HTTPCoreConcurrency
import XCTest

/// What each report says, in a sink's own words, and how it reaches the one handler.
final class DeliveryDiagnosticTests: XCTestCase {
    func testLateItemsAreNamedInTheSinksWordsWithHowManyWereLost() {
        XCTAssertEqual(
            DeliveryDiagnostic.droppedAfterShutdown(count: 1, total: 1).diagnostic(source: "LokiLogger", items: "line"),
            HTTPDiagnostic(
                source: "LokiLogger", level: .error, message: "1 line arrived after shutdown and was dropped",
                metadata: ["lost": "1", "lost_after_shutdown": "1"]
            )
        )
        XCTAssertEqual(
            DeliveryDiagnostic.droppedAfterShutdown(count: 22, total: 23).diagnostic(source: "DevSeeLogger", items: "log"),
            HTTPDiagnostic(
                source: "DevSeeLogger", level: .error, message: "22 more logs arrived after shutdown and were dropped (23 since shutdown)",
                metadata: ["lost": "22", "lost_after_shutdown": "23"]
            )
        )
    }

    func testLossesAreErrorsOutagesWarningsAndARecoveryANotice() {
        let reports: [DeliveryDiagnostic] = [
            .overflowStarted(countLimit: 4, byteLimit: 4096), .overflowEnded(dropped: 6), .unreachable(reason: "refused"),
            .reachableAgain, .rejected(status: 400, reason: "bad"), .expired(count: 2), .failed(count: 3, reason: "shut down"),
        ]
        let diagnostics = reports.map { $0.diagnostic(source: "DeliveryQueue") }
        XCTAssertEqual(diagnostics.map(\.level), [.warning, .error, .warning, .notice, .error, .error, .error])
        XCTAssertEqual(diagnostics.map { $0.metadata["lost"] }, [nil, "6", nil, nil, nil, "2", "3"])
        XCTAssertEqual(diagnostics[6].description, "DeliveryQueue: 3 items were given up (shut down)")
    }

    func testTheDefaultDescriptionSpeaksOfItems() {
        XCTAssertEqual(DeliveryDiagnostic.overflowEnded(dropped: 1).description, "buffer has room again: 1 item was dropped")
        XCTAssertEqual(
            DeliveryDiagnostic.overflowStarted(countLimit: 2, byteLimit: 2048).description(items: "line"),
            "buffer full (2 lines or 2 KiB): dropping the oldest lines until there is room"
        )
    }

    func testAQueueWithoutAHandlerOfItsOwnReportsToHTTPDiagnosticsAsDeliveryQueue() async {
        let reports = Locked<[HTTPDiagnostic]>([])
        let previous = HTTPDiagnostics.handler
        HTTPDiagnostics.handler = { report in reports.withLock { $0.append(report) } }
        defer { HTTPDiagnostics.handler = previous }
        let queue = DeliveryQueue(sender: ScriptedSender(), configuration: DeliveryConfiguration())
        await queue.shutdown()
        queue.enqueue(1, byteCost: 1)
        await queue.flush()   // returns after the reports made before it
        XCTAssertEqual(reports.withLock { $0 }.filter { $0.source == "DeliveryQueue" }, [
            HTTPDiagnostic(
                source: "DeliveryQueue", level: .error, message: "1 item arrived after shutdown and was dropped",
                metadata: ["lost": "1", "lost_after_shutdown": "1"]
            ),
        ])
    }
}
