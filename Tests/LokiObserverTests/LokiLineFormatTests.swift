import XCTest

@testable import LokiObserver

final class LokiLineFormatTests: XCTestCase {
    private let fields: [(key: String, value: String)] = [
        ("msg", "a \"quoted\" word"), ("plain", "ok"), ("empty", ""), ("equals", "a=b"), ("newline", "x\ny"), ("tab", "\t"),
    ]

    func testLogfmtQuotesOnlyWhatNeedsIt() {
        XCTAssertEqual(
            LokiLineFormat.logfmt.line(fields),
            #"msg="a \"quoted\" word" plain=ok empty="" equals="a=b" newline="x\ny" tab="\t""#
        )
    }

    func testJSONIsAnObjectInFieldOrder() throws {
        let line = LokiLineFormat.json.line(fields + [("control", "\u{1}")])
        XCTAssertEqual(line, #"{"msg":"a \"quoted\" word","plain":"ok","empty":"","equals":"a=b","newline":"x\ny","tab":"\t","control":"\u0001"}"#)
        XCTAssertNotNil(try JSONSerialization.jsonObject(with: Data(line.utf8)))
    }
}
