import Foundation
import HTTPCoreRedaction
import XCTest
import HTTPCoreText

/// JSON inside a JSON string value is masked however its opening is written.
final class JSONMaskerNestedTests: XCTestCase {
    func testNestedJSONIsFoundBehindEscapesAndWhitespace() {
        let openings = [
            #"\u007b"#: "an escaped brace",
            #"\u007B"#: "an escaped brace, uppercase hex",
            #" \n\t{"#: "raw space and escaped whitespace",
            #"\u0020\u000a{"#: "escaped whitespace as unicode escapes",
        ]
        for (opening, reason) in openings {
            let body = #"{"data":""# + opening + #"\"password\":\"S3CRET\",\"id\":7}"}"#
            let masked = String(decoding: Redactor.standard.redactedBody(Data(body.utf8), contentType: "application/json"), as: UTF8.self)
            XCTAssertFalse(masked.contains("S3CRET"), "\(reason): \(masked)")
            XCTAssertTrue(masked.contains(#"\"id\":7"#), "\(reason): \(masked)")
        }
        let array = #"{"data":"\u005b{\"token\":\"S3CRET\"}]"}"#
        let masked = String(decoding: Redactor.standard.redactedBody(Data(array.utf8), contentType: "application/json"), as: UTF8.self)
        XCTAssertFalse(masked.contains("S3CRET"), masked)
    }

    func testTextThatMerelyStartsWithAnEscapeIsKept() {
        let body = #"{"note":"\u0041BC \"quoted\""}"#
        XCTAssertEqual(String(decoding: Redactor.standard.redactedBody(Data(body.utf8), contentType: "application/json"), as: UTF8.self), body)
    }

    func testJSONNestedInStringsDeeperThanTheBoundIsMaskedWhole() {
        // Each level is the previous document as a JSON string inside {"d": ...}.
        func nested(_ levels: Int) -> String {
            var document = #"{"a":"kept","password":"S3CR3T"}"#
            for _ in 0..<levels { document = #"{"d":"# + String(decoding: JSONString.encode(document), as: UTF8.self) + "}" }
            return document
        }
        func masked(_ json: String) -> String {
            String(decoding: Redactor.standard.redactedBody(Data(json.utf8), contentType: "application/json"), as: UTF8.self)
        }
        let shallow = masked(nested(3))
        XCTAssertFalse(shallow.contains("S3CR3T"))
        XCTAssertTrue(shallow.contains("kept"), "within the bound, nested documents are read")
        let deep = masked(nested(12))
        XCTAssertFalse(deep.contains("S3CR3T"))
        XCTAssertFalse(deep.contains("kept"), "past the bound the string is masked whole")
        XCTAssertEqual(deep.components(separatedBy: "[REDACTED]").count, 2, "one mask, for the too-deep string")
        XCTAssertNoThrow(try JSONSerialization.jsonObject(with: Data(deep.utf8)), "still JSON")
    }
}
