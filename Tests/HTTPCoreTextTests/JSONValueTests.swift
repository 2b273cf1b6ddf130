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

    // MARK: - Parsing options: what Node accepts beyond RFC 8259

    private static let nodeLike: JSONValue.ParsingOptions = [.overflowingNumbersAsInfinity, .invalidUTF8AsReplacementCharacter]

    /// Why `data` is refused, as "message at position offset"; `nil` when it parses.
    private func refusal(_ data: Data, options: JSONValue.ParsingOptions = []) -> String? {
        do {
            _ = try JSONValue.parse(data, options: options)
            return nil
        } catch {
            return error.description
        }
    }

    /// A JSON string token around `content`, which may be invalid UTF-8.
    private func stringToken(_ content: [UInt8]) -> Data {
        Data([UInt8(ascii: "\"")] + content + [UInt8(ascii: "\"")])
    }

    func testStrictlyANumberThatOverflowsDoubleIsRefusedWhereItStarts() {
        XCTAssertEqual(refusal(Data("1e400".utf8)), "Number out of range at position 0")
        XCTAssertEqual(refusal(Data("[1,-1e400]".utf8)), "Number out of range at position 3")
        XCTAssertEqual(refusal(Data("1.7976931348623159e308".utf8)), "Number out of range at position 0", "rounds up past the largest Double")
    }

    func testWithTheOptionANumberThatOverflowsDoubleReadsAsInfinityWithItsText() throws {
        // The values node -e 'JSON.parse(text)' gives: Infinity, -Infinity, Infinity, Infinity.
        let expected: [(String, Double)] = [
            ("1e400", .infinity), ("-1e400", -.infinity), ("1.7976931348623159e308", .infinity), ("123e999999999999", .infinity),
        ]
        for (text, value) in expected {
            XCTAssertEqual(try JSONValue.parse(Data(text.utf8), options: .overflowingNumbersAsInfinity), .number(value, text: text), text)
        }
        XCTAssertEqual(
            try JSONValue.parse(Data("[1.7976931348623157e308,1e-400]".utf8), options: .overflowingNumbersAsInfinity),
            .array([.number(.greatestFiniteMagnitude, text: "1.7976931348623157e308"), .number(0, text: "1e-400")]),
            "the largest Double and an underflow stay finite"
        )
    }

    func testWithTheOptionTheNumberGrammarStillHolds() {
        for text in ["+1", "01", "-01", "1.", ".5", "1e", "1e+", "-", "Infinity", "-Infinity", "NaN", "1e400.5"] {
            XCTAssertNotNil(refusal(Data(text.utf8), options: Self.nodeLike), text)
        }
    }

    func testStrictlyInvalidUTF8InAStringIsRefusedAtTheStringsStart() {
        XCTAssertEqual(refusal(Data("[1,".utf8) + stringToken([0x61, 0xFF]) + Data("]".utf8)), "Invalid UTF-8 in string at position 4")
        XCTAssertEqual(
            refusal(Data(#"{"a":1,"b":"#.utf8) + stringToken([0xFF]) + Data("}".utf8)),
            "Invalid UTF-8 in string at position 12",
            "also in a member that is not built"
        )
    }

    func testWithTheOptionEachMaximalIllFormedSubsequenceBecomesOneReplacementCharacter() throws {
        // What Node's Buffer.toString("utf8") and TextDecoder give for these bytes (node 20).
        let expected: [([UInt8], String)] = [
            ([0xFF], "\u{FFFD}"),
            ([0x80], "\u{FFFD}"),
            ([0xC3], "\u{FFFD}"),
            ([0xC0, 0xAF], "\u{FFFD}\u{FFFD}"),
            ([0xED, 0xA0, 0x80], "\u{FFFD}\u{FFFD}\u{FFFD}"),
            ([0xF0, 0x9F, 0x98], "\u{FFFD}"),
            ([0xF4, 0x90, 0x80, 0x80], "\u{FFFD}\u{FFFD}\u{FFFD}\u{FFFD}"),
            ([0xF8, 0x88, 0x80, 0x80, 0x80], "\u{FFFD}\u{FFFD}\u{FFFD}\u{FFFD}\u{FFFD}"),
            ([0x61, 0xF0, 0x9F, 0x98, 0x62], "a\u{FFFD}b"),
            ([0xC3, 0xA9, 0xE2, 0x82, 0xF0, 0x9F, 0x99, 0x82], "é\u{FFFD}🙂"),
        ]
        for (bytes, text) in expected {
            XCTAssertEqual(try JSONValue.parse(stringToken(bytes), options: .invalidUTF8AsReplacementCharacter), .string(text), "\(bytes)")
        }
    }

    func testWithTheOptionEscapesAroundInvalidUTF8AreResolvedAndKeysAreRepairedToo() throws {
        let escaped = Data(#"\n"#.utf8) + [0xFF] + Data(#"\u00e9\""#.utf8)
        XCTAssertEqual(try JSONValue.parse(stringToken(Array(escaped)), options: Self.nodeLike), .string("\n\u{FFFD}é\""))
        let key = Data("{".utf8) + stringToken([0x6B, 0xC0]) + Data(":1}".utf8)
        XCTAssertEqual(try JSONValue.parse(key, options: Self.nodeLike), .object([("k\u{FFFD}", .number(1, text: "1"))]))
    }

    func testWithTheOptionWhatStaysInvalidAfterTheRepairIsRefused() {
        XCTAssertEqual(
            refusal(stringToken([0x5C, 0xFF, 0xFF]), options: Self.nodeLike),
            "Bad escaped character in JSON at position 1",
            "a backslash before an invalid byte escapes U+FFFD, which is no escape"
        )
        XCTAssertEqual(refusal(Data([0x5B, 0xFF, 0x5D]), options: Self.nodeLike), "Unexpected token at position 1")
        XCTAssertEqual(refusal(stringToken([0xFF, 0x0A]), options: Self.nodeLike), "Bad control character in string literal at position 2")
    }

    func testWithTheOptionAMemberThatIsNotBuiltIsCheckedAfterTheRepair() throws {
        let body = Data(#"{"a":1,"b":"#.utf8) + stringToken([0xFF]) + Data(#","c":"#.utf8) + stringToken([0x5C, 0xFF]) + Data("}".utf8)
        XCTAssertThrowsError(try JSONValue.parse(body, keepingMembersNamed: ["a"], options: Self.nodeLike))
        let valid = Data(#"{"a":1,"b":"#.utf8) + stringToken([0xFF]) + Data("}".utf8)
        XCTAssertEqual(try JSONValue.parse(valid, keepingMembersNamed: ["a"], options: Self.nodeLike), .object([("a", .number(1, text: "1"))]))
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
