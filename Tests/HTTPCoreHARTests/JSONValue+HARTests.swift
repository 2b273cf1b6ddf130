import HTTPCoreText
import XCTest

@testable import HTTPCoreHAR

/// HAR documents are built of the package's one JSON tree and written by its one writer.
final class JSONValueHARTests: XCTestCase {
    func testThousandthsAreWrittenAsExactDecimalsWithoutTrailingZeros() {
        XCTAssertEqual(JSONValue.decimal(thousandths: 12_345), "12.345")
        XCTAssertEqual(JSONValue.decimal(thousandths: 12_300), "12.3")
        XCTAssertEqual(JSONValue.decimal(thousandths: 45), "0.045")
        XCTAssertEqual(JSONValue.decimal(thousandths: 0), "0")
        XCTAssertEqual(JSONValue.decimal(thousandths: -1000), "-1")
        XCTAssertEqual(JSONValue.decimal(thousandths: -1), "-0.001")
    }

    func testMembersKeepTheirOrderAndStringsAreEscaped() {
        let value: JSONValue = ["zeta": 1, "alpha": ["quote \" and \\ and \n", true], "empty": [:], "none": [], "ms": .thousandths(1500)]
        XCTAssertEqual(String(decoding: value.harBytes, as: UTF8.self), """
            {
              "zeta": 1,
              "alpha": [
                "quote \\" and \\\\ and \\n",
                true
              ],
              "empty": {},
              "none": [],
              "ms": 1.5
            }

            """)
    }

    func testTheOutputIsJSONThatFoundationReadsBack() throws {
        let value: JSONValue = ["text": "naïve ☕️ \u{01} tab\t", "number": .thousandths(-250)]
        let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(value.harBytes)) as? [String: Any])
        XCTAssertEqual(object["text"] as? String, "naïve ☕️ \u{01} tab\t")
        XCTAssertEqual(object["number"] as? Double, -0.25)
    }

    func testAValueThatOnlyWritesItselfJoinsTheTreeAsItWritesItself() {
        let written = JSONValue { writer in
            writer.beginObject()
            writer.key("gen_ai.usage.input_tokens"); writer.integer(12)
            writer.key("ratio"); writer.number(0.5)
            writer.key("names"); writer.beginArray(); writer.string("a\"b"); writer.endArray()
            writer.endObject()
        }
        XCTAssertEqual(written, ["gen_ai.usage.input_tokens": 12, "ratio": .number(0.5, text: "0.5"), "names": ["a\"b"]])
        XCTAssertEqual(written.serialized, #"{"gen_ai.usage.input_tokens":12,"ratio":0.5,"names":["a\"b"]}"#)
    }
}
