import HTTPCore
import HTTPCoreDelivery
import XCTest

/// Retries, refusals, outages and age: every item ends in one counter, and each kind of
/// trouble is reported once.
final class DeliveryQueueFailureTests: XCTestCase {
    func testARetryableAnswerIsRetriedWithTheBatchBuiltOnce() async throws {
        let harness = QueueHarness(script: [.retryable(status: 429, retryAfter: 0.01)]) {
            $0.batching = .init(maximumCount: 2, maximumDelay: 3600)
        }
        harness.enqueue(0..<2)
        await harness.queue.flush()
        XCTAssertEqual(harness.sender.record.state.sent, [[0, 1], [0, 1]])
        XCTAssertEqual(harness.sender.record.state.built, [[0, 1]])
        let statistics = harness.queue.statistics
        XCTAssertEqual([statistics.delivered, statistics.retried, statistics.failed], [2, 2, 0])
    }

    func testRetriesAreBoundedThenTheItemsFail() async throws {
        let harness = QueueHarness(script: Array(repeating: .retryable(status: 503, retryAfter: nil), count: 3)) {
            $0.maximumRetries = 2
        }
        harness.enqueue(0..<1)
        await harness.queue.flush()
        XCTAssertEqual(harness.sender.record.state.sent.count, 3, "the first try and two retries")
        let statistics = harness.queue.statistics
        XCTAssertEqual([statistics.failed, statistics.retried, statistics.delivered], [1, 2, 0])
        XCTAssertTrue(statistics.isBalanced)
    }

    func testARefusalIsCountedNeverRetriedAndReportedOncePerStatus() async throws {
        let harness = QueueHarness(script: [
            .rejected(status: 400, reason: "bad"), .rejected(status: 400, reason: "bad"), .rejected(status: 413, reason: "big"),
        ]) { $0.maximumConcurrentSends = 1 }
        harness.enqueue(0..<3)
        await harness.queue.flush()
        XCTAssertEqual(harness.sender.record.state.sent, [[0], [1], [2]])
        XCTAssertEqual(harness.queue.statistics.rejected, 3)
        XCTAssertEqual(harness.diagnostics.withLock { $0 }, [
            .rejected(status: 400, reason: "bad"), .rejected(status: 413, reason: "big"),
        ])
    }

    func testAnOutagePutsTheBatchBackAndTheProbeSendsItFirst() async throws {
        let harness = QueueHarness(script: [.unreachable(reason: "refused")]) {
            $0.batching = .init(maximumCount: 3, maximumDelay: 3600)
            $0.maximumConcurrentSends = 1
        }
        harness.enqueue(0..<6)
        let sent = try await harness.sender.waitForSends(3)
        XCTAssertEqual(sent, [[0, 1, 2], [0, 1, 2], [3, 4, 5]])
        XCTAssertEqual(harness.sender.record.state.built, [[0, 1, 2], [3, 4, 5]], "the batch put back is not rebuilt")
        await harness.queue.flush()
        XCTAssertEqual(harness.diagnostics.withLock { $0 }, [.unreachable(reason: "refused"), .reachableAgain])
        let statistics = harness.queue.statistics
        XCTAssertEqual([statistics.delivered, statistics.retried, statistics.probes], [6, 0, 1], "a probe is not a retry")
    }

    func testAFlushDuringAnOutageReturnsAtOnceKeepingTheItemsAndShutdownGivesThemUp() async throws {
        let harness = QueueHarness(script: Array(repeating: .unreachable(reason: "refused"), count: 100)) {
            $0.backoff = Backoff(initial: 3600, maximum: 3600, jitter: .none)
        }
        harness.enqueue(0..<5)
        await harness.queue.flush()
        var statistics = harness.queue.statistics
        XCTAssertEqual([statistics.pending, statistics.failed], [5, 0], "an outage fails nothing")
        await harness.queue.shutdown()
        statistics = harness.queue.statistics
        XCTAssertEqual([statistics.pending, statistics.failed], [0, 5])
        XCTAssertTrue(statistics.isBalanced)
        let givenUp = harness.diagnostics.withLock { $0 }.compactMap { diagnostic -> Int? in
            guard case .failed(let count, "unreachable during shutdown (refused)") = diagnostic else { return nil }
            return count
        }
        XCTAssertEqual(givenUp.reduce(0, +), 5, "every item given up is reported: \(givenUp)")
    }

    func testAnOutageOfAHundredProbesLosesNothing() async throws {
        let harness = QueueHarness(script: Array(repeating: .unreachable(reason: "refused"), count: 150)) {
            $0.backoff = Backoff(initial: 0.001, maximum: 0.002, jitter: .none)
            $0.maximumRetries = 1
            $0.batching = .init(maximumCount: 2, maximumDelay: 3600)
            $0.maximumConcurrentSends = 1
        }
        harness.enqueue(0..<4)
        // The first send and 149 probes find no answer; the 150th probe is delivered.
        let sent = try await harness.sender.waitForSends(152)
        XCTAssertEqual(sent, Array(repeating: [0, 1], count: 151) + [[2, 3]], "the oldest batch probes, then the rest in order")
        await harness.queue.flush()
        let statistics = harness.queue.statistics
        XCTAssertEqual([statistics.delivered, statistics.failed, statistics.retried, statistics.probes], [4, 0, 0, 150])
        XCTAssertTrue(statistics.isBalanced)
        XCTAssertEqual(harness.sender.record.state.built, [[0, 1], [2, 3]])
        XCTAssertEqual(harness.diagnostics.withLock { $0 }, [.unreachable(reason: "refused"), .reachableAgain])
    }

    func testItemsOlderThanTheMaximumAgeAreDroppedCountedAndReported() async throws {
        let harness = QueueHarness {
            $0.batching = .init(maximumCount: 100, maximumDelay: 3600)
            $0.maximumAge = 1e-9
        }
        harness.enqueue(0..<4)
        await harness.queue.flush()
        XCTAssertEqual(harness.sender.record.state.sent, [])
        XCTAssertEqual(harness.queue.statistics.expired, 4)
        XCTAssertTrue(harness.queue.statistics.isBalanced)
        XCTAssertEqual(harness.diagnostics.withLock { $0 }, [.expired(count: 1)], "reported the first time: each enqueue expires the one before")
    }

    func testItemsThatOutliveTheMaximumAgeWaitingForARetryExpireInsteadOfBeingRetried() async throws {
        let harness = QueueHarness(script: [.retryable(status: 503, retryAfter: 1)]) {
            $0.batching = .init(maximumCount: 2, maximumDelay: 3600)
            $0.maximumAge = 0.5
            $0.backoff = Backoff(initial: 1, maximum: 1, jitter: .none)
        }
        harness.enqueue(0..<2)
        await harness.queue.flush()
        XCTAssertEqual(harness.sender.record.state.sent, [[0, 1]], "tried once, then too old to retry")
        let statistics = harness.queue.statistics
        XCTAssertEqual([statistics.expired, statistics.delivered, statistics.failed], [2, 0, 0])
        XCTAssertTrue(statistics.isBalanced)
        XCTAssertEqual(harness.diagnostics.withLock { $0 }, [.expired(count: 2)])
    }

    func testItemsYoungerThanTheMaximumAgeAreSent() async throws {
        let harness = QueueHarness { $0.maximumAge = 3600 }
        harness.enqueue(0..<4)
        await harness.queue.flush()
        XCTAssertEqual(harness.queue.statistics.delivered, 4)
        XCTAssertEqual(harness.queue.statistics.expired, 0)
    }
}
