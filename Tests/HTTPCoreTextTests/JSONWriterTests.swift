import Foundation
import HTTPCoreText
import XCTest

/// The package's one JSON writer: separators, escapes, numbers and both layouts.
final class JSONWriterTests: XCTestCase {
    private func text(_ writer: JSONWriter) -> String { String(decoding: writer.bytes, as: UTF8.self) }

    func testCompactNestingPutsCommasAndColonsBetweenMembersOnly() {
        var writer = JSONWriter()
        writer.beginObject()
        writer.key("a"); writer.integer(1)
        writer.key("b"); writer.beginArray(); writer.string("x"); writer.bool(true); writer.null(); writer.endArray()
        writer.key("c"); writer.beginObject(); writer.endObject()
        writer.key("d"); writer.beginArray(); writer.endArray()
        writer.endObject()
        XCTAssertEqual(text(writer), #"{"a":1,"b":["x",true,null],"c":{},"d":[]}"#)
    }

    func testIndentedLayoutIsTwoSpacesPerLevelWithEmptyContainersKeptShort() {
        var writer = JSONWriter(style: .indented)
        writer.beginObject()
        writer.key("log"); writer.beginObject()
        writer.key("entries"); writer.beginArray(); writer.integer(1); writer.integer(2); writer.endArray()
        writer.key("pages"); writer.beginArray(); writer.endArray()
        writer.endObject()
        writer.endObject()
        XCTAssertEqual(text(writer), "{\n  \"log\": {\n    \"entries\": [\n      1,\n      2\n    ],\n    \"pages\": []\n  }\n}")
    }

    func testStringsAndKeysAreEscapedAsJSONStringifyDoes() {
        var writer = JSONWriter()
        writer.beginObject()
        writer.key("q\"k"); writer.string("a\\b\n\t\r\u{01}/é")
        writer.endObject()
        XCTAssertEqual(text(writer), #"{"q\"k":"a\\b\n\t\r\u0001/é"}"#)
    }

    func testNumbersAreWholeWhenWholeAndNullWhenJSONCannotCarryThem() {
        var writer = JSONWriter()
        writer.beginArray()
        for value in [12.0, 0.25, -3.0, 1e15, .infinity, .nan] { writer.number(value) }
        writer.integer(7)
        writer.raw("1.50")
        writer.endArray()
        XCTAssertEqual(text(writer), "[12,0.25,-3,1000000000000000.0,null,null,7,1.50]")
    }

    func testMembersWritesStringPairsInOrder() {
        var writer = JSONWriter()
        writer.beginObject()
        writer.members([(key: "z", value: "1"), (key: "a", value: "2")])
        writer.endObject()
        XCTAssertEqual(text(writer), #"{"z":"1","a":"2"}"#)
    }

    func testTheOutputParsesBackWithFoundation() throws {
        var writer = JSONWriter(style: .indented)
        writer.beginObject()
        writer.key("text"); writer.string("line\nbreak \u{1F600}")
        writer.key("list"); writer.beginArray(); writer.number(1.5); writer.endArray()
        writer.endObject()
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(writer.bytes)) as? [String: Any])
        XCTAssertEqual(object["text"] as? String, "line\nbreak \u{1F600}")
        XCTAssertEqual(object["list"] as? [Double], [1.5])
    }
}
