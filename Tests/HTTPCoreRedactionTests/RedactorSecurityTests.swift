import Foundation
import HTTPCoreRedaction
import XCTest

/// Hostile and odd inputs: masking must neither crash nor fall back to the raw body.
final class RedactorSecurityTests: XCTestCase {
    private let secret = "S3CR3T-do-not-leak"

    private func masked(_ text: String, _ type: String? = "application/json", truncated: Bool = false) -> String {
        String(decoding: Redactor.standard.redactedBody(Data(text.utf8), contentType: type, isTruncated: truncated), as: UTF8.self)
    }

    func testInjectionStringsAreDataNotInstructions() {
        let values = [
            "<script>alert('x')</script>", "'; DROP TABLE users; --", "\" OR \"1\"=\"1", "../../../etc/passwd",
            "%2e%2e%2f%2e%2e%2fetc%2fpasswd", "\\u0000\\n\\r", "${jndi:ldap://evil/a}",
        ]
        for value in values {
            let escaped = String(decoding: try! JSONSerialization.data(withJSONObject: [value], options: .fragmentsAllowed), as: UTF8.self).dropFirst().dropLast()
            let input = #"{"comment":\#(escaped),"password":\#(escaped)}"#
            XCTAssertEqual(masked(input), #"{"comment":\#(escaped),"password":"[REDACTED]"}"#, value)
        }
    }

    func testLongValuesUnicodeAndEmoji() {
        let long = String(repeating: "a", count: 20_000)
        XCTAssertEqual(masked(#"{"token":"\#(long)","k":"\#(long)"}"#), #"{"token":"[REDACTED]","k":"\#(long)"}"#)
        let unicode = #"{"名前":"ロイ","password":"🔑\#(secret)","émoji":"😀👍🏽"}"#
        XCTAssertEqual(masked(unicode), #"{"名前":"ロイ","password":"[REDACTED]","émoji":"😀👍🏽"}"#)
        XCTAssertEqual(masked(#"{"pass\ud83d\ude00word":"x","\u0070assword":"y"}"#), #"{"pass\ud83d\ude00word":"x","\u0070assword":"[REDACTED]"}"#)
    }

    func testDeepNestingDoesNotCrashOrLeak() {
        let depth = 10_000
        let deep = String(repeating: #"{"a":"#, count: depth) + #"{"password":"\#(secret)"}"# + String(repeating: "}", count: depth)
        let output = masked(deep)
        XCTAssertFalse(output.contains(secret))
        XCTAssertTrue(output.contains("[REDACTED: unreadable JSON"), String(output.suffix(80)))
        let arrays = String(repeating: "[", count: depth) + "\"\(secret)\"" + String(repeating: "]", count: depth)
        XCTAssertFalse(masked(arrays).contains(secret))
    }

    func testMalformedJSONNeverFallsBackToTheRawBody() {
        let inputs = [
            #"{"user":"roy","password":"\#(secret)""#,
            #"{"user":"roy","password":"\#(secret)"#,
            #"{"password" "\#(secret)"}"#,
            #"{"password":\#(secret)}"#,
            #"{'password':'\#(secret)'}"#,
            #"{"a":1,,"password":"\#(secret)"}"#,
            #"[{"token":"t"},"#,
            #"{"password":"\#(secret)\"#,
            "{\"password\":\"\(secret)\u{0}\"}",
        ]
        for input in inputs {
            let output = masked(input)
            XCTAssertFalse(output.contains(secret), "\(input) -> \(output)")
            XCTAssertTrue(output.contains("[REDACTED"), "\(input) -> \(output)")
        }
    }

    func testATruncatedBodyCutInsideASecretMasksIt() {
        XCTAssertEqual(masked(#"{"user":"roy","password":"\#(secret.prefix(4))"#, truncated: true), #"{"user":"roy","password":"[REDACTED]""#)
    }

    func testMixedCaseAndPercentEncodedNamesEverywhere() {
        let redactor = Redactor(level: .standard, sensitiveHeaderNames: ["X-Custom-Secret"], sensitiveQueryNames: ["MyToken"], sensitiveBodyKeys: ["MyField"])
        XCTAssertEqual(redactor.redactedHeaderValue(secret, name: "x-custom-SECRET"), "[REDACTED]")
        XCTAssertEqual(redactor.redactedURL(string: "https://a.example/?mytoken=\(secret)&%4Dy%54oken=\(secret)"),
                       "https://a.example/?mytoken=[REDACTED]&%4Dy%54oken=[REDACTED]")
        let form = String(decoding: redactor.redactedBody(Data("MYFIELD=\(secret)&my%5Ffield=\(secret)".utf8), contentType: "application/x-www-form-urlencoded"), as: UTF8.self)
        XCTAssertEqual(form, "MYFIELD=[REDACTED]&my%5Ffield=[REDACTED]")
    }

    func testMaskingIsOneWay() {
        let short = masked(#"{"password":"a"}"#)
        let long = masked(#"{"password":"\#(String(repeating: "b", count: 500))"}"#)
        XCTAssertEqual(short, long, "the output reveals nothing of the value, not even its length")
    }

    func testNestedJSONThatCannotBeReadToItsEndIsCutNotCopied() {
        let cases = [
            #"{"data":"{\"password\":\"\#(secret)\"} (retry 2)"}"#,
            #"{"data":"{\"password\":\"\#(secret)"}"#,
            #"{"data":"  {\"password\":\"\#(secret)\"}"}"#,
            #"{"data":"\n[{\"token\":\"\#(secret)\"}]"}"#,
        ]
        for input in cases {
            let output = masked(input)
            XCTAssertFalse(output.contains(secret), "\(input) -> \(output)")
            XCTAssertTrue(output.contains("[REDACTED"), output)
        }
        XCTAssertEqual(masked(#"{"note":"{not json","n":"[citation needed]"}"#), #"{"note":"{not json","n":"[citation needed]"}"#,
                       "text that merely starts with a bracket is kept")
    }

    func testBatchedGraphQLOperationsAreMasked() {
        let input = #"[{"operationName":"A","query":"mutation { login(password: \"\#(secret)\") { token } }"},{"query":"{ user(pin: 1234) { id } }"}]"#
        XCTAssertEqual(masked(input),
                       #"[{"operationName":"A","query":"mutation { login(password: ***) { token } }"},{"query":"{ user(pin: ***) { id } }"}]"#)
        XCTAssertEqual(masked(#"{"data":{"query":"\#(secret)"}}"#), #"{"data":{"query":"\#(secret)"}}"#, "a nested query key is data")
    }

    func testMultipartCutInsideASensitivePartLeaksNothing() {
        let full = "--B\r\nContent-Disposition: form-data; name=\"user\"\r\n\r\nroy\r\n"
            + "--B\r\nContent-Disposition: form-data; name=\"password\"\r\n\r\n\(secret)\r\n--B--\r\n"
        for cut in [full.count - 8, full.count - 12, full.count - 30] {
            let input = String(full.prefix(cut))
            let output = masked(input, "multipart/form-data; boundary=B")
            XCTAssertFalse(output.contains(secret.prefix(6)), "cut at \(cut): \(output)")
        }
        let unclosed = "--B\r\nContent-Disposition: form-data; name=\"password\"\r\n\r\n\(secret)"
        XCTAssertEqual(masked(unclosed, "multipart/form-data; boundary=B"),
                       "--B\r\nContent-Disposition: form-data; name=\"password\"\r\n\r\n[REDACTED]\r\n")
        let headersCut = "--B\r\nContent-Disposition: form-data; name=\"pass"
        XCTAssertEqual(masked(headersCut, "multipart/form-data; boundary=B"), "--B\r\n[REDACTED: incomplete part]")
    }

    func testTextFormsOfCredentials() {
        let cases: [(String, String)] = [
            (#"body {"password": "\#(secret)", "user": "roy"}"#, #"body {"password": "[REDACTED]", "user": "roy"}"#),
            ("password:\(secret) next", "password:[REDACTED] next"),
            ("x-api-key: \(secret)\nX-Auth-Token: \(secret)", "x-api-key: [REDACTED]\nX-Auth-Token: [REDACTED]"),
            ("Cookie: sid=\(secret)", "Cookie: [REDACTED]"),
            ("Authorization:\tBearer \(secret)", "Authorization:\tBearer [REDACTED]"),
            ("Bearer\n\(secret)", "Bearer\n[REDACTED]"),
            ("retry?token=\(secret)&x=1", "retry?token=[REDACTED]&x=1"),
        ]
        for (input, expected) in cases {
            XCTAssertEqual(Redactor.standard.redactedText(input), expected, input)
        }
    }

    func testOddContentTypesAndFormKeys() {
        let bom = "\u{FEFF}" + #"{"password":"\#(secret)"}"#
        XCTAssertFalse(masked(bom, nil).contains(secret))
        XCTAssertEqual(masked(#"{"token":"\#(secret)"}"#, "application/json, text/plain"), #"{"token":"[REDACTED]"}"#)
        XCTAssertEqual(masked("user[name]=roy&user[password]=\(secret)", "application/x-www-form-urlencoded"),
                       "user[name]=roy&user[password]=[REDACTED]")
    }

    func testInvalidEscapesNeverCopyStringsRaw() {
        for input in [
            #"{"query":"mutation { login(password: \"\#(secret)\") } \q"}"#,
            #"{"data":"{\"password\":\"\#(secret)\"}\q"}"#,
            #"{"password":"\#(secret)\x"}"#,
            #"{"data":"\u12"}"#,
        ] {
            XCTAssertFalse(masked(input).contains(secret), "\(input) -> \(masked(input))")
        }
    }

    func testBodiesAreMaskedByShapeWhateverTheirLabel() {
        let json = #"{"AuthParameters":{"PASSWORD":"\#(secret)"}}"#
        for type in ["application/x-amz-json-1.1", "text/javascript", "application/json,text/plain", "application/octet-stream", nil] {
            XCTAssertEqual(masked(json, type), #"{"AuthParameters":{"PASSWORD":"[REDACTED]"}}"#, type ?? "untyped")
        }
        let ndjson = #"{"password":"\#(secret)"}"# + "\n" + #"{"token":"\#(secret)","n":1}"# + "\n"
        XCTAssertEqual(masked(ndjson, "application/x-ndjson"), #"{"password":"[REDACTED]"}"# + "\n" + #"{"token":"[REDACTED]","n":1}"# + "\n")
        for type in [nil, "text/plain"] {
            XCTAssertEqual(masked("username=a&password=\(secret)", type), "username=a&password=[REDACTED]")
        }
        XCTAssertEqual(masked("plain words = not a form", "text/plain"), "plain words = not a form")
        XCTAssertEqual(masked("\u{FEFF}" + #"{"token":"\#(secret)"}"#, nil), "\u{FEFF}" + #"{"token":"[REDACTED]"}"#)
    }

    func testMultipartNamesBoundariesAndJSONParts() {
        let bracketed = "--B\r\nContent-Disposition: form-data; name=\"user[password]\"\r\n\r\n\(secret)\r\n--B--\r\n"
        XCTAssertFalse(masked(bracketed, "multipart/form-data; boundary=B").contains(secret))
        let extended = "--B\r\nContent-Disposition: form-data; name*=utf-8''password\r\n\r\n\(secret)\r\n--B--\r\n"
        XCTAssertFalse(masked(extended, "multipart/form-data; boundary=B").contains(secret))
        let operations = "--B\r\nContent-Disposition: form-data; name=\"operations\"\r\nContent-Type: application/json\r\n\r\n"
            + #"{"query":"mutation($f: Upload!) { up(f: $f) }","variables":{"password":"\#(secret)"}}"# + "\r\n--B--\r\n"
        let maskedOperations = masked(operations, "multipart/form-data; boundary=B")
        XCTAssertFalse(maskedOperations.contains(secret))
        XCTAssertTrue(maskedOperations.contains(#""variables":{"password":"[REDACTED]"}"#), maskedOperations)
        XCTAssertEqual(masked(bracketed, "multipart/form-data"), "[REDACTED: \(bracketed.utf8.count) bytes of multipart/form-data]")
        XCTAssertEqual(masked(bracketed, "multipart/form-data; boundary=Other"), "[REDACTED: \(bracketed.utf8.count) bytes of multipart/form-data]")
        XCTAssertEqual(masked("password[]=\(secret)&q=1", "application/x-www-form-urlencoded"), "password[]=[REDACTED]&q=1")
    }

    func testMoreTextShapes() {
        let cases: [(String, String)] = [
            ("{\n  \"password\" : \"\(secret)\"\n}", "{\n  \"password\" : \"[REDACTED]\"\n}"),
            ("password = \(secret)", "password = [REDACTED]"),
            (#"{"url":"https://api.example.com/x","token":"\#(secret)"}"#, #"{"url":"https://api.example.com/x","token":"[REDACTED]"}"#),
            ("token=\(secret);next=https://a.example.com/", "token=[REDACTED];next=https://a.example.com/"),
            ("failed: https://h/x?y=1,NSErrorFailingURLKey=https://u:\(secret)@h/?token=\(secret)",
             "failed: https://h/x?y=1,NSErrorFailingURLKey=https://h/?token=[REDACTED]"),
            ("Authorization:Bearer \(secret)", "Authorization:Bearer [REDACTED]"),
            ("password=\"hunter \(secret)\" rest", "password=\"[REDACTED]\" rest"),
            ("authorization bearer \(secret)", "authorization bearer [REDACTED]"),
            ("//u:\(secret)@host/x", "//host/x"),
        ]
        for (input, expected) in cases {
            XCTAssertEqual(Redactor.standard.redactedText(input), expected, input)
        }
    }
}
