import XCTest

@testable import HTTPCoreHAR

final class RingBufferTests: XCTestCase {
    func testKeepsTheLastElementsOldestFirstAndSaysWhenItDropsOne() {
        var buffer = RingBuffer<Int>(capacity: 3)
        XCTAssertEqual((1...3).map { buffer.append($0) }, [false, false, false])
        XCTAssertEqual((4...7).map { buffer.append($0) }, [true, true, true, true])
        XCTAssertEqual(buffer.elements, [5, 6, 7])
        XCTAssertEqual(buffer.count, 3)
        buffer.removeAll()
        XCTAssertEqual(buffer.elements, [])
        XCTAssertFalse(buffer.append(8))
        XCTAssertEqual(buffer.elements, [8])
    }

    func testACapacityBelowOneKeepsOne() {
        var buffer = RingBuffer<String>(capacity: 0)
        XCTAssertEqual(buffer.capacity, 1)
        XCTAssertFalse(buffer.append("a"))
        XCTAssertTrue(buffer.append("b"))
        XCTAssertEqual(buffer.elements, ["b"])
    }
}
