import XCTest
import HTTPCoreText

/// The one line framing of server-sent events, as the WHATWG standard reads a stream.
final class EventStreamLineTests: XCTestCase {
    /// Every line of `text`, with its break, as a reader of the whole stream splits it.
    private func lines(_ text: String) -> [(line: String, lineBreak: String)] {
        let bytes = Array(text.utf8)
        var lines: [(String, String)] = []
        var index = 0
        while index < bytes.count {
            let (end, next) = bytes.withUnsafeBufferPointer { EventStreamLine.end(in: $0, from: index) } ?? (bytes.count, bytes.count)
            lines.append((String(decoding: bytes[index..<end], as: UTF8.self), String(decoding: bytes[end..<next], as: UTF8.self)))
            index = next
        }
        return lines
    }

    func testLinesEndAtCRLFLFOrCR() {
        let split = lines("data: a\r\nevent: b\nid: c\rtail")
        XCTAssertEqual(split.map(\.line), ["data: a", "event: b", "id: c", "tail"])
        XCTAssertEqual(split.map(\.lineBreak), ["\r\n", "\n", "\r", ""])
    }

    func testACREndingTheBytesReachesTheirEndSoAChunkReaderCanWaitForTheLF() {
        let found = Array("data: a\r".utf8).withUnsafeBufferPointer { EventStreamLine.end(in: $0, from: 0) }
        XCTAssertEqual(found?.end, 7)
        XCTAssertEqual(found?.next, 8)
        XCTAssertNil(Array("data: a".utf8).withUnsafeBufferPointer { EventStreamLine.end(in: $0, from: 0) })
    }

    func testAFieldDropsOneSpaceAfterItsColon() {
        let cases: [(line: String, field: EventStreamLine.Field, value: String)] = [
            ("data: {\"a\":1}", .data, "{\"a\":1}"), ("data:  two", .data, " two"), ("data:x", .data, "x"),
            ("data", .data, ""), ("event: delta", .event, "delta"), ("id: 7", .id, "7"),
            (": keep-alive", .comment, ""), ("retry: 10", .other, "10"), ("Data: a", .other, "a"),
        ]
        for item in cases {
            let bytes = Array(item.line.utf8)
            let (field, value) = bytes.withUnsafeBufferPointer { EventStreamLine.field(of: $0[...]) }
            XCTAssertEqual(field, item.field, item.line)
            XCTAssertEqual(String(decoding: bytes[value], as: UTF8.self), item.value, item.line)
        }
    }
}
