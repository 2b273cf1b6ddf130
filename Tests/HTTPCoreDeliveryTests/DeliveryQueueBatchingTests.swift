import HTTPCoreDelivery
import XCTest

/// A batch leaves when it is full by count or bytes, when its oldest item has waited long
/// enough, or at a flush.
final class DeliveryQueueBatchingTests: XCTestCase {
    func testFullBatchesLeaveAtOnceAndTheRestAtTheFlush() async throws {
        let harness = QueueHarness {
            $0.batching = .init(maximumCount: 100, maximumDelay: 3600)
            $0.maximumConcurrentSends = 1
        }
        harness.enqueue(0..<250)
        let sent = try await harness.sender.waitForSends(2)
        XCTAssertEqual(sent, [Array(0..<100), Array(100..<200)])

        await harness.queue.flush()
        XCTAssertEqual(harness.sender.record.state.sent, [Array(0..<100), Array(100..<200), Array(200..<250)])
        XCTAssertEqual(harness.queue.statistics.delivered, 250)
        XCTAssertTrue(harness.queue.statistics.isBalanced)
    }

    func testAPartialBatchLeavesOnceItsOldestItemHasWaitedTheMaximumDelay() async throws {
        // A second, so a preempted test thread still enqueues all three before the timer fires.
        let harness = QueueHarness { $0.batching = .init(maximumCount: 100, maximumDelay: 1) }
        harness.enqueue(0..<3)
        let sent = try await harness.sender.waitForSends(1)
        XCTAssertEqual(sent, [[0, 1, 2]], "no flush: the timer sent it")
    }

    func testBatchesStayWithinTheByteLimit() async throws {
        let harness = QueueHarness {
            $0.batching = .init(maximumCount: 100, maximumBytes: 35, maximumDelay: 3600)
            $0.maximumConcurrentSends = 1
        }
        harness.enqueue(0..<7, byteCost: 10)
        await harness.queue.flush()
        XCTAssertEqual(harness.sender.record.state.sent, [[0, 1, 2], [3, 4, 5], [6]])
    }

    func testBuildingAheadTheNextBatchIsBuiltWhileOneIsSentAndLeavesAsBuilt() async throws {
        let harness = QueueHarness {
            $0.maximumConcurrentSends = 1
            $0.buildsBatchesAhead = true
        }
        harness.sender.record.update { $0.isHolding = true }
        harness.enqueue(0..<1)
        _ = try await harness.sender.waitForSends(1)
        harness.enqueue(1..<2)
        let built = try await harness.sender.waitForBuilds(2)
        XCTAssertEqual(built, [[0], [1]], "1 was built while 0's send was held")
        XCTAssertEqual(harness.sender.record.state.sent, [[0]])
        harness.sender.record.update { $0.isHolding = false }
        await harness.queue.flush()
        XCTAssertEqual(harness.sender.record.state.sent, [[0], [1]])
        XCTAssertEqual(harness.sender.record.state.built, [[0], [1]], "built once")
        XCTAssertEqual(harness.queue.statistics.delivered, 2)
        XCTAssertTrue(harness.queue.statistics.isBalanced)
    }

    func testOneItemPerBatchIsSentAsSoonAsItIsAccepted() async throws {
        let harness = QueueHarness()
        harness.enqueue(0..<1)
        let sent = try await harness.sender.waitForSends(1)
        XCTAssertEqual(sent, [[0]])
    }
}
