import XCTest

@testable import HTTPCoreDelivery

/// A batch built for items waiting in the buffer is kept with them only while they wait
/// together and unchanged.
final class DeliveryBufferTests: XCTestCase {
    func testABatchIsKeptOnItsFirstItemWhileItsItemsWaitTogether() {
        var buffer = makeBuffer(1...4)
        XCTAssertTrue(buffer.keep(prepared([2, 3], count: 2, last: 3), forItemsFrom: 2))
        XCTAssertEqual(buffer[1].prepared?.batch as? [Int], [2, 3])
        XCTAssertNil(buffer[0].prepared)
        XCTAssertNil(buffer[2].prepared)
    }

    func testABatchWhoseFirstItemLeftIsNotKept() {
        var buffer = makeBuffer(1...3)
        _ = buffer.popFirst()
        XCTAssertFalse(buffer.keep(prepared([1, 2], count: 2, last: 2), forItemsFrom: 1))
        XCTAssertEqual((0..<buffer.count).map { buffer[$0].prepared == nil }, [true, true])
    }

    func testABatchWithAnItemPutBackAmongItsItemsIsNotKept() {
        var buffer = makeBuffer(1...4)
        let taken = [buffer.popFirst()!, buffer.popFirst()!, buffer.popFirst()!]
        XCTAssertEqual(buffer.putBack([taken[0]]), 0)
        XCTAssertEqual(buffer.putBack([taken[2]]), 0)
        // 1, 3 and 4 wait; a batch built for 1, 2 and 3 no longer matches them, nor one for 1 and 2.
        XCTAssertFalse(buffer.keep(prepared([1, 2, 3], count: 3, last: 3), forItemsFrom: 1))
        XCTAssertFalse(buffer.keep(prepared([1, 2], count: 2, last: 2), forItemsFrom: 1))
        XCTAssertTrue(buffer.keep(prepared([3, 4], count: 2, last: 4), forItemsFrom: 3))
    }

    func testABatchIsNotKeptOverItemsCarryingABatchOfTheirOwn() {
        var buffer = makeBuffer(1...3)
        XCTAssertTrue(buffer.keep(prepared([2, 3], count: 2, last: 3), forItemsFrom: 2))
        XCTAssertFalse(buffer.keep(prepared([1, 2], count: 2, last: 2), forItemsFrom: 1))
        XCTAssertNil(buffer[0].prepared)
    }

    func testABatchForMoreItemsThanWaitIsNotKept() {
        var buffer = makeBuffer(1...2)
        XCTAssertFalse(buffer.keep(prepared([1, 2, 3], count: 3, last: 3), forItemsFrom: 1))
    }

    // MARK: Dropping

    func testAFullBufferHandsTheItemItDropsBackInsteadOfFreeingIt() {
        var buffer = DeliveryBuffer(countLimit: 1, byteLimit: 10_000)
        weak var weakOldest: Payload?
        var evicted = buffer.append(item(1, Payload()))
        weakOldest = buffer.first?.element as? Payload
        XCTAssertEqual(evicted.count, 0)

        evicted = buffer.append(item(2, Payload()))
        XCTAssertEqual(evicted.count, 1)
        XCTAssertEqual(evicted.first?.sequence, 1)
        XCTAssertNotNil(weakOldest, "alive until the caller lets go of what was handed back")
        evicted = DeliveryBuffer.Evicted()
        XCTAssertNil(weakOldest)
    }

    func testALargeItemMakingRoomByBytesHandsBackEveryItemItDrops() {
        var buffer = DeliveryBuffer(countLimit: 10, byteLimit: 100)
        for sequence: UInt64 in 1...3 { XCTAssertEqual(buffer.append(item(sequence, Payload(), byteCost: 30)).count, 0) }
        let evicted = buffer.append(item(4, Payload(), byteCost: 80))
        XCTAssertEqual([evicted.first?.sequence] + evicted.others.map(\.sequence), [1, 2, 3])
        XCTAssertEqual(evicted.count, 3)
        XCTAssertEqual(buffer.byteCount, 80)
    }

    func testAnItemLargerThanTheWholeByteLimitIsHandedBackItself() {
        var buffer = DeliveryBuffer(countLimit: 10, byteLimit: 100)
        let evicted = buffer.append(item(1, Payload(), byteCost: 101))
        XCTAssertEqual(evicted.first?.sequence, 1)
        XCTAssertEqual(evicted.count, 1)
        XCTAssertTrue(buffer.isEmpty)
    }

    // MARK: Helpers

    /// An element whose release a test can watch through a weak reference.
    private final class Payload: Sendable {}

    private func item(_ sequence: UInt64, _ payload: Payload, byteCost: Int = 10) -> DeliveryBuffer.Item {
        DeliveryBuffer.Item(sequence: sequence, element: payload, byteCost: byteCost, enqueuedAt: 0)
    }

    private func makeBuffer(_ sequences: ClosedRange<UInt64>) -> DeliveryBuffer {
        var buffer = DeliveryBuffer(countLimit: 100, byteLimit: 10_000)
        for sequence in sequences {
            XCTAssertEqual(buffer.append(DeliveryBuffer.Item(sequence: sequence, element: Int(sequence), byteCost: 10, enqueuedAt: 0)).count, 0)
        }
        return buffer
    }

    private func prepared(_ batch: [Int], count: Int, last: UInt64) -> DeliveryBuffer.PreparedBatch {
        DeliveryBuffer.PreparedBatch(batch: batch, count: count, lastSequence: last)
    }
}
