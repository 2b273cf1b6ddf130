@testable import HTTPCore
@testable import HTTPCoreGenAI
import Foundation
import XCTest

/// The JSON the GenAI readers parse for themselves: what they read from valid objects, and
/// that anything else reads as no object rather than as a wrong one.
final class JSONObjectTests: XCTestCase {
    private func object(_ text: String) -> JSONObject? {
        JSONObject(data: Data(text.utf8))
    }

    func testValuesReadByTypeAndAnythingElseIsAbsent() throws {
        let read = try XCTUnwrap(object(#" {"n": 12, "temperature": -0.5, "seed": 1e3, "stream": true, "text": "a\"b\u00e9\n", "error": null, "stop": ["p", 1], "usage": {"code": "v"}} "#))
        XCTAssertEqual(read.int("n"), 12)
        XCTAssertEqual(read.double("temperature"), -0.5)
        XCTAssertEqual(read.int("seed"), 1000)
        XCTAssertNil(read.int("temperature"), "a fraction is no integer")
        XCTAssertEqual(read.bool("stream"), true)
        XCTAssertNil(read.int("stream"), "true is no number")
        XCTAssertEqual(read.string("text"), "a\"bé\n")
        XCTAssertFalse(read.has("error"), "null is absent")
        XCTAssertFalse(read.has("model"))
        XCTAssertEqual(read.strings("stop"), ["p"])
        XCTAssertEqual(read.object("usage")?.string("code"), "v")
    }

    func testMembersNoReaderReadsAreCheckedButNotBuilt() throws {
        let read = try XCTUnwrap(object(#"{"messages":[{"role":"user","content":"a long prompt\n"}],"tools":{},"model":"gpt-4o"}"#))
        XCTAssertEqual(read.string("model"), "gpt-4o")
        for text in [#"{"messages":[1,],"model":"m"}"#, #"{"messages":"\x","model":"m"}"#, #"{"logprobs":01,"model":"m"}"#, #"{"logprobs":1e400}"#] {
            XCTAssertNil(object(text), "an unread member must still be JSON: \(text)")
        }
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
