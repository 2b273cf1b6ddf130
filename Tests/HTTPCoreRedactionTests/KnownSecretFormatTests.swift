import Foundation
import HTTPCoreRedaction
import XCTest

/// Provider key formats are masked wherever they appear, under any name or none.
final class KnownSecretFormatTests: XCTestCase {
    /// One key of each documented format (made up, of the documented shape).
    static let keys = [
        "sk-" + String(repeating: "aB3xY9", count: 8),
        "sk-proj-" + String(repeating: "Qw3_rT-9", count: 10),
        "sk-ant-api03-" + String(repeating: "x7Kp", count: 23) + "-AA",
        "sk_live_51H8xYz" + String(repeating: "A1b2C3", count: 10),
        "sk_test_4eC39HqLyjWDarjtT1zdp7dc",
        "rk_live_51H8xYz" + String(repeating: "A1b2C3", count: 6),
        "whsec_" + String(repeating: "Ab1", count: 11),
        "pi_3PqX7tQv4pR2eZkT1b9yHc2M_secret_NGQGg8LXSBfjwDlbA3Fu8rgMx",
        "ghp_" + String(repeating: "a1B2c3", count: 6),
        "gho_" + String(repeating: "a1B2c3", count: 6),
        "ghs_" + String(repeating: "a1B2c3", count: 6),
        "github_pat_11ABCDEFG0" + String(repeating: "x_Y1", count: 20),
        "xoxb-17653672481-19874698323-pdFZKVeTuE8sk7oOcBrzbqgy",
        "xoxp-" + String(repeating: "1234-", count: 3) + "abcdef0123",
        "AKIAIOSFODNN7EXAMPLE",
        "ASIAY34FZKBOKMUTVV7A",
        "AIzaSyD" + String(repeating: "-a1B_", count: 6) + "x2Z9",
        "ya29.a0AfH6SMC" + String(repeating: "x1Y2", count: 8),
        "glpat-" + String(repeating: "xY1z", count: 5),
        "hf_" + String(repeating: "aB1c", count: 9),
        "npm_" + String(repeating: "aB1c", count: 9),
        "SG." + String(repeating: "aB1c", count: 6) + "." + String(repeating: "Xy9z", count: 11),
        "shpat_" + String(repeating: "0a1b", count: 8),
        "gsk_" + String(repeating: "aB1c", count: 13),
    ]

    func testEveryFormatIsMaskedInFreeText() {
        for key in Self.keys {
            XCTAssertEqual(Redactor.standard.redactedText("deploy failed with \(key). retry"), "deploy failed with [REDACTED]. retry", key)
        }
    }

    func testEveryFormatIsMaskedInJSONValuesHeadersAndURLs() {
        let redactor = Redactor.standard
        for key in Self.keys {
            let json = redactor.redactedBody(Data(#"{"note":"\#(key)","n":1}"#.utf8), contentType: "application/json")
            XCTAssertEqual(String(decoding: json, as: UTF8.self), #"{"note":"[REDACTED]","n":1}"#, key)
            XCTAssertEqual(redactor.redactedHeaderValue(key, name: "X-Debug"), Redactor.mask, key)
            XCTAssertEqual(redactor.redactedURL(string: "https://a.example/k/\(key)?q=\(key)&page=2"), "https://a.example/k/[REDACTED]?q=[REDACTED]&page=2", key)
        }
    }

    func testLookAlikesOfAFormatAreKept() {
        let kept = [
            "sk-learn-is-a-library-for-machine-learning", "sk-short1", "ghp_tooShort1", "AKIAlowercase1234567", "pi_3PqX7tQv4pR2eZkT1b9y",
            "cus_NffrFeUfNV2Hib", "chatcmpl-8XyZ1aBcDeFgHiJkLmNoPqRsT", "xoxb-", "task-1234", "ask-me-anything-2024",
        ]
        for word in kept {
            XCTAssertEqual(Redactor.standard.redactedText("see \(word) now"), "see \(word) now", word)
        }
    }
}
