import XCTest

@testable import HTTPCoreHAR

final class HARJSONTests: XCTestCase {
    func testThousandthsAreWrittenAsExactDecimalsWithoutTrailingZeros() {
        XCTAssertEqual(HARJSON.decimal(thousandths: 12_345), "12.345")
        XCTAssertEqual(HARJSON.decimal(thousandths: 12_300), "12.3")
        XCTAssertEqual(HARJSON.decimal(thousandths: 45), "0.045")
        XCTAssertEqual(HARJSON.decimal(thousandths: 0), "0")
        XCTAssertEqual(HARJSON.decimal(thousandths: -1000), "-1")
        XCTAssertEqual(HARJSON.decimal(thousandths: -1), "-0.001")
    }

    func testMembersKeepTheirOrderAndStringsAreEscaped() {
        let value: HARJSON = ["zeta": 1, "alpha": ["quote \" and \\ and \n", true], "empty": [:], "none": [], "ms": .thousandths(1500)]
        XCTAssertEqual(String(decoding: value.serialized, as: UTF8.self), """
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
        let value: HARJSON = ["text": "naïve ☕️ \u{01} tab\t", "number": .thousandths(-250)]
        let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(value.serialized)) as? [String: Any])
        XCTAssertEqual(object["text"] as? String, "naïve ☕️ \u{01} tab\t")
        XCTAssertEqual(object["number"] as? Double, -0.25)
    }
}
