@testable import HTTPCore
@testable import HTTPCoreObservation
import Foundation
import XCTest

/// Server-sent events and JSON lines split out of a body as it passes, whatever the chunk
/// boundaries, with memory bounded by the cap.
final class StreamMessageParserTests: XCTestCase {
    private struct Seen: Equatable {
        var eventType: String?
        var eventID: String?
        var data: String
        var byteCount: Int
        var isTruncated = false
    }

    /// Feeds `text` in chunks of every size from 1 to its length and checks each split gives
    /// `expected`.
    private func assertMessages(
        _ text: String, contentType: String, maxBytes: Int = 4096, _ expected: [Seen], file: StaticString = #filePath, line: UInt = #line
    ) {
        let bytes = Array(text.utf8)
        for size in 1...max(1, bytes.count) {
            guard var parser = StreamMessageParser(contentType: contentType, maxBytes: maxBytes) else {
                return XCTFail("no parser for \(contentType)", file: file, line: line)
            }
            var seen: [Seen] = []
            let record = { (message: StreamMessageParser.Message) in
                seen.append(Seen(
                    eventType: message.eventType, eventID: message.eventID, data: String(decoding: message.data, as: UTF8.self),
                    byteCount: message.byteCount, isTruncated: message.isTruncated
                ))
            }
            var start = 0
            while start < bytes.count {
                parser.feed(bytes[start..<min(bytes.count, start + size)], record)
                start += size
            }
            parser.finish(record)
            XCTAssertEqual(seen, expected, "in chunks of \(size)", file: file, line: line)
        }
    }

    func testServerSentEventsKeepTypeIdAndJoinDataLines() {
        assertMessages(
            "event: token\nid: 7\ndata: {\"t\":\"Hel\"}\n\n: a comment\ndata: first\ndata:second\n\n",
            contentType: "text/event-stream; charset=utf-8",
            [
                Seen(eventType: "token", eventID: "7", data: #"{"t":"Hel"}"#, byteCount: 38),
                Seen(data: "first\nsecond", byteCount: 37),
            ]
        )
    }

    func testServerSentEventLineEndingsMayBeCRLFOrCR() {
        assertMessages("data: a\r\n\r\ndata: b\r\rdata: c\n\n", contentType: "text/event-stream", [
            Seen(data: "a", byteCount: 11), Seen(data: "b", byteCount: 9), Seen(data: "c", byteCount: 9),
        ])
    }

    func testAnEventWithoutDataIsNotDispatchedAndAnUnfinishedOneIsDiscarded() {
        assertMessages("event: ping\n\ndata: cut off", contentType: "text/event-stream", [])
    }

    func testJSONLinesAreOneMessageEachBlankLinesSkippedAndALastLineWithoutNewlineCounts() {
        assertMessages("{\"a\":1}\n\n{\"b\":2}\r\n{\"c\":3}", contentType: "application/x-ndjson", [
            Seen(data: #"{"a":1}"#, byteCount: 8), Seen(data: #"{"b":2}"#, byteCount: 9), Seen(data: #"{"c":3}"#, byteCount: 7),
        ])
    }

    func testDataPastTheCapIsCutAndMarkedWhileItsBytesAreStillCounted() {
        assertMessages("data: 0123456789\n\n{}", contentType: "text/event-stream", maxBytes: 4, [
            Seen(data: "0123", byteCount: 18, isTruncated: true)
        ])
        assertMessages("0123456789\nab\n", contentType: "application/jsonl", maxBytes: 4, [
            Seen(data: "0123", byteCount: 11, isTruncated: true), Seen(data: "ab", byteCount: 3),
        ])
    }

    func testOtherMediaTypesCarryNoMessages() {
        XCTAssertNil(StreamMessageParser(contentType: "application/json", maxBytes: 10))
        XCTAssertNil(StreamMessageParser(contentType: nil, maxBytes: 10))
        XCTAssertNotNil(StreamMessageParser(contentType: "Application/JSON-Seq", maxBytes: 10))
    }
}
