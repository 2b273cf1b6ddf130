import Foundation
import HTTPCore
import HTTPCoreObservation
import HTTPCoreConcurrency
import LokiObserver
import XCTest
import HTTPCoreTestPeers

/// Plain log lines reach Loki's push API in the shape, labels and order Loki accepts.
final class LokiLoggerTests: XCTestCase {
    private var receiver: LokiReceiver!

    override func setUpWithError() throws {
        receiver = try LokiReceiver()
    }

    override func tearDown() {
        receiver.stop()
    }

    func testLinesArriveAsLogfmtInStreamsLabelledByAppEnvironmentAndLevel() async throws {
        // Sent by the flush, not by the batching window, however slowly the lines are logged.
        let harness = LokiHarness(receiver: receiver) {
            $0.delivery.batching.maximumDelay = 3600
            $0.environment = "staging"
            $0.extraLabels = ["region": "eu-west-1", "service.tier": "web"]
        }
        harness.logger.info("order placed", metadata: ["order_id": "8412", "total": "12.50 EUR"])
        harness.logger.error("payment declined")
        await harness.logger.flush()

        let received = try await receiver.received()
        XCTAssertEqual(received.pushes, 1, "one batch")
        XCTAssertEqual(received.rejections, [])
        let base = ["app": "checkout", "environment": "staging", "kind": "log", "region": "eu-west-1", "service_tier": "web"]
        XCTAssertEqual(Set(received.labelSets), [base.merging(["level": "info"]) { $1 }, base.merging(["level": "error"]) { $1 }])
        XCTAssertEqual(Set(received.lines), [#"msg="order placed" order_id=8412 total="12.50 EUR""#, #"msg="payment declined""#])
        XCTAssertEqual(harness.logger.statistics.delivered, 2)
        XCTAssertEqual(received.headers.first?["content-type"], "application/json")
    }

    func testJSONLinesAreJSONObjects() async throws {
        let harness = LokiHarness(receiver: receiver) { $0.lineFormat = .json }
        harness.logger.warning("quota \"almost\" used", metadata: ["used": "97%"])
        await harness.logger.flush()
        let lines = try await receiver.received().lines
        let line = try XCTUnwrap(lines.first)
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: String])
        XCTAssertEqual(object, ["msg": "quota \"almost\" used", "used": "97%"])
    }

    func testSecretsInMessagesAndMetadataAreRedactedBeforeTheyLeave() async throws {
        let harness = LokiHarness(receiver: receiver)
        harness.logger.info("login with Bearer abc.def.ghi", metadata: ["password": "hunter2", "user": "ada"])
        await harness.logger.flush()
        let lines = try await receiver.received().lines
        let line = try XCTUnwrap(lines.first)
        XCTAssertFalse(line.contains("hunter2"), line)
        XCTAssertFalse(line.contains("abc.def.ghi"), line)
        XCTAssertTrue(line.contains("password=[REDACTED]"), line)
        XCTAssertTrue(line.contains("user=ada"), line)

        // A secret used as a metadata key leaves as neither key nor value.
        harness.logger.info("cached", metadata: ["sk_live_4eC39HqLyjWDarjtT1zdp7dc": "1"])
        await harness.logger.flush()
        let lines2 = try await receiver.received().lines
        let cached = try XCTUnwrap(lines2.first { $0.contains("cached") })
        XCTAssertFalse(cached.contains("sk_live"), cached)
        XCTAssertTrue(cached.contains("redacted_key=[REDACTED]"), cached)
    }

    func testTenantAndBasicAuthorizationAreSentAndRequired() async throws {
        let authorization = LokiAuthorization.basic(user: "123456", password: "glc_token")
        try await receiver.require(tenant: "team-a", authorization: authorization.headerValue)
        let harness = LokiHarness(receiver: receiver) {
            $0.tenantID = "team-a"
            $0.authorization = authorization
        }
        harness.logger.info("hello")
        await harness.logger.flush()
        let received = try await receiver.received()
        XCTAssertEqual(received.pushes, 1)
        XCTAssertEqual(received.headers.first?["x-scope-orgid"], "team-a")
        XCTAssertEqual(received.headers.first?["authorization"], "Basic MTIzNDU2OmdsY190b2tlbg==")
    }

    func testAMissingTenantIsRefusedCountedAndReportedOnce() async throws {
        try await receiver.require(tenant: "team-a")
        let harness = LokiHarness(receiver: receiver) { $0.delivery.batching = .single }
        harness.logger.info("one")
        harness.logger.info("two")
        await harness.logger.flush()
        let rejections = try await receiver.received().rejections
        XCTAssertEqual(rejections, ["no org id", "no org id"])
        XCTAssertEqual(harness.logger.statistics.rejected, 2)
        XCTAssertEqual(harness.logger.statistics.retried, 0)
        XCTAssertEqual(harness.diagnostics.withLock { $0 }, ["the destination refused a batch with status 401 (no org id); such batches are dropped"])
    }

    func testBearerAuthorizationHeader() {
        XCTAssertEqual(LokiAuthorization.bearer("t0k3n").headerValue, "Bearer t0k3n")
    }

    func testGzipBodiesAreDecodedByTheReceiver() async throws {
        let harness = LokiHarness(receiver: receiver) {
            $0.compressesBodies = true
            $0.delivery.batching.maximumDelay = 3600
        }
        for index in 0..<50 { harness.logger.info("request \(index) done", metadata: ["path": "/v1/orders/\(index)"]) }
        await harness.logger.flush()
        let received = try await receiver.received()
        XCTAssertEqual(received.gzipPushes, 1)
        XCTAssertEqual(received.headers.first?["content-encoding"], "gzip")
        XCTAssertEqual(received.lines.count, 50)
        XCTAssertEqual(received.rejections, [])
    }

    func testAHundredLinesMakeABatchAndTheRestWaitsForTheFlush() async throws {
        let harness = LokiHarness(receiver: receiver) { $0.delivery.batching.maximumDelay = 3600 }
        for index in 0..<250 { harness.logger.debug("line \(index)") }
        let beforeFlush = try await receiver.waitForEntries(200)
        XCTAssertEqual(beforeFlush.pushes, 2, "two full batches left without a flush")
        await harness.logger.flush()
        let received = try await receiver.received()
        XCTAssertEqual(received.pushes, 3)
        XCTAssertEqual(received.streams.values.first?.map { $0[1] }, (0..<250).map { #"msg="line \#($0)""# })
    }

    func testAPartialBatchLeavesAfterTheMaximumDelayWithoutAFlush() async throws {
        let harness = LokiHarness(receiver: receiver) { $0.delivery.batching.maximumDelay = 0.2 }
        harness.logger.info("alone")
        let received = try await receiver.waitForEntries(1)
        XCTAssertEqual(received.lines, [#"msg=alone"#])
        _ = harness
    }

    func testLinesLoggedOutOfOrderArriveSortedAndLaterOnesAreNeverRefused() async throws {
        let harness = LokiHarness(receiver: receiver)
        let now = Date()
        harness.logger.log(.info, "second", date: now)
        harness.logger.log(.info, "first", date: now.addingTimeInterval(-1))
        await harness.logger.flush()
        // Finished before the last pushed line: moved just after it rather than refused.
        harness.logger.log(.info, "late", date: now.addingTimeInterval(-2))
        await harness.logger.flush()
        let received = try await receiver.received()
        XCTAssertEqual(received.rejections, [])
        let values = try XCTUnwrap(received.streams.values.first)
        XCTAssertEqual(values.map { $0[1] }, ["msg=first", "msg=second", "msg=late"])
        let times = values.compactMap { Int64($0[0]) }
        XCTAssertEqual(times[2], times[1] + 1)
        XCTAssertEqual(times[0], Int64((now.timeIntervalSince1970 - 1) * 1e9), accuracy: 1_000)
    }

    func testEntriesOlderThanTheMaximumAgeAreDroppedAndCounted() async throws {
        let harness = LokiHarness(receiver: receiver) {
            $0.delivery.maximumAge = 0.000_001
            $0.delivery.batching.maximumDelay = 3600
        }
        harness.logger.info("stale")
        await harness.logger.flush()
        let pushes = try await receiver.received().pushes
        XCTAssertEqual(pushes, 0)
        XCTAssertEqual(harness.logger.statistics.expired, 1)
        XCTAssertTrue(harness.logger.statistics.isBalanced)
    }

    func testALineAfterShutdownIsDroppedCountedAndReportedAsALostLine() async throws {
        let harness = LokiHarness(receiver: receiver)
        harness.logger.info("before")
        await harness.logger.shutdown()
        harness.logger.info("after")
        await harness.logger.flush()   // returns after the reports made before it

        XCTAssertEqual(harness.reports.withLock { $0 }, [
            HTTPDiagnostic(
                source: "LokiLogger", level: .error, message: "1 line arrived after shutdown and was dropped",
                metadata: ["lost": "1", "lost_after_shutdown": "1"]
            ),
        ])
        let statistics = harness.logger.statistics
        XCTAssertEqual([statistics.delivered, statistics.dropped, statistics.droppedAfterShutdown], [1, 1, 1])
        let lines = try await receiver.received().lines
        XCTAssertEqual(lines, ["msg=before"])
    }

    func testLongLinesAreCutAtACharacterBoundaryAndMarked() async throws {
        let harness = LokiHarness(receiver: receiver)
        let long = String(repeating: "é ", count: 15_000)
        harness.logger.info("big", metadata: ["a": long, "b": long])
        await harness.logger.flush()
        let lines = try await receiver.received().lines
        let line = try XCTUnwrap(lines.first)
        // msg=big a="…" b="…": 7 + 2 × (3 + 2 + 45,000) = 90,017 bytes, cut at 65,536 (the
        // start of an "é"), so 24,481 are left out.
        XCTAssertTrue(line.hasSuffix("é …[truncated, 24481 more bytes]"), String(line.suffix(40)))
    }
}
