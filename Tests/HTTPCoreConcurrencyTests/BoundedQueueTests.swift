import HTTPCoreConcurrency
import XCTest

final class BoundedQueueTests: XCTestCase {
    func testKeepsAppendOrderAndPopsOldestFirst() {
        var queue = BoundedQueue<Int>(capacity: 5)
        XCTAssertEqual((1...3).map { queue.append($0) }, [nil, nil, nil])
        XCTAssertEqual(Array(queue), [1, 2, 3])
        XCTAssertEqual(queue.first, 1)
        XCTAssertEqual(queue.last, 3)
        XCTAssertEqual(queue.popFirst(), 1)
        XCTAssertEqual(queue.popFirst(), 2)
        XCTAssertEqual(queue.count, 1)
        XCTAssertEqual(queue.popFirst(), 3)
        XCTAssertNil(queue.popFirst())
        XCTAssertTrue(queue.isEmpty)
    }

    func testAFullQueueEvictsTheOldestAndReturnsIt() {
        var queue = BoundedQueue<Int>(capacity: 3)
        XCTAssertEqual((1...7).map { queue.append($0) }, [nil, nil, nil, 1, 2, 3, 4])
        XCTAssertTrue(queue.isFull)
        XCTAssertEqual(Array(queue), [5, 6, 7])
        XCTAssertEqual(queue.count, 3)
    }

    func testWrapsAroundTheRingAcrossPopsAndAppends() {
        var queue = BoundedQueue<Int>(capacity: 4)
        var popped: [Int] = []
        var evicted: [Int] = []
        for value in 1...20 {
            if let old = queue.append(value) { evicted.append(old) }
            if value % 3 == 0, let first = queue.popFirst() { popped.append(first) }
        }
        XCTAssertEqual(popped, [1, 3, 6, 9, 12, 15])
        XCTAssertEqual(evicted, [2, 4, 5, 7, 8, 10, 11, 13, 14, 16])
        XCTAssertEqual(Array(queue), [17, 18, 19, 20])
        XCTAssertEqual(queue.indices, 0..<4)
        XCTAssertEqual(queue[0], 17)
        XCTAssertEqual(queue[3], 20)
    }

    func testGrowsPastItsFirstSlotsKeepingOrderWhenTheRingHadWrapped() {
        var queue = BoundedQueue<Int>(capacity: 100)
        (1...4).forEach { queue.append($0) }
        XCTAssertEqual(queue.popFirst(), 1)
        XCTAssertEqual(queue.popFirst(), 2)
        (5...40).forEach { queue.append($0) }
        XCTAssertEqual(Array(queue), Array(3...40))
    }

    func testCapacityZeroKeepsNothingAndEvictsEachAppend() {
        var queue = BoundedQueue<String>(capacity: 0)
        XCTAssertEqual(queue.append("a"), "a")
        XCTAssertEqual(queue.insert("b", at: 0), "b")
        XCTAssertTrue(queue.isEmpty)
        XCTAssertTrue(queue.isFull)
        XCTAssertNil(queue.popFirst())
        XCTAssertEqual(BoundedQueue<String>(capacity: -3).capacity, 0)
    }

    func testCapacityOneKeepsTheNewest() {
        var queue = BoundedQueue<String>(capacity: 1)
        XCTAssertNil(queue.append("a"))
        XCTAssertEqual(queue.append("b"), "a")
        XCTAssertEqual(queue.append("c"), "b")
        XCTAssertEqual(Array(queue), ["c"])
        XCTAssertEqual(queue.popFirst(), "c")
        XCTAssertNil(queue.append("d"))
        XCTAssertEqual(Array(queue), ["d"])
    }

    func testInsertAtEitherEndOrBetween() {
        var queue = BoundedQueue<Int>(capacity: 10)
        [2, 4].forEach { queue.append($0) }
        XCTAssertNil(queue.insert(1, at: 0))
        XCTAssertNil(queue.insert(3, at: 2))
        XCTAssertNil(queue.insert(5, at: 4))
        XCTAssertEqual(Array(queue), [1, 2, 3, 4, 5])
    }

    func testInsertIntoAFullQueueEvictsTheOldestAfterwards() {
        var queue = BoundedQueue<Int>(capacity: 3)
        [10, 20, 30].forEach { queue.append($0) }
        XCTAssertEqual(queue.insert(5, at: 0), 5, "inserted as the oldest, it is the one evicted")
        XCTAssertEqual(Array(queue), [10, 20, 30])
        XCTAssertEqual(queue.insert(25, at: 2), 10)
        XCTAssertEqual(Array(queue), [20, 25, 30])
        XCTAssertEqual(queue.insert(40, at: 3), 20)
        XCTAssertEqual(Array(queue), [25, 30, 40])
    }

    func testInsertAtTheFrontAfterPopsReusesTheFreedSlot() {
        var queue = BoundedQueue<Int>(capacity: 4)
        (1...4).forEach { queue.append($0) }
        let first = queue.popFirst()!
        queue.append(5)
        XCTAssertEqual(queue.insert(first, at: 0), 1, "full again: the put-back oldest goes")
        XCTAssertEqual(queue.popFirst(), 2)
        XCTAssertNil(queue.insert(2, at: 0))
        XCTAssertEqual(Array(queue), [2, 3, 4, 5])
    }

    func testSettingAnElementReplacesItInPlaceAcrossTheWrap() {
        var queue = BoundedQueue<Int>(capacity: 4)
        (1...4).forEach { queue.append($0) }
        _ = queue.popFirst()
        queue.append(5)
        queue[0] = 20
        queue[3] = 50
        XCTAssertEqual(Array(queue), [20, 3, 4, 50])
        XCTAssertEqual(queue.popFirst(), 20)
    }

    func testRemoveAllEmptiesAndTheQueueFillsAgain() {
        var queue = BoundedQueue<Int>(capacity: 2)
        (1...3).forEach { queue.append($0) }
        queue.removeAll()
        XCTAssertTrue(queue.isEmpty)
        XCTAssertEqual(Array(queue), [])
        XCTAssertEqual((4...6).map { queue.append($0) }, [nil, nil, 4])
        XCTAssertEqual(Array(queue), [5, 6])
    }

    func testAPoppedOrEvictedElementIsReleasedAtOnce() {
        final class Box {}
        var queue = BoundedQueue<Box>(capacity: 1)
        weak var popped: Box?
        weak var evicted: Box?
        do {
            let box = Box()
            popped = box
            queue.append(box)
        }
        _ = queue.popFirst()
        XCTAssertNil(popped)
        do {
            let box = Box()
            evicted = box
            queue.append(box)
        }
        _ = queue.append(Box())
        XCTAssertNil(evicted)
        XCTAssertEqual(queue.count, 1)
    }

    func testGrowingMovesEachElementOnceAndRemoveAllReleasesThem() {
        final class Box {}
        var queue = BoundedQueue<Box>(capacity: 100)
        var watched: [() -> Box?] = []
        do {
            for _ in 0..<3 {
                let box = Box()
                watched.append { [weak box] in box }
                queue.append(box)
            }
            _ = queue.popFirst()
            for _ in 0..<30 {
                let box = Box()
                watched.append { [weak box] in box }
                queue.append(box)
            }
        }
        XCTAssertEqual(watched.map { $0() != nil }, [false] + Array(repeating: true, count: 32), "kept once each across growths")
        XCTAssertTrue(queue.elementsEqual(watched.dropFirst().map { $0()! }, by: ===), "in order")
        queue.removeAll()
        XCTAssertEqual(watched.filter { $0() != nil }.count, 0)
    }
}
