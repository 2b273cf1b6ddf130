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

    func testASecretIsMaskedWholeWhenAByteItsAlphabetLacksStandsInIt() {
        let redactor = Redactor.standard
        // The run stops at `/`, the word does not: its tail is masked with it.
        XCTAssertEqual(redactor.redactedText("token xapp-1-A0123456789-1234567890123-abcdef0123/tailSECRET9 ok"), "token [REDACTED] ok")
        XCTAssertEqual(redactor.redactedText("with \(Self.keys[0])/x9Y8, then"), "with [REDACTED], then")
        XCTAssertEqual(redactor.redactedText("ends: \(Self.keys[0])."), "ends: [REDACTED].", "a sentence's full stop is kept")
        XCTAssertEqual(redactor.redactedText("pair \(Self.keys[0]):s3cr3tPart!"), "pair [REDACTED]!")
    }

    func testPrivateKeyBlocksAreMaskedWholeAndCertificatesKept() {
        let redactor = Redactor.standard
        let block = "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA1234\nabcd+/==\n-----END RSA PRIVATE KEY-----"
        XCTAssertEqual(redactor.redactedText("loaded\n\(block)\ndone"), "loaded\n[REDACTED]\ndone")
        XCTAssertEqual(redactor.redactedText("cut -----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXkt"), "cut [REDACTED]")
        let certificate = "-----BEGIN CERTIFICATE-----\nMIIDdzCCAl+gAwIBAgIE\n-----END CERTIFICATE-----"
        XCTAssertEqual(redactor.redactedText("chain \(certificate) ok"), "chain \(certificate) ok")
        let json = redactor.redactedBody(Data(#"{"pem":"-----BEGIN EC PRIVATE KEY-----\nMHcCAQEEI\n-----END EC PRIVATE KEY-----\n","n":1}"#.utf8), contentType: "application/json")
        XCTAssertEqual(String(decoding: json, as: UTF8.self), #"{"pem":"[REDACTED]\n","n":1}"#)
    }

    func testATelegramBotTokenIsMaskedWithItsBotIdAndLookAlikesKept() {
        let redactor = Redactor.standard
        XCTAssertEqual(redactor.redactedText("bot 110201543:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw done"), "bot [REDACTED] done")
        XCTAssertEqual(redactor.redactedHeaderValue("110201543:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw", name: "X-Debug"), Redactor.mask)
        for kept in ["at 12:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw now", "ts 110201543:ABHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw x", "t 10:30 ok"] {
            XCTAssertEqual(redactor.redactedText(kept), kept)
        }
    }

    func testCredentialsInConnectionStringsAreMaskedAndTheRestKept() {
        let redactor = Redactor.standard
        let cases = [
            ("postgres://app:s3cretpw@db.internal:5432/app", "postgres://db.internal:5432/app"),
            ("mongodb+srv://u:pw12345@cluster0.x.mongodb.net/db?retryWrites=true", "mongodb+srv://cluster0.x.mongodb.net/db?retryWrites=true"),
            ("redis://:hunter2@cache:6379/0", "redis://cache:6379/0"),
            ("Driver={ODBC Driver 17};Server=tcp:x.database.windows.net;Uid=sa;Pwd=S3cretPw!;Encrypt=yes",
             "Driver={ODBC Driver 17};Server=tcp:x.database.windows.net;Uid=sa;Pwd=[REDACTED];Encrypt=yes"),
            ("Server=x;Database=y;User Id=sa;Password=S3cretPw!;", "Server=x;Database=y;User Id=sa;Password=[REDACTED];"),
            ("jdbc:mysql://db:3306/app?user=app&password=S3cret", "jdbc:mysql://db:3306/app?user=app&password=[REDACTED]"),
        ]
        for (text, expected) in cases {
            XCTAssertEqual(redactor.redactedText("connect \(text) now"), "connect \(expected) now", text)
        }
    }

    func testAJSONWebEncryptionIsMaskedLikeAJWT() {
        let jwe = "eyJhbGciOiJSU0EtT0FFUCIsImVuYyI6IkEyNTZHQ00ifQ.OKOawDo13gRp2ojaHV7LFpZcgV7T6DVZKTyKOMTYUmKoTCVJRgckCL9kiMT03JGe"
            + ".48V1_ALb6US04U3b.5eym8TW_c8SuK0ltJ3rpYIzOeDQz7TALvtu6UG9oMo4vpzs9tX_EFShS8iB7j6jiSdiwkIr3ajwQzaBtQD_A.XFBoMYUZodetZdvTiFvSkQ"
        let redactor = Redactor.standard
        XCTAssertEqual(redactor.redactedText("jwe \(jwe) x"), "jwe [REDACTED] x")
        XCTAssertEqual(redactor.redactedHeaderValue(jwe, name: "X-Debug"), Redactor.mask)
        XCTAssertEqual(redactor.redactedURL(string: "https://a.example/p/\(jwe)?q=\(jwe)"), "https://a.example/p/[REDACTED]?q=[REDACTED]")
    }
}
