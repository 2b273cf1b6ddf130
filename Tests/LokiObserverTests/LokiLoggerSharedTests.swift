import Foundation
import LokiObserver
import XCTest
import HTTPCoreTestPeers

/// The static API of the LokiLogger library (`configure`, `info`, `warn`, `flush`, `stop`)
/// works as its users expect, on the push URL they already use.
final class LokiLoggerSharedTests: XCTestCase {
    func testConfigureWithThePushURLThenLogFlushAndStop() async throws {
        let receiver = try LokiReceiver()
        defer { receiver.stop() }
        let endpoint = receiver.url.appendingPathComponent("loki/api/v1/push")
        let logger = LokiLogger.configure(endpoint: endpoint, app: "MyApp", environment: "production", extraLabels: ["version": "1.2.0"])
        XCTAssertTrue(LokiLogger.shared === logger)
        LokiLogger.info("User logged in", metadata: ["userId": "123"])
        LokiLogger.warn("Slow response")
        await LokiLogger.flush()

        let received = try await receiver.received()
        XCTAssertEqual(received.rejections, [])
        let base = ["app": "MyApp", "environment": "production", "version": "1.2.0", "kind": "log"]
        XCTAssertEqual(Set(received.labelSets), [base.merging(["level": "info"]) { $1 }, base.merging(["level": "warning"]) { $1 }])
        XCTAssertEqual(Set(received.lines), [#"msg="User logged in" userId=123"#, #"msg="Slow response""#])

        await LokiLogger.stop()
        LokiLogger.error("after stop")
        XCTAssertEqual(logger.statistics.dropped, 1, "counted, not lost silently")
        XCTAssertEqual(logger.statistics.delivered, 2)
    }
}
