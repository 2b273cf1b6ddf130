@testable import HTTPCore
@testable import HTTPCoreGenAI
import Foundation
import HTTPCoreConcurrency
import XCTest

/// The store of an LLM stream's unread messages: its own copy of each, in order, within its
/// budget of bytes kept. A message costs its data and an entry of 24 bytes (where its data
/// ends, its event type's index, when it arrived: three 8-byte words); a distinct event type
/// costs its `String` (16 bytes) and its UTF-8 bytes, once.
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

    func testAMessageCostsItsDataAndATwentyFourByteEntry() {
        XCTAssertEqual(GenAIUnreadMessages.entryByteCount, 24)
        var unread = GenAIUnreadMessages(budget: 64 << 10)
        XCTAssertEqual(unread.retainedByteCount, 0)
        XCTAssertTrue(unread.keep(eventType: nil, data: Data(count: 100), arrivedAt: 0))
        XCTAssertEqual(unread.retainedByteCount, 100 + 24)
        XCTAssertTrue(unread.keep(eventType: nil, data: Data(), arrivedAt: 0))
        XCTAssertEqual(unread.retainedByteCount, 100 + 24 + 24, "an empty message still takes an entry")
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
        XCTAssertEqual(unread.retainedByteCount, 10 + 24, "its ten bytes and its entry, not the megabyte")
        unread.forEach { _, data, _ in XCTAssertEqual(data, Data(repeating: UInt8(ascii: "x"), count: 10)) }
    }

    func testItKeepsUpToItsBudgetExactlyAndRefusesTheMessageThatWouldPassIt() {
        var unread = GenAIUnreadMessages(budget: 64 << 10)
        let message = Data(repeating: UInt8(ascii: "x"), count: 1000)
        var kept = 0
        while unread.keep(eventType: "content_block_delta", data: message, arrivedAt: 0) { kept += 1 }
        // The type once (16 + 19), then 1,000 + 24 a message: 35 + 63 × 1,024 = 64,547 bytes;
        // a 64th would make 65,571, past 65,536.
        XCTAssertEqual(kept, 63)
        XCTAssertEqual(unread.count, 63)
        XCTAssertEqual(unread.retainedByteCount, 35 + 63 * 1024)
        // 989 bytes are left: a message of 965 bytes and its entry fill them, one of 966 does not.
        XCTAssertFalse(unread.keep(eventType: "content_block_delta", data: Data(count: 966), arrivedAt: 0))
        XCTAssertEqual(unread.retainedByteCount, 35 + 63 * 1024, "a refused message leaves nothing")
        XCTAssertTrue(unread.keep(eventType: "content_block_delta", data: Data(count: 965), arrivedAt: 0))
        XCTAssertEqual(unread.retainedByteCount, 64 << 10, "the budget, reached exactly")
        XCTAssertFalse(unread.keep(eventType: nil, data: Data(), arrivedAt: 0), "not even an entry fits")
        unread.removeAll()
        XCTAssertEqual(unread.retainedByteCount, 35, "emptied, it keeps only the event type")
        XCTAssertTrue(unread.keep(eventType: "content_block_delta", data: message, arrivedAt: 0), "room again once emptied")
    }

    func testANewEventTypeCountsAgainstTheBudgetAndIsKeptOnlyWithItsMessage() {
        var unread = GenAIUnreadMessages(budget: 100)
        XCTAssertTrue(unread.keep(eventType: "ping", data: Data(count: 10), arrivedAt: 0))
        XCTAssertEqual(unread.retainedByteCount, (16 + 4) + (10 + 24))
        // "message_stop" would add 16 + 12: 54 + 28 + 34 = 116, past 100.
        XCTAssertFalse(unread.keep(eventType: "message_stop", data: Data(count: 10), arrivedAt: 0))
        XCTAssertEqual(unread.retainedByteCount, 54, "the refused message's type is not kept")
        XCTAssertTrue(unread.keep(eventType: "ping", data: Data(count: 22), arrivedAt: 0), "54 + 22 + 24 = 100, a known type")
        XCTAssertEqual(unread.retainedByteCount, 100)
        unread.removeAll()
        XCTAssertEqual(unread.retainedByteCount, 20, "the known type stays, and is still counted")
        XCTAssertTrue(unread.keep(eventType: "message_stop", data: Data(count: 10), arrivedAt: 0))
        XCTAssertEqual(unread.retainedByteCount, 20 + 28 + 34)
    }

    func testALongStreamOfVaryingMessagesIsReadExactlyWhereTheNextWouldNotFitAndNeverPassesTheBudget() {
        let budget = 256 << 10
        let types: [String?] = ["content_block_delta", nil, "response.output_text.delta", "ping", "message_start"]
        // 3,200 messages of 0 to 1,498 bytes, in runs of seven of one type.
        let messages = (0..<3200).map { index in
            (type: types[(index / 7) % types.count], data: Data(repeating: UInt8(truncatingIfNeeded: index), count: index * 389 % 1499))
        }
        var unread = GenAIUnreadMessages(budget: budget)
        // What the rule says it keeps, and where it must refuse: a message costs its bytes and
        // 24, a type not seen before 16 and its UTF-8 bytes; known types stay when emptied.
        var expectedBytes = 0
        var typeBytes = 0
        var knownTypes: Set<String> = []
        var expectedRefusals: [Int] = []
        var refusals: [Int] = []
        var mostKept = 0
        var read: [Data] = []
        for (index, message) in messages.enumerated() {
            let newTypeBytes = message.type.map { knownTypes.contains($0) ? 0 : 16 + $0.utf8.count } ?? 0
            let cost = message.data.count + 24 + newTypeBytes
            if expectedBytes + cost > budget {
                expectedRefusals.append(index)
                expectedBytes = typeBytes
            }
            expectedBytes += cost
            typeBytes += newTypeBytes
            if let type = message.type { knownTypes.insert(type) }

            // As the tap does: read what is kept and empty it when the message does not fit.
            if !unread.keep(eventType: message.type, data: message.data, arrivedAt: UInt64(index)) {
                refusals.append(index)
                unread.forEach { _, data, _ in read.append(data) }
                unread.removeAll()
                XCTAssertTrue(unread.keep(eventType: message.type, data: message.data, arrivedAt: UInt64(index)), "fits once emptied")
            }
            guard unread.retainedByteCount == expectedBytes else {
                return XCTFail("after message \(index): \(unread.retainedByteCount) bytes kept, \(expectedBytes) by the rule")
            }
            mostKept = max(mostKept, unread.retainedByteCount)
        }
        unread.forEach { _, data, _ in read.append(data) }
        XCTAssertEqual(refusals, expectedRefusals, "refused exactly where the next message would pass the budget")
        XCTAssertGreaterThanOrEqual(refusals.count, 8, "about 2.5 MB of messages, 256 KiB at a time")
        XCTAssertLessThanOrEqual(mostKept, budget)
        XCTAssertGreaterThan(mostKept, budget - 1498 - 24 - 42, "refused only when even the largest message would not fit")
        XCTAssertEqual(read, messages.map(\.data), "every message read once, in order")
    }

    func testItRefusesMoreThanSixteenEventTypesAtOnce() {
        var unread = GenAIUnreadMessages(budget: 64 << 10)
        for index in 0..<16 { XCTAssertTrue(unread.keep(eventType: "type-\(index)", data: Data(), arrivedAt: 0)) }
        XCTAssertFalse(unread.keep(eventType: "type-16", data: Data(), arrivedAt: 0))
        XCTAssertTrue(unread.keep(eventType: "type-3", data: Data(), arrivedAt: 0), "a known type still fits")
        unread.removeAll()
        XCTAssertEqual(unread.retainedByteCount, 0, "sixteen types are forgotten when emptied")
        XCTAssertTrue(unread.keep(eventType: "type-16", data: Data(), arrivedAt: 0))
    }
}
