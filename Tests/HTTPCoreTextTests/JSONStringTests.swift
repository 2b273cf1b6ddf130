import HTTPCoreText
import XCTest

/// The escaped length of a string is exactly what appending it escaped writes, however
/// many escapes it holds and wherever they fall.
final class JSONStringTests: XCTestCase {
    private func escaped(_ text: String) -> [UInt8] {
        var output: [UInt8] = []
        JSONString.appendEscaped(text, to: &output)
        return output
    }

    func testTheEscapedLengthCountsTwoBytesForAQuoteOrBackslashAndSixForABareControl() {
        XCTAssertEqual(JSONString.escapedLength("plain é"), "plain é".utf8.count)
        XCTAssertEqual(JSONString.escapedLength(#"{"a":"b\c"}"#), 11 + 5, "four quotes and a backslash")
        XCTAssertEqual(JSONString.escapedLength("a\nb\u{01}"), 4 + 1 + 5)
        XCTAssertEqual(JSONString.escapedLength(""), 0)
    }

    func testTheEscapedLengthOfLongTextsFullOfQuotesIsWhatIsWritten() {
        // Longer than a counting block of 255 bytes, all quotes: a byte-wide count would wrap.
        let texts = [
            String(repeating: "\"", count: 1_000),
            String(repeating: #"{"id":1,"name":"O\"Brien"}"#, count: 100),
            String(repeating: #""a"\"#, count: 300) + "\n" + String(repeating: "\u{1F}\"", count: 200),
        ]
        for text in texts {
            XCTAssertEqual(JSONString.escapedLength(text), escaped(text).count)
        }
        XCTAssertEqual(JSONString.escapedLength(texts[0]), 2_000)
    }
}
