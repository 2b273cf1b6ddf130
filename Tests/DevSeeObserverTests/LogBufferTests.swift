import Foundation
import HTTPCore
import XCTest

@testable import DevSeeObserver

final class LogBufferTests: XCTestCase {
    private func item(_ sequence: UInt64, cost: Int = 10) -> LogBuffer.Item {
        let entry = LogEntry(
            method: "GET", url: "https://a.example/\(sequence)", responseURL: nil, statusCode: 200, startedAt: nil,
            endedAt: Date(), durationMilliseconds: nil, requestHeaders: [:], responseHeaders: [:], requestBody: nil,
            responseBody: nil, error: nil, requestID: "\(sequence)", correlation: nil
        )
        return LogBuffer.Item(sequence: sequence, log: .entry(entry), byteCost: cost)
    }

    func testCountLimitDropsTheOldest() {
        var buffer = LogBuffer(countLimit: 3, byteLimit: 1_000)
        let dropped = (1...5).map { buffer.append(item($0)).count }
        XCTAssertEqual(dropped, [0, 0, 0, 1, 1])
        XCTAssertEqual(buffer.count, 3)
        XCTAssertEqual(buffer.firstSequence, 3)
        XCTAssertEqual(buffer.byteCount, 30)
    }

    func testByteLimitDropsTheOldestUntilTheNewLogFits() {
        var buffer = LogBuffer(countLimit: 100, byteLimit: 100)
        XCTAssertEqual(buffer.append(item(1, cost: 40)).count, 0)
        XCTAssertEqual(buffer.append(item(2, cost: 40)).count, 0)
        XCTAssertEqual(buffer.append(item(3, cost: 50)).count, 1, "the oldest goes: 40 + 50 fits")
        XCTAssertEqual(buffer.byteCount, 90)
        XCTAssertEqual(buffer.append(item(4, cost: 70)).count, 2, "both older logs go to make room for 70 bytes")
        XCTAssertEqual(buffer.byteCount, 70)
        XCTAssertEqual(buffer.append(item(5, cost: 101)).count, 1, "a log larger than the limit drops itself")
        XCTAssertEqual(buffer.firstSequence, 4)
        XCTAssertEqual(buffer.byteCount, 70)
    }

    func testPushFrontAndRemoveThrough() {
        var buffer = LogBuffer(countLimit: 10, byteLimit: 1_000)
        (1...4).forEach { _ = buffer.append(item($0)) }
        let first = buffer.popFirst()
        XCTAssertEqual(first?.sequence, 1)
        XCTAssertEqual(buffer.byteCount, 30)
        XCTAssertEqual(buffer.pushFront(first!), 0)
        XCTAssertEqual(buffer.firstSequence, 1)
        XCTAssertEqual(buffer.byteCount, 40)
        XCTAssertEqual(buffer.removeAll(through: 2), 2)
        XCTAssertEqual(buffer.firstSequence, 3)
        XCTAssertEqual(buffer.count, 2)
    }

    func testPuttingABatchBackBeyondTheLimitsDropsTheOldest() {
        var buffer = LogBuffer(countLimit: 3, byteLimit: 1_000)
        (1...3).forEach { _ = buffer.append(item($0)) }
        let batch = [buffer.popFirst()!, buffer.popFirst()!]
        _ = buffer.append(item(4))
        // Put back last item first, as a failed send does: 2 fits, 1 is the oldest and goes.
        XCTAssertEqual(buffer.pushFront(batch[1]), 0)
        XCTAssertEqual(buffer.pushFront(batch[0]), 1)
        XCTAssertEqual(buffer.count, 3)
        XCTAssertEqual(buffer.byteCount, 30)
        XCTAssertEqual((0..<3).compactMap { _ in buffer.popFirst()?.sequence }, [2, 3, 4])

        var bytes = LogBuffer(countLimit: 10, byteLimit: 100)
        _ = bytes.append(item(1, cost: 40))
        let taken = bytes.popFirst()!
        _ = bytes.append(item(2, cost: 40))
        _ = bytes.append(item(3, cost: 40))
        XCTAssertEqual(bytes.pushFront(taken), 1, "120 bytes do not fit in 100: the oldest, the item put back, goes")
        XCTAssertEqual(bytes.firstSequence, 2)
        XCTAssertEqual(bytes.byteCount, 80)
    }

    func testABatchPutBackKeepsOnlyItsLatestItemsWhenTheyDoNotAllFit() {
        var buffer = LogBuffer(countLimit: 10, byteLimit: 100)
        _ = buffer.append(item(1, cost: 10))
        _ = buffer.append(item(2, cost: 60))
        _ = buffer.append(item(3, cost: 30))
        let batch = [buffer.popFirst()!, buffer.popFirst()!, buffer.popFirst()!]
        _ = buffer.append(item(4, cost: 50))
        // 3 fits beside 4 (80 bytes); 2 does not (140), so 1, older still, goes too, though
        // its 10 bytes would fit: the first item carries the batch built for all three.
        XCTAssertEqual(buffer.putBack(batch), 2)
        XCTAssertEqual(buffer.byteCount, 80)
        XCTAssertEqual((0..<3).compactMap { _ in buffer.popFirst()?.sequence }, [3, 4])

        var roomy = LogBuffer(countLimit: 10, byteLimit: 1_000)
        (1...3).forEach { _ = roomy.append(item($0)) }
        let all = [roomy.popFirst()!, roomy.popFirst()!]
        XCTAssertEqual(roomy.putBack(all), 0)
        XCTAssertEqual((0..<3).compactMap { _ in roomy.popFirst()?.sequence }, [1, 2, 3])

        var counted = LogBuffer(countLimit: 2, byteLimit: 1_000)
        (1...2).forEach { _ = counted.append(item($0)) }
        let pair = [counted.popFirst()!, counted.popFirst()!]
        _ = counted.append(item(3))
        XCTAssertEqual(counted.putBack(pair), 1, "2 fits beside 3, which fills the buffer; 1, the oldest, evicts itself")
        XCTAssertEqual((0..<3).compactMap { _ in counted.popFirst()?.sequence }, [2, 3])
    }

    func testAnItemPutBackBehindALaterFailureKeepsSequenceOrder() {
        var buffer = LogBuffer(countLimit: 10, byteLimit: 1_000)
        (1...4).forEach { _ = buffer.append(item($0)) }
        let one = buffer.popFirst()!
        let two = buffer.popFirst()!
        XCTAssertEqual(buffer.pushFront(one), 0)
        XCTAssertEqual(buffer.pushFront(two), 0)
        XCTAssertEqual((0..<4).compactMap { _ in buffer.popFirst()?.sequence }, [1, 2, 3, 4])
    }

    func testCompactionKeepsOrderOverManyPops() {
        var buffer = LogBuffer(countLimit: 10_000, byteLimit: 1_000_000)
        (1...1000).forEach { _ = buffer.append(item($0)) }
        for expected in 1...900 { XCTAssertEqual(buffer.popFirst()?.sequence, UInt64(expected)) }
        XCTAssertEqual(buffer.count, 100)
        XCTAssertEqual(buffer.firstSequence, 901)
        XCTAssertEqual(buffer.byteCount, 1_000)
    }
}
