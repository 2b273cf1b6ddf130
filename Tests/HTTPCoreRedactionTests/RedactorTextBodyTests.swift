import Foundation
import HTTPCoreRedaction
import XCTest

/// Text bodies are masked whole, whatever their length, and in the charset they declare.
final class RedactorTextBodyTests: XCTestCase {
    func testATextBodyLongerThanTheTextRulesLimitIsMaskedWholeWithoutAMarker() {
        let line = "log line with password=hunter2 and more words\n"
        let text = String(repeating: line, count: 5_000)   // 230 KB, over 64 KiB
        let masked = String(decoding: Redactor.standard.redactedBody(Data(text.utf8), contentType: "text/plain"), as: UTF8.self)
        XCTAssertEqual(masked, String(repeating: "log line with password=[REDACTED] and more words\n", count: 5_000))
        XCTAssertFalse(masked.contains("truncated"))
    }

    func testAWordLongerThanAPieceIsKeptWhenItIsNoSecret() {
        let word = String(repeating: "x", count: 70_000)
        let text = "before " + word + " after password=hunter2"
        let masked = String(decoding: Redactor.standard.redactedBody(Data(text.utf8), contentType: "text/plain"), as: UTF8.self)
        XCTAssertEqual(masked, "before " + word + " after password=[REDACTED]")
    }

    func testARunLongerThanAPieceHasTheSecretsInItMaskedAndTheRestKept() {
        let pairs = String(repeating: "page=1&", count: 10_000)   // 70 KB without whitespace
        let jwt = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJl"
        let text = "start " + pairs + "password=hunter2&next=" + jwt + "&" + pairs + "ghp_" + String(repeating: "a1B2", count: 9) + " end"
        let masked = String(decoding: Redactor.standard.redactedBody(Data(text.utf8), contentType: "text/plain"), as: UTF8.self)
        XCTAssertEqual(masked, "start " + pairs + "password=[REDACTED]&next=[REDACTED]&" + pairs + "[REDACTED] end")
    }

    func testTheWordBeforeARunLongerThanAPieceStillSaysItIsACredential() {
        let token = String(repeating: "9f8a7c6b5e", count: 7_000)
        let text = String(repeating: "word ", count: 13_000) + "Bearer " + token + " done"
        let masked = String(decoding: Redactor.standard.redactedBody(Data(text.utf8), contentType: "text/plain"), as: UTF8.self)
        XCTAssertEqual(masked, String(repeating: "word ", count: 13_000) + "Bearer [REDACTED] done")
    }

    func testADeclaredCharsetIsDecodedAndMasked() {
        let latin1 = "caf\u{E9} cr\u{E8}me, password=s\u{FB}r".data(using: .isoLatin1)!
        let masked = Redactor.standard.redactedBody(latin1, contentType: "text/plain; charset=ISO-8859-1")
        XCTAssertEqual(String(data: masked, encoding: .utf8), "caf\u{E9} cr\u{E8}me, password=[REDACTED]")
        let utf16 = #"{"name":"Zo\#u{EB}","token":"t0k"}"#.data(using: .utf16BigEndian)!
        let json = Redactor.standard.redactedBody(utf16, contentType: "application/json; charset=\"utf-16be\"")
        XCTAssertEqual(String(data: json, encoding: .utf8), #"{"name":"Zo\#u{EB}","token":"[REDACTED]"}"#)
        XCTAssertEqual(Redactor.none.redactedBody(latin1, contentType: "text/plain; charset=latin1"), Data("caf\u{E9} cr\u{E8}me, password=s\u{FB}r".utf8))
    }

    func testUndeclaredEightBitTextIsMaskedAndOtherwiseKeptAsItCame() {
        let latin1 = "r\u{E9}sum\u{E9} password=hunter2".data(using: .isoLatin1)!
        XCTAssertEqual(String(data: Redactor.standard.redactedBody(latin1, contentType: "text/plain"), encoding: .utf8), "r\u{E9}sum\u{E9} password=[REDACTED]")
        let plain = "r\u{E9}sum\u{E9} only".data(using: .isoLatin1)!
        XCTAssertEqual(Redactor.standard.redactedBody(plain, contentType: "text/plain"), plain)
    }
}
