import Foundation
import XCTest

@testable import LokiObserver

final class LokiPushBodyTests: XCTestCase {
    private let start = Date(timeIntervalSince1970: 1_790_000_000)

    private func entry(_ level: String, _ line: String, after seconds: TimeInterval) -> LokiEntry {
        LokiEntry(labels: [("level", level), ("app", "a")], date: start.addingTimeInterval(seconds), line: line)
    }

    /// Equal times are made 1 ns apart, in logging order: Loki drops an entry whose time and
    /// line equal another's, and some versions refuse equal times.
    func testEntriesAreGroupedByStreamInFirstAppearanceOrderAndSortedByTime() {
        var body = LokiPushBody()
        let json = body.encode([
            entry("info", "b", after: 2), entry("error", "x", after: 1), entry("info", "a", after: 1), entry("info", "c", after: 2),
        ])
        XCTAssertEqual(String(decoding: json, as: UTF8.self), #"{"streams":["#
            + #"{"stream":{"app":"a","level":"info"},"values":[["1790000001000000000","a"],["1790000002000000000","b"],["1790000002000000001","c"]]},"#
            + #"{"stream":{"app":"a","level":"error"},"values":[["1790000001000000000","x"]]}]}"#)
    }

    func testAnEntryOlderThanTheLastPushedForItsStreamMovesJustAfterIt() {
        var body = LokiPushBody()
        _ = body.encode([entry("info", "first", after: 5)])
        let json = String(decoding: body.encode([entry("info", "late", after: 1), entry("error", "other", after: 1)]), as: UTF8.self)
        XCTAssertTrue(json.contains(#"[["1790000005000000001","late"]]"#), json)
        XCTAssertTrue(json.contains(#"[["1790000001000000000","other"]]"#), "other streams keep their times: \(json)")
    }

    func testDuplicateLabelNamesKeepTheFirst() {
        let entry = LokiEntry(labels: [("app", "a"), ("app", "b")], date: start, line: "x")
        XCTAssertEqual(entry.stream, #"{"app":"a"}"#)
    }
}
