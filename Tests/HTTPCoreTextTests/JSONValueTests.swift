import Foundation
import HTTPCoreText
import XCTest

/// The package's one JSON parser follows RFC 8259 exactly: what it accepts, with the exact
/// values, and what it refuses.
final class JSONValueTests: XCTestCase {
    private func parse(_ text: String) throws -> JSONValue {
        try JSONValue.parse(Data(text.utf8))
    }

    private func assertRefused(_ data: Data, _ message: String, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertThrowsError(try JSONValue.parse(data), message, file: file, line: line)
    }

    func testNumbersOutsideTheGrammarOrOutOfRangeAreRefused() {
        for text in ["1e400", "-1e400", "+1", "01", "-01", "1.", ".5", "1e", "1e+", "-", "0x10", "Infinity", "NaN"] {
            assertRefused(Data(text.utf8), text)
            assertRefused(Data("[\(text)]".utf8), "[\(text)]")
        }
    }

    func testNumbersInTheGrammarKeepTheirExactValueAndSpelling() throws {
        let negativeZero = try parse("-0")
        XCTAssertEqual(negativeZero, .number(0, text: "-0"))
        guard case .number(let zero, _) = negativeZero else { return XCTFail("not a number") }
        XCTAssertEqual(zero.sign, .minus)
        XCTAssertEqual(try parse("1E+2"), .number(100, text: "1E+2"))
        XCTAssertEqual(try parse("0.5e-3"), .number(0.0005, text: "0.5e-3"))
        XCTAssertEqual(try parse("123456789012345"), .number(123_456_789_012_345, text: "123456789012345"))
        XCTAssertEqual(try parse("-9007199254740993"), .number(-9_007_199_254_740_992, text: "-9007199254740993"), "rounded to the nearest Double")
        XCTAssertEqual(try parse("1e-400"), .number(0, text: "1e-400"), "an underflow is a finite zero")
    }

    func testInvalidUTF8InAStringIsRefused() {
        for bytes: [UInt8] in [[0xFF], [0xC3], [0xC0, 0xAF], [0xED, 0xA0, 0x80], [0x80]] {
            assertRefused(Data([UInt8(ascii: "\"")] + bytes + [UInt8(ascii: "\"")]), "\(bytes)")
        }
        XCTAssertEqual(try JSONValue.parse(Data(#""é🙂""#.utf8)), .string("é🙂"))
    }

    func testBadEscapesAndRawControlCharactersAreRefused() {
        for text in [#""\x""#, #""\u12""#, #""\u12G4""#, #""\""#, "\"a\nb\"", "\"\u{01}\""] {
            assertRefused(Data(text.utf8), text)
        }
    }

    func testEscapesAreResolvedAndALoneSurrogateBecomesTheReplacementCharacter() throws {
        XCTAssertEqual(try parse(#""a\"b\\c\/d\n\u00e9\ud83d\ude42""#), .string("a\"b\\c/d\né🙂"))
        XCTAssertEqual(try parse(#""\ud800x""#), .string("\u{FFFD}x"))
    }

    func testARepeatedKeyKeepsItsFirstPositionAndItsLastValueInSmallAndLargeObjects() throws {
        XCTAssertEqual(try parse(#"{"a":1,"b":2,"a":3}"#).serialized, #"{"a":3,"b":2}"#)
        let keys = (0..<40).map { "k\($0)" }
        let large = "{" + keys.map { #""\#($0)":0"# }.joined(separator: ",") + #","k3":1,"k30":2}"#
        guard case .object(let members) = try parse(large) else { return XCTFail("not an object") }
        XCTAssertEqual(members.map(\.key), keys)
        XCTAssertEqual(members[3].value, .number(1, text: "1"))
        XCTAssertEqual(members[30].value, .number(2, text: "2"))
    }

    func testNestingIsBoundedByTheMaximumDepth() throws {
        func nested(_ depth: Int) -> Data {
            Data((String(repeating: "[", count: depth) + String(repeating: "]", count: depth)).utf8)
        }
        XCTAssertNoThrow(try JSONValue.parse(nested(JSONValue.defaultMaximumDepth)))
        assertRefused(nested(JSONValue.defaultMaximumDepth + 1), "one level too deep")
        XCTAssertNoThrow(try JSONValue.parse(nested(8), maximumDepth: 8))
        XCTAssertThrowsError(try JSONValue.parse(nested(9), maximumDepth: 8))
    }

    func testOnlyWhitespaceMayFollowTheValue() {
        XCTAssertEqual(try parse(" \t\r\n{} \n"), .object([]))
        for text in ["{} x", "1 2", "", " ", "{}}"] {
            assertRefused(Data(text.utf8), text)
        }
    }

    func testMembersNotKeptAreLeftOutAtAnyDepthButStillChecked() throws {
        let text = #"{"model":"m","messages":[{"role":"user","content":"Hi\n"}],"usage":{"input_tokens":3,"total":4}}"#
        let kept = try JSONValue.parse(Data(text.utf8), keepingMembersNamed: ["model", "usage", "input_tokens"])
        XCTAssertEqual(kept.serialized, #"{"model":"m","usage":{"input_tokens":3}}"#)
        for bad in [#"{"x":"\u12"}"#, #"{"x":"\q"}"#, #"{"x":[01]}"#, #"{"x":{"y":1e400}}"#, "{\"x\":\"\u{01}\"}", #"{"x":{"y"}}"#] {
            XCTAssertThrowsError(try JSONValue.parse(Data(bad.utf8), keepingMembersNamed: []), bad)
        }
        var invalidUTF8 = Data(#"{"x":""#.utf8)
        invalidUTF8.append(contentsOf: [0xC3, 0x28])
        invalidUTF8.append(contentsOf: Data(#""}"#.utf8))
        XCTAssertThrowsError(try JSONValue.parse(invalidUTF8, keepingMembersNamed: []), "invalid UTF-8 in a member left out")
    }
}
