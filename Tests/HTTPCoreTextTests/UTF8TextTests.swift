import Foundation
import HTTPCoreText
import XCTest

/// The package's one UTF-8-safe cut: never inside a character's bytes, linear in the text.
final class UTF8TextTests: XCTestCase {
    func testCutsFallBeforeACharacterThatWouldBeSplit() {
        // "aé€😀": 1 + 2 + 3 + 4 bytes.
        let text = "aé€😀"
        let expected = [0: "", 1: "a", 2: "a", 3: "aé", 4: "aé", 5: "aé", 6: "aé€", 7: "aé€", 8: "aé€", 9: "aé€", 10: "aé€😀", 11: "aé€😀"]
        for (limit, prefix) in expected {
            XCTAssertEqual(UTF8Text.prefix(text, maxBytes: limit), prefix, "limit \(limit)")
            XCTAssertEqual(UTF8Text.boundary(in: Array(text.utf8), atMost: limit), prefix.utf8.count, "limit \(limit)")
        }
        XCTAssertEqual(UTF8Text.prefix(text, maxBytes: -4), "")
    }

    func testCutAddsTheMarkerOnlyWhenItCut() {
        XCTAssertEqual(UTF8Text.cut("short", toBytes: 5), "short")
        XCTAssertEqual(UTF8Text.cut("shorter", toBytes: 5), "short…")
        XCTAssertEqual(UTF8Text.cut("ééé", toBytes: 5, marker: " [cut]"), "éé [cut]")
    }

    func testBoundaryWorksOnASliceThatDoesNotStartAtZero() {
        let bytes = Array("xxaé".utf8)[2...]
        XCTAssertEqual(UTF8Text.boundary(in: bytes, atMost: 2), 1)
        XCTAssertEqual(UTF8Text.boundary(in: bytes, atMost: 3), 3)
    }

    func testACutBodyDecodesWithoutItsIncompleteLastCharacter() {
        let body = Data("ok 😀".utf8)
        for dropped in 1...3 {
            XCTAssertEqual(UTF8Text.decode(body.dropLast(dropped), isCut: true), "ok ", "\(dropped) bytes dropped")
        }
        XCTAssertNil(UTF8Text.decode(body.dropLast(1), isCut: false), "a whole body that is not UTF-8 is not text")
        XCTAssertNil(UTF8Text.decode(Data([0x61, 0xFF, 0x62]), isCut: true), "invalid bytes inside are not a cut")
        XCTAssertEqual(UTF8Text.decode(Data(), isCut: true), "")
    }

    func testALongTextIsCutInOnePass() {
        let text = String(repeating: "é", count: 2_000_000)
        XCTAssertEqual(UTF8Text.prefix(text, maxBytes: 3_000_001).utf8.count, 3_000_000)
    }
}
