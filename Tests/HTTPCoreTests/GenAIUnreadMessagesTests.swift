@testable import HTTPCore
import Foundation
import HTTPCoreConcurrency
import XCTest

/// The store of an LLM stream's unread messages: its own copy of each, in order, within its
/// budget.
final class GenAIUnreadMessagesTests: XCTestCase {
    func testItGivesBackEachMessageInOrderWithItsTypeAndArrival() {
        var unread = GenAIUnreadMessages(budget: 64 << 10)
        XCTAssertTrue(unread.keep(eventType: "message_start", data: Data(#"{"a":1}"#.utf8), arrivedAt: 10))
        XCTAssertTrue(unread.keep(eventType: nil, data: Data(), arrivedAt: 20))
        XCTAssertTrue(unread.keep(eventType: "content_block_delta", data: Data(#"{"b":2}"#.utf8), arrivedAt: 30))
        XCTAssertTrue(unread.keep(eventType: "message_start", data: Data("[DONE]".utf8), arrivedAt: 40))
        var seen: [String] = []
        unread.forEach { type, data, arrivedAt in seen.append("\(type ?? "-") \(String(decoding: data, as: UTF8.self)) \(arrivedAt)") }
        XCTAssertEqual(seen, [#"message_start {"a":1} 10"#, "-  20", #"content_block_delta {"b":2} 30"#, "message_start [DONE] 40"])
        unread.removeAll()
        XCTAssertEqual(unread.count, 0)
        unread.forEach { _, _, _ in XCTFail("nothing kept") }
    }

    func testWhatItKeepsIsACopyThatLetsTheMessagesStorageGo() throws {
        let freed = Locked(false)
        let parserBuffer = UnsafeMutableRawPointer.allocate(byteCount: 1 << 20, alignment: 1)
        parserBuffer.initializeMemory(as: UInt8.self, repeating: UInt8(ascii: "x"), count: 1 << 20)
        var unread = GenAIUnreadMessages(budget: 64 << 10)
        do {
            let buffer = Data(bytesNoCopy: parserBuffer, count: 1 << 20, deallocator: .custom { pointer, _ in
                pointer.deallocate()
                freed.withLock { $0 = true }
            })
            // A message whose data shares the megabyte's storage, as a slice of it.
            let message = buffer[100..<110]
            XCTAssertTrue(unread.keep(eventType: nil, data: message, arrivedAt: 1))
        }
        XCTAssertTrue(freed.withLock { $0 }, "the megabyte is freed once the message is dropped")
        XCTAssertLessThan(unread.retainedByteCount, 1024)
        unread.forEach { _, data, _ in XCTAssertEqual(data, Data(repeating: UInt8(ascii: "x"), count: 10)) }
    }

    func testItRefusesWhatWouldPassItsBudgetAndKeepsTheRest() {
        let budget = 64 << 10
        var unread = GenAIUnreadMessages(budget: budget)
        let message = Data(repeating: UInt8(ascii: "x"), count: 1000)
        var kept = 0
        while unread.keep(eventType: "content_block_delta", data: message, arrivedAt: 0) { kept += 1 }
        XCTAssertEqual(unread.count, kept)
        XCTAssertGreaterThan(kept, 40, "most of the budget holds data")
        XCTAssertLessThanOrEqual(unread.retainedByteCount, budget)
        XCTAssertGreaterThan(unread.retainedByteCount + 2 * message.count, budget - 2 * (4096 + 64), "refused only when it would not fit")
        unread.removeAll()
        XCTAssertTrue(unread.keep(eventType: "content_block_delta", data: message, arrivedAt: 0), "room again once emptied")
    }

    func testItRefusesMoreThanSixteenEventTypesAtOnce() {
        var unread = GenAIUnreadMessages(budget: 64 << 10)
        for index in 0..<16 { XCTAssertTrue(unread.keep(eventType: "type-\(index)", data: Data(), arrivedAt: 0)) }
        XCTAssertFalse(unread.keep(eventType: "type-16", data: Data(), arrivedAt: 0))
        XCTAssertTrue(unread.keep(eventType: "type-3", data: Data(), arrivedAt: 0), "a known type still fits")
    }
}
