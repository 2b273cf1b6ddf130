import HTTPCore
import HTTPCoreDelivery
import XCTest
import HTTPCoreConcurrency

/// Bounded memory, overflow reports, concurrency and shutdown.
final class DeliveryQueueLifecycleTests: XCTestCase {
    func testAFullBufferDropsTheOldestAndReportsTheOverflowOnceWhenItStartsAndOnceWhenItEnds() async throws {
        let harness = QueueHarness {
            $0.bufferLimit = 4
            $0.batching = .init(maximumCount: 100, maximumDelay: 3600)
        }
        harness.enqueue(0..<10)
        XCTAssertEqual(harness.queue.statistics.dropped, 6)
        await harness.queue.flush()
        XCTAssertEqual(harness.sender.record.state.sent, [[6, 7, 8, 9]], "the newest four")
        XCTAssertEqual(harness.diagnostics.withLock { $0 }, [
            .overflowStarted(countLimit: 4, byteLimit: 16 * 1024 * 1024), .overflowEnded(dropped: 6),
        ])
        XCTAssertTrue(harness.queue.statistics.isBalanced)
    }

    func testABatchThatFailsBackIntoAFullBufferIsDroppedAsTheOldest() async throws {
        let harness = QueueHarness(script: [.unreachable(reason: "refused")]) {
            $0.bufferLimit = 2
            $0.maximumConcurrentSends = 1
        }
        harness.sender.record.update { $0.isHolding = true }
        harness.enqueue(0..<1)
        _ = try await harness.sender.waitForSends(1)
        harness.enqueue(1..<3)  // while 0 is being sent: the buffer is full
        harness.sender.record.update { $0.isHolding = false }
        let sent = try await harness.sender.waitForSends(3)
        XCTAssertEqual(sent, [[0], [1], [2]], "0 failed into a full buffer and was dropped as the oldest, not put back beyond the limit")
        await harness.queue.flush()
        let statistics = harness.queue.statistics
        XCTAssertEqual([statistics.dropped, statistics.delivered], [1, 2])
        XCTAssertTrue(statistics.isBalanced)
        let diagnostics = harness.diagnostics.withLock { $0 }
        XCTAssertEqual(Array(diagnostics.prefix(2)), [.overflowStarted(countLimit: 2, byteLimit: 16 * 1024 * 1024), .unreachable(reason: "refused")])
    }

    func testEveryItemIsSentOnceUnderConcurrentEnqueues() async throws {
        let harness = QueueHarness {
            $0.batching = .init(maximumCount: 16, maximumDelay: 0.01)
            $0.maximumConcurrentSends = 3
        }
        await withTaskGroup(of: Void.self) { group in
            for task in 0..<4 {
                group.addTask { harness.enqueue(task * 500..<(task + 1) * 500) }
            }
        }
        await harness.queue.flush()
        let sent = harness.sender.record.state.sent
        XCTAssertEqual(sent.flatMap { $0 }.sorted(), Array(0..<2_000))
        XCTAssertTrue(sent.allSatisfy { $0.count <= 16 })
        XCTAssertEqual(harness.queue.statistics.delivered, 2_000)
        XCTAssertTrue(harness.queue.statistics.isBalanced)
    }

    func testShutdownEndsABackoffAtOnceSendsWhatIsLeftAndDropsLaterItems() async throws {
        let harness = QueueHarness(script: [.retryable(status: 503, retryAfter: 3600)]) {
            $0.backoff = Backoff(initial: 3600, maximum: 3600, jitter: .none)
        }
        harness.enqueue(0..<1)
        _ = try await harness.sender.waitForSends(1)
        // Returning at all proves the hour's wait was cut short. Whether the item was retried
        // once more (shutdown woke the backoff) or given up (shutdown came before it) depends
        // on when shutdown lands; either way it is settled exactly once.
        await harness.queue.shutdown()
        harness.enqueue(1..<2)
        let statistics = harness.queue.statistics
        let sends = harness.sender.record.state.sent.count
        XCTAssertEqual([statistics.accepted, statistics.dropped, statistics.pending], [2, 1, 0])
        XCTAssertEqual(sends == 2 ? [statistics.delivered, statistics.failed] : [statistics.failed, statistics.delivered], [1, 0])
        XCTAssertTrue(statistics.isBalanced)
    }

    func testItemsAfterShutdownAreDroppedCountedAndReportedTheFirstAloneTheOthersTogether() async throws {
        let harness = QueueHarness()
        harness.enqueue(0..<1)
        await harness.queue.shutdown()
        harness.enqueue(1..<2)
        await harness.queue.flush()   // returns after the reports made before it
        XCTAssertEqual(harness.diagnostics.withLock { $0 }, [.droppedAfterShutdown(count: 1, total: 1)])
        harness.enqueue(2..<5)
        await harness.queue.flush()
        // The other three are reported when their one-second window ends or by the flush,
        // whichever comes first: in one report, or two if the window ended among them.
        let late = harness.diagnostics.withLock { $0 }.compactMap { diagnostic -> (count: Int, total: Int)? in
            guard case .droppedAfterShutdown(let count, let total) = diagnostic else { return nil }
            return (count, total)
        }
        XCTAssertEqual(late.map(\.count).reduce(0, +), 4)
        XCTAssertEqual(late.last?.total, 4)
        XCTAssertEqual(harness.diagnostics.withLock { $0 }.count, late.count, "nothing else was reported")
        XCTAssertEqual(harness.sender.record.state.sent, [[0]])
        let statistics = harness.queue.statistics
        XCTAssertEqual([statistics.delivered, statistics.dropped, statistics.droppedAfterShutdown], [1, 4, 4])
        XCTAssertTrue(statistics.isBalanced)
        XCTAssertTrue(statistics.description.contains("dropped 4 (4 after shutdown)"), statistics.description)
    }

    func testShutdownReturnsOnceEverySendItAllowedEnded() async throws {
        let harness = QueueHarness { $0.maximumConcurrentSends = 2 }
        harness.sender.record.update { $0.isHolding = true }
        harness.enqueue(0..<1)
        _ = try await harness.sender.waitForSends(1)
        let shutdown = Task { await harness.queue.shutdown() }
        // Before or while shutdown stops the queue: either way sent, and ended by its return.
        harness.enqueue(1..<2)
        _ = try await harness.sender.waitForSends(2)
        harness.sender.record.update { $0.isHolding = false }
        await shutdown.value
        let statistics = harness.queue.statistics
        XCTAssertEqual([statistics.delivered, statistics.pending], [2, 0])
    }

    func testADiagnosticsHandlerMayLogThroughTheSameQueue() async throws {
        let sender = ScriptedSender(script: [.rejected(status: 400, reason: "bad")])
        let queueBox = Locked<DeliveryQueue<ScriptedSender>?>(nil)
        var configuration = DeliveryConfiguration()
        configuration.diagnostics = { _ in queueBox.withLock { $0 }?.enqueue(99, byteCost: 1) }
        let queue = DeliveryQueue(sender: sender, configuration: configuration)
        queueBox.withLock { $0 = queue }
        queue.enqueue(1, byteCost: 1)
        let sent = try await sender.waitForSends(2)
        await queue.flush()
        XCTAssertEqual(sent, [[1], [99]], "the report's own item was sent, no deadlock")
        XCTAssertEqual([queue.statistics.rejected, queue.statistics.delivered], [1, 1])
        queueBox.withLock { $0 = nil }
    }

    func testRetryNowEndsAnOutageBackoffAtOnce() async throws {
        let harness = QueueHarness(script: [.unreachable(reason: "refused")]) {
            $0.backoff = Backoff(initial: 3600, maximum: 3600, jitter: .none)
            $0.maximumConcurrentSends = 1
        }
        harness.enqueue(0..<2)
        _ = try await harness.sender.waitForSends(1)
        harness.queue.retryNow()
        let sent = try await harness.sender.waitForSends(3)
        XCTAssertEqual(sent, [[0], [0], [1]], "the probe with the item put back went out without an hour's wait")
        await harness.queue.flush()
        XCTAssertEqual(harness.queue.statistics.delivered, 2)
    }
}
