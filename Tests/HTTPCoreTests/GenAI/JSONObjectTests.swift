@testable import HTTPCore
import Foundation
import XCTest

/// The JSON the GenAI readers parse for themselves: what they read from valid objects, and
/// that anything else reads as no object rather than as a wrong one.
final class JSONObjectTests: XCTestCase {
    private func object(_ text: String) -> JSONObject? {
        JSONObject(data: Data(text.utf8))
    }

    func testValuesReadByTypeAndAnythingElseIsAbsent() throws {
        let read = try XCTUnwrap(object(#" {"n": 12, "x": -0.5, "e": 1e3, "t": true, "s": "a\"b\u00e9\n", "z": null, "a": ["p", 1], "o": {"k": "v"}} "#))
        XCTAssertEqual(read.int("n"), 12)
        XCTAssertEqual(read.double("x"), -0.5)
        XCTAssertEqual(read.int("e"), 1000)
        XCTAssertNil(read.int("x"), "a fraction is no integer")
        XCTAssertEqual(read.bool("t"), true)
        XCTAssertNil(read.int("t"), "true is no number")
        XCTAssertEqual(read.string("s"), "a\"bé\n")
        XCTAssertFalse(read.has("z"), "null is absent")
        XCTAssertFalse(read.has("missing"))
        XCTAssertEqual(read.strings("a"), ["p"])
        XCTAssertEqual(read.object("o")?.string("k"), "v")
    }

    func testARepeatedKeyReadsItsLastValue() {
        XCTAssertEqual(object(#"{"model":"a","model":"b"}"#)?.string("model"), "b")
    }

    func testMalformedOrNonObjectTextIsNoObject() {
        for text in [#"{"a":1"#, #"{"a":}"#, #"{"a":1} trailing"#, #"["a"]"#, "42", "", #"{"a":tru}"#, #"{"a":"unterminated}"#] {
            XCTAssertNil(object(text), text)
        }
    }

    func testNestingDeeperThanTheLimitIsRefused() {
        let deep = String(repeating: #"{"a":"#, count: JSONObject.maximumDepth + 1) + "1" + String(repeating: "}", count: JSONObject.maximumDepth + 1)
        XCTAssertNil(object(deep))
        let fits = String(repeating: #"{"a":"#, count: 10) + "1" + String(repeating: "}", count: 10)
        XCTAssertNotNil(object(fits))
    }
}
