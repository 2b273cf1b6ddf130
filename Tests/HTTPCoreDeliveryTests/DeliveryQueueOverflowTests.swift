import Dispatch
import HTTPCore
import HTTPCoreConcurrency
import XCTest

@testable import HTTPCoreDelivery

/// What a full buffer costs the code that enqueues: the oldest item is dropped, and freed only
/// once the queue let go of its lock.
final class DeliveryQueueOverflowTests: XCTestCase {
    func testAnItemDroppedFromAFullBufferIsFreedAfterTheQueueLetGoOfItsLock() {
        var configuration = DeliveryConfiguration()
        configuration.bufferLimit = 1
        // Items wait in the buffer for a batch to fill: the second one drops the first.
        configuration.batching = .init(maximumCount: 10, maximumDelay: 3600)
        configuration.diagnostics = { _ in }
        let queue = DeliveryQueue(sender: CountingSender(), configuration: configuration)
        let droppedAtRelease = Locked<Int?>(nil)
        let enqueued = DispatchSemaphore(value: 0)
        // On another thread: freed under the lock, the probe's deinit would wait for that lock
        // forever, and the wait below would time out.
        DispatchQueue.global().async {
            queue.enqueue(ReleaseProbe { droppedAtRelease.withLock { $0 = queue.statistics.dropped } }, byteCost: 1)
            queue.enqueue(ReleaseProbe {}, byteCost: 1)
            enqueued.signal()
        }
        guard enqueued.wait(timeout: .now() + 60) == .success else {
            // The queue's lock stays taken: anything more would wait for it too.
            return XCTFail("the dropped item was freed under the queue's lock")
        }
        XCTAssertEqual(droppedAtRelease.withLock { $0 }, 1)

        let shutDown = DispatchSemaphore(value: 0)
        Task {
            await queue.shutdown()
            shutDown.signal()
        }
        XCTAssertEqual(shutDown.wait(timeout: .now() + 60), .success)
        XCTAssertEqual(queue.statistics.delivered, 1)
    }

    func testWhileTheDestinationIsDownAFullBufferDropsItemsWithoutBuildingOrSendingThem() async {
        let harness = QueueHarness(script: [.unreachable(reason: "refused")]) { configuration in
            configuration.bufferLimit = 10
            configuration.maximumConcurrentSends = 1
            configuration.buildsBatchesAhead = true
            // No probe within the test: what happens between probes is the subject.
            configuration.backoff = Backoff(initial: 3600, maximum: 3600, jitter: .none)
        }
        harness.enqueue(0..<1)
        // Returns once the send found the outage and no probe is under way.
        await harness.queue.flush()
        harness.enqueue(1..<101)

        let record = harness.sender.record.update { $0 }
        XCTAssertEqual(record.built, [[0]], "only the send that found the outage built its batch")
        XCTAssertEqual(record.sent, [[0]])
        let statistics = harness.queue.statistics
        XCTAssertEqual([statistics.dropped, statistics.pending, statistics.probes], [91, 10, 0])
        await harness.queue.shutdown()
    }
}

/// An item that calls `onRelease` when it is freed.
private final class ReleaseProbe: Sendable {
    let onRelease: @Sendable () -> Void

    init(onRelease: @escaping @Sendable () -> Void) {
        self.onRelease = onRelease
    }

    deinit { onRelease() }
}

/// A destination that takes every batch.
private struct CountingSender: DeliverySender {
    func makeBatch(_ items: [ReleaseProbe]) -> Int { items.count }
    func send(_ batch: Int) async -> DeliveryOutcome { .delivered }
}
