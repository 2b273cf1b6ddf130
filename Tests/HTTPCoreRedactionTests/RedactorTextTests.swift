import Foundation
import HTTPCoreRedaction
import XCTest
import HTTPCoreTesting

/// Free text (error messages, log lines): each class of secret an outside review found, and
/// what stays readable around it.
final class RedactorTextTests: XCTestCase {
    private func scrubbed(_ text: String, _ redactor: Redactor = .standard) -> String {
        redactor.redactedText(text)
    }

    private func check(_ cases: [(String, String)], file: StaticString = #filePath, line: UInt = #line) {
        for (input, expected) in cases {
            XCTAssertEqual(scrubbed(input), expected, input, file: file, line: line)
        }
    }

    func testCompactAndPrettyJSONWhateverTheFirstKey() {
        check([
            (#"{"error":"invalid_grant","token":"abc123"}"#, #"{"error":"invalid_grant","token":"[REDACTED]"}"#),
            (#"{"error":"x","password":"p a s s"}"#, #"{"error":"x","password":"[REDACTED]"}"#),
            ("{\n  \"user\": \"roy\",\n  \"secret\": \"s e c\"\n}", "{\n  \"user\": \"roy\",\n  \"secret\": \"[REDACTED]\"\n}"),
            (#"[{"id":1,"api_key":"k1"},{"id":2,"api_key":"k2"}]"#, #"[{"id":1,"api_key":"[REDACTED]"},{"id":2,"api_key":"[REDACTED]"}]"#),
            (#"{"auth":{"token":"t"},"ok":false}"#, #"{"auth":[REDACTED],"ok":false}"#),
            (#"{"newPassword":"a","count":3}"#, #"{"newPassword":"[REDACTED]","count":3}"#),
        ])
    }

    func testJSONAfterAName() {
        check([
            (#"body={"password":"hunter2","user":"roy"}"#, #"body={"password":"[REDACTED]","user":"roy"}"#),
            (#"request body: {"client_secret":"s"} rejected"#, #"request body: {"client_secret":"[REDACTED]"} rejected"#),
            (#"token={"value":"t","exp":1} next"#, "token=[REDACTED] next"),
        ])
    }

    func testEveryCookiePair() {
        check([
            ("Cookie: a=1; b=2; sid=S3CR3T", "Cookie: [REDACTED]"),
            ("Set-Cookie: session=S3CR3T; Path=/; HttpOnly\nnext line", "Set-Cookie: [REDACTED]\nnext line"),
            ("cookie:sid=S3CR3T", "cookie:[REDACTED]"),
            ("a=1; b=2", "a=1; b=2"),
        ])
    }

    func testNameColonValueWithoutSpaces() {
        check([
            ("token:abc", "token:[REDACTED]"),
            ("auth failed:token=abc", "auth failed:token=[REDACTED]"),
            ("error: password:hunter2", "error: password:[REDACTED]"),
            ("x-api-key:k,next", "x-api-key:[REDACTED],next"),
        ])
    }

    /// Each name's verdict is remembered for the text's last four names: names of the same
    /// length, and more names than are remembered, keep their own verdicts.
    func testRepeatedNamesKeepTheirOwnVerdicts() {
        check([
            ("secret=1 sector=2 secret=3 sector=4", "secret=[REDACTED] sector=2 secret=[REDACTED] sector=4"),
            (
                "a=1 token=2 b=3 c=4 d=5 e=6 token=7 a=8",
                "a=1 token=[REDACTED] b=3 c=4 d=5 e=6 token=[REDACTED] a=8"
            ),
            (#"{"user":"ann","passwd":"x"} {"user":"bo","passwd":"y"}"#, #"{"user":"ann","passwd":"[REDACTED]"} {"user":"bo","passwd":"[REDACTED]"}"#),
        ])
    }

    func testEscapedJSONInsideQuotes() {
        check([
            (#""{\"password\":\"hunter2\"}""#, #""{\"password\":\"[REDACTED]\"}""#),
            (#"failed with "{\"error\":\"x\",\"token\":\"a b\"}" again"#, #"failed with "{\"error\":\"x\",\"token\":\"[REDACTED]\"}" again"#),
        ])
    }

    func testRubyHashesAndCommandLineFlags() {
        check([
            (#"password => "hunter2""#, #"password => "[REDACTED]""#),
            ("password=>hunter2", "password=>[REDACTED]"),
            (":password => 'x y'", ":password => '[REDACTED]'"),
            ("run --password hunter2 --verbose", "run --password [REDACTED] --verbose"),
            ("run --password=hunter2", "run --password=[REDACTED]"),
            ("--token abc --api-key k", "--token [REDACTED] --api-key [REDACTED]"),
            ("the password hunter2 was wrong", "the password hunter2 was wrong"),
        ])
    }

    func testUserinfoWithoutAScheme() {
        check([
            ("connect to admin:hunter2@db.internal:5432 failed", "connect to admin:[REDACTED]@db.internal:5432 failed"),
            ("redis://u:S3CR3T@cache:6379/0", "redis://cache:6379/0"),
            ("at 10:30@noon", "at 10:30@noon"),
        ])
    }

    func testJSONWebTokensAnywhere() {
        let jwt = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.sflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c"
        check([
            ("rejected \(jwt)", "rejected [REDACTED]"),
            ("(\(jwt)),", "([REDACTED]),"),
            ("\"\(jwt)\"", "\"[REDACTED]\""),
            ("id=\(jwt)&x=1", "id=[REDACTED]&x=1"),
            ("eyJ is not a token", "eyJ is not a token"),
        ])
    }

    func testSchemeThenTokenPhrasesMaskCredentialShapedWordsOnly() {
        let cases: [(String, String)] = [
            ("jwt 9f8a7c6b5e4d", "jwt [REDACTED]"),
            ("JWT eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2ln", "JWT [REDACTED]"),
            ("invalid token 3f9a1c0e8b7d for ada", "invalid token [REDACTED] for ada"),
            ("api key sk_live_51Habc", "api key [REDACTED]"),
            ("wrong password hunter22!", "wrong password [REDACTED]"),
            ("hmac d41d8cd98f00b204 mismatch", "hmac [REDACTED] mismatch"),
            ("token expired for ada", "token expired for ada"),
            ("the secret sauce", "the secret sauce"),
            ("password 123", "password 123"),
        ]
        for (input, expected) in cases {
            XCTAssertEqual(scrubbed(input), expected, input)
        }
    }

    func testStrictTextMasksRandomLookingWordsAnywhere() {
        let text = "upload 3f9a1c0e8b7d6a5f4e3d failed for ZKIAIOSFODNN7EXAMPLE on build 1234 of api.example.com"
        XCTAssertEqual(scrubbed(text, .strict), "upload [REDACTED] failed for [REDACTED] on build 1234 of api.example.com")
        XCTAssertEqual(scrubbed(text, .standard), text, "standard keeps words it has no rule for")
    }

    func testMetadataKeysShapedLikeSecretsAreMasked() {
        let jwt = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2ln"
        let metadata = [
            "sk9f8a7c6b5e4d3c2b1a": "1", jwt: "x", "route": "/users",
            "trace_id": "4bf92f3577b34da6a3ce929d0e0e4736", "note": "key 3f9a1c0e8b7d6a5f4e3d",
        ]
        XCTAssertEqual(Redactor.standard.redactedMetadata(metadata), [
            "redacted_key": "[REDACTED]", "redacted_key_2": "[REDACTED]", "route": "/users",
            "trace_id": "4bf92f3577b34da6a3ce929d0e0e4736", "note": "key [REDACTED]",
        ])
        XCTAssertEqual(Redactor.strict.redactedMetadata(["sk9f8a7c6b5e4d3c2b1a": "1", "route": "/users"]), [
            "redacted_key": "[REDACTED]", "route": "[REDACTED]",
        ], "at .strict every value is masked, and a secret-shaped key too")
        XCTAssertEqual(Redactor.none.redactedMetadata(metadata), metadata)
    }

    func testCredentialSchemesAndURLs() {
        check([
            ("Authorization: Bearer abc", "Authorization: Bearer [REDACTED]"),
            ("Authorization: Token abc", "Authorization: Token [REDACTED]"),
            ("got basic YWxhZGRpbjpvcGVu here", "got basic [REDACTED] here"),
            ("GET https://u:p@a.example/x?token=t&y=2, retrying", "GET https://a.example/x?token=[REDACTED]&y=2, retrying"),
            ("see //u:p@h/x", "see //h/x"),
        ])
    }

    func testAURLWithEscapedSlashesIsMaskedAsThePlainOneAndKeepsItsEscapes() {
        // An error text that quotes a JSON answer, where PHP and many others write `\/`.
        check([
            (#"{"error":"bad url https:\/\/alice:hunter2@api.example.com\/v1?sig=abc123secret&page=2\"}"#,
             #"{"error":"bad url https:\/\/api.example.com\/v1?sig=[REDACTED]&page=2\"}"#),
            (#"see https:\/\/api.example.com\/cb?redirect_uri=https%3A%2F%2Fa%2Fcb%3Fcode%3DSECRET%26state%3Dx now"#,
             #"see https:\/\/api.example.com\/cb?redirect_uri=https%3A%2F%2Fa%2Fcb%3Fcode%3D[REDACTED]%26state%3Dx now"#),
            (#"at https:\/\/api.example.com\/v1?token=abc123secret, retrying"#, #"at https:\/\/api.example.com\/v1?token=[REDACTED], retrying"#),
        ])
        let urls = [
            "https://alice:hunter2@api.example.com/v1?sig=abc123secret&page=2",
            "https://api.example.com/cb?redirect_uri=https%3A%2F%2Fa%2Fcb%3Fcode%3DSECRET%26state%3Dx",
            "https://api.example.com/verify/eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.abcdefghijk",
            "https://api.example.com/a;jsessionid=ABCDEF123/b",
            "https://api.example.com/cb#access_token=SECRET1&state=2",
            "postgres://app:s3cr3t@db.internal:5432/orders",
            "https://api.example.com/v1/orders?page=2",
        ]
        for redactor in [Redactor.standard, .strict] {
            for url in urls {
                let escaped = url.replacingOccurrences(of: "/", with: #"\/"#)
                XCTAssertEqual(
                    redactor.redactedText("GET \(escaped) failed"),
                    "GET " + redactor.redactedURL(string: url).replacingOccurrences(of: "/", with: #"\/"#) + " failed",
                    "\(redactor.level): \(url)"
                )
            }
        }
    }

    func testWhitespaceAndLevels() {
        let text = "a\tpassword = x\n\n  token: y  "
        XCTAssertEqual(scrubbed(text), "a\tpassword = [REDACTED]\n\n  token: [REDACTED]  ")
        XCTAssertEqual(scrubbed(text, .none), text)
        XCTAssertEqual(scrubbed("user=roy&password=x", Redactor(level: .standard, sensitiveBodyKeys: ["user"])), "user=[REDACTED]&password=[REDACTED]")
    }

    func testLongTextIsCutAtAWordNeverInsideOne() {
        let filler = String(repeating: "word ", count: Redactor.maximumScrubbedTextBytes / 5 - 2)
        let text = filler + "xxxxxxxxpassword=S3CR3T-straddling-the-cut and more"
        let output = scrubbed(text)
        XCTAssertFalse(output.contains("S3CR3T"))
        XCTAssertFalse(output.contains("xxxx"), "the cut word is dropped whole")
        XCTAssertTrue(output.hasSuffix("…[truncated, \(text.utf8.count - filler.utf8.count) more bytes]"), String(output.suffix(80)))
        XCTAssertTrue(output.hasPrefix(filler))
    }

    func testAdversarialInputNeverCrashes() {
        let inputs = [
            String(repeating: "{\"a\":\"", count: 20_000), String(repeating: "\"", count: 50_000), String(repeating: "password=", count: 10_000),
            String(repeating: "\\\"", count: 30_000), String(repeating: "--token ", count: 10_000), "token:", "token=\"", "Bearer",
            String(repeating: "a", count: 200_000), "\u{FFFD}\u{0}password=\u{0}x", String(repeating: "https://", count: 10_000),
        ]
        for input in inputs {
            let output = scrubbed(input)
            XCTAssertLessThanOrEqual(output.utf8.count, Redactor.maximumScrubbedTextBytes + 64 + input.utf8.count / 2 + 64)
        }
    }

    func testPlantedSecretsInRandomTextNeverComeOut() {
        var random = SeededRandomNumberGenerator(seed: 0x7E47)
        let names = ["password", "token", "api_key", "client_secret", "newPassword", "Authorization", "X-Api-Key", "sessionid"]
        // Shapes that stand as words in real text get spaces around them; the others may be glued
        // to what surrounds them.
        let shapes: [(glued: Bool, make: (String, String) -> String)] = [
            (true, { "\($0)=\($1)" }), (true, { "\($0): \($1)" }), (true, { "\"\($0)\":\"\($1)\"" }), (true, { "\"\($0)\" : \"a \($1)\"" }),
            (true, { "\($0)=>\($1)" }), (false, { "--\($0) \($1)" }), (true, { "\\\"\($0)\\\":\\\"\($1)\\\"" }),
            (false, { "https://h.example/x?\($0)=\($1)" }), (false, { "Cookie: a=1; \($0)=\($1)" }), (true, { "\($0):\($1)" }),
            (false, { ":\($0) => '\($1)'" }), (false, { "Bearer \($1)" }), (false, { "u:\($1)@db.example:5432 \($0)" }),
        ]
        let fillers = ["error:", "{", "}", ",", "failed", "\n", "body=", "(", ")", "[", "]", "at", "retry", "&", ";", "x=1"]
        // Glued text is glued with punctuation: a letter before a name makes it another word.
        let punctuation = fillers.filter { !($0.first?.isLetter ?? false) }
        for round in 0..<2_000 {
            let secret = "S3cr3t\(random.next() % 1_000_000)"
            let shape = shapes.randomElement(using: &random)!
            let glue = shape.glued && Bool.random(using: &random) ? "" : " "
            let pool = glue.isEmpty ? punctuation : fillers
            let before = (0..<Int(random.next() % 4)).map { _ in pool.randomElement(using: &random)! }.joined(separator: glue)
            let after = (0..<Int(random.next() % 4)).map { _ in pool.randomElement(using: &random)! }.joined(separator: glue)
            let text = [before, shape.make(names.randomElement(using: &random)!, secret), after].joined(separator: glue)
            let output = scrubbed(text)
            XCTAssertFalse(output.contains("S3cr3t"), "round \(round): \(text) -> \(output)")
            if output.contains("S3cr3t") { return }
        }
    }

    func testTextMaskedAlreadyIsKeptAsItIs() {
        // A joined answer of masked deltas is read again: a mask after a credential word or a
        // sensitive name stays one mask, its brackets whole.
        for text in ["The key [REDACTED] works", "password=[REDACTED] and token: [REDACTED].", "Bearer [REDACTED]", "secret [REDACTED]]"] {
            XCTAssertEqual(Redactor.standard.redactedText(text), text)
            XCTAssertEqual(Redactor.standard.redactedText(Redactor.standard.redactedText(text)), text)
        }
    }
}
