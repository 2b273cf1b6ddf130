import Foundation
import HTTPCoreRedaction
import XCTest

/// A JSON string is judged by the text it decodes to: an escape never hides a secret, and a
/// string that holds none keeps its escaped bytes.
final class JSONMaskerEscapeTests: XCTestCase {
    private static let key = "sk-proj-" + String(repeating: "Ab3", count: 16)

    /// A string's content as sent (escaped), the same text written plainly, and the content
    /// expected after masking either.
    private static let cases: [(escaped: String, plain: String, masked: String, reason: String)] = [
        (#"use \u0073k-proj-"# + key.dropFirst(8) + " now", "use \(key) now", "use [REDACTED] now", "an escaped provider key"),
        (#"\u0042earer abc123def456"#, "Bearer abc123def456", "Bearer [REDACTED]", "an escaped credential scheme"),
        (
            #"\u0065yJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2ln"#, "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2ln", "[REDACTED]",
            "an escaped JWT"
        ),
        (#"https:\/\/a.example\/cb?token=S3CR3T"#, "https://a.example/cb?token=S3CR3T", "https://a.example/cb?token=[REDACTED]", "escaped slashes"),
        (#"token\u003dS3CR3T"#, "token=S3CR3T", "token=[REDACTED]", "an escaped equals sign"),
        (#"\ud83d\ude00\u0020\u0073k-proj-"# + key.dropFirst(8), "😀 \(key)", "😀 [REDACTED]", "a surrogate pair before the key"),
        (#"he said \"\u0073k-proj-"# + key.dropFirst(8) + #"\""#, #"he said \"\#(key)\""#, #"he said \"[REDACTED]\""#, "escaped quotes around the key"),
    ]

    private func masked(_ body: String, _ type: String) -> String {
        String(decoding: Redactor.standard.redactedBody(Data(body.utf8), contentType: type), as: UTF8.self)
    }

    func testEscapedSecretsAreMaskedInABodyAsTheirPlainText() {
        for (escaped, plain, expected, reason) in Self.cases {
            XCTAssertEqual(masked(#"{"v":""# + escaped + #"","n":1}"#, "application/json"), #"{"v":""# + expected + #"","n":1}"#, reason)
            XCTAssertEqual(masked(#"{"v":""# + plain + #"","n":1}"#, "application/json"), #"{"v":""# + expected + #"","n":1}"#, reason)
        }
    }

    func testEscapedSecretsAreMaskedInAServerSentEvent() {
        for (escaped, _, expected, reason) in Self.cases {
            let event = "event: delta\ndata: {\"choices\":[{\"delta\":{\"content\":\"\(escaped)\"}}]}\n\n"
            XCTAssertEqual(
                masked(event, "text/event-stream"), "event: delta\ndata: {\"choices\":[{\"delta\":{\"content\":\"\(expected)\"}}]}\n\n", reason
            )
        }
    }

    func testEscapedSecretsAreMaskedInAJSONLine() {
        for (escaped, _, expected, reason) in Self.cases {
            let lines = "{\"n\":1}\n{\"response\":\"\(escaped)\",\"done\":false}\n"
            XCTAssertEqual(masked(lines, "application/x-ndjson"), "{\"n\":1}\n{\"response\":\"\(expected)\",\"done\":false}\n", reason)
        }
    }

    func testAStringWithEscapesAndNoSecretKeepsItsBytes() {
        let text = #"caf\u00e9 \"quoted\" https:\/\/a.example\/p \ud83d\ude00 \u0042ob\n\t\u0041"#
        let body = #"{"v":""# + text + #""}"#
        XCTAssertEqual(masked(body, "application/json"), body)
        XCTAssertEqual(masked("data: \(body)\n\n", "text/event-stream"), "data: \(body)\n\n")
        XCTAssertEqual(masked("\(body)\n", "application/x-ndjson"), "\(body)\n")
    }
}

/// Strings are read to their closing quote however long they are and wherever an escape or a
/// quote falls in them (the scan reads eight bytes at a time).
final class JSONMaskerStringLengthTests: XCTestCase {
    func testEveryLengthAndEscapePositionIsReadToTheClosingQuote() {
        for length in 0..<20 {
            let text = String(repeating: "a", count: length) + #"\"\\"# + String(repeating: "é", count: length)
            let body = #"{"note":""# + text + #"","password":"S3CR3T","n":1}"#
            let masked = Redactor.standard.redactedBody(Data(body.utf8), contentType: "application/json")
            XCTAssertEqual(String(decoding: masked, as: UTF8.self), #"{"note":""# + text + #"","password":"[REDACTED]","n":1}"#, "length \(length)")
        }
    }

    func testAControlCharacterInAStringIsUnreadableAtEveryPosition() {
        for length in 0..<12 {
            let body = #"{"password":"S3CR3T","note":""# + String(repeating: "a", count: length) + "\u{01}\"}"
            let masked = String(decoding: Redactor.standard.redactedBody(Data(body.utf8), contentType: "application/json"), as: UTF8.self)
            XCTAssertEqual(masked, #"{"password":"[REDACTED]","note":"# + "…[REDACTED: unreadable JSON, 3 more bytes]", "length \(length)")
        }
    }
}
