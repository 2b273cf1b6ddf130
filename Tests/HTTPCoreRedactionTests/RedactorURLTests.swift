@testable import HTTPCoreRedaction
import XCTest
import HTTPCoreTesting

/// URL redaction, class by class: each table row is an input and the exact text logged.
final class RedactorURLTests: XCTestCase {
    private let secret = "S3cr3t0042"

    private func assertRedacted(
        _ cases: [(String, String)], by redactor: Redactor = .standard, file: StaticString = #filePath, line: UInt = #line
    ) {
        for (input, expected) in cases {
            XCTAssertEqual(redactor.redactedURL(string: input), expected, input, file: file, line: line)
        }
    }

    // MARK: Nested URLs

    func testAURLInsideAValueGetsTheURLRulesAndKeepsItsEncoding() {
        assertRedacted([
            ("https://a.example/login?redirect_uri=https%3A%2F%2Fapp.example%2Fcb%3Fcode%3DSECRET%26state%3Dx",
             "https://a.example/login?redirect_uri=https%3A%2F%2Fapp.example%2Fcb%3Fcode%3D[REDACTED]%26state%3Dx"),
            ("https://a.example/?next=https://a.example/b?token=SECRET",
             "https://a.example/?next=https://a.example/b?token=[REDACTED]"),
            ("https://a.example/?return=%2F%2Fevil%3Ftoken%3DSECRET&page=2",
             "https://a.example/?return=%2F%2Fevil%3Ftoken%3D[REDACTED]&page=2"),
            ("https://a.example/?u=https%3a%2f%2fb.example%2f%3faccess_token%3dSECRET%26x%3d1",
             "https://a.example/?u=https%3a%2f%2fb.example%2f%3faccess_token%3d[REDACTED]%26x%3d1"),
            ("https://a.example/?next=https://b.example/cb%3Ftoken%3DSECRET",
             "https://a.example/?next=https://b.example/cb%3Ftoken%3D[REDACTED]"),
            ("https://a.example/?next=https://b.example/cb%23access_token%3DSECRET%26state%3D1",
             "https://a.example/?next=https://b.example/cb%23access_token%3D[REDACTED]%26state%3D1"),
            ("https://a.example/?filter=a%3D1%26password%3DSECRET", "https://a.example/?filter=a%3D1%26password%3D[REDACTED]"),
        ])
    }

    func testDoublyEncodedURLsAreDecodedAgain() {
        assertRedacted([
            ("https://a.example/?u=https%253A%252F%252Fb.example%252Fcb%253Ftoken%253DSECRET%2526x%253D1",
             "https://a.example/?u=https%253A%252F%252Fb.example%252Fcb%253Ftoken%253D[REDACTED]%2526x%253D1"),
            ("https://a.example/?a=https%3A%2F%2Fx%2F%3Fb%3Dhttps%253A%252F%252Fy%252F%253Ftoken%253DSECRET",
             "https://a.example/?a=https%3A%2F%2Fx%2F%3Fb%3Dhttps%253A%252F%252Fy%252F%253Ftoken%253D[REDACTED]"),
        ])
    }

    func testAMaskedNestedValueIsMaskedWholeWhateverItHoldsEncoded() {
        assertRedacted([
            // Raw structure: the secret is `abc%26def`, not `abc`.
            ("https://a.example/?next=/cb?token=abc%26def&x=1", "https://a.example/?next=/cb?token=[REDACTED]&x=1"),
            // Encoded once: the secret is `abc%26def` after decoding, `abc%2526def` as sent.
            ("https://a.example/?next=%2Fcb%3Ftoken%3Dabc%2526def%26x%3D1", "https://a.example/?next=%2Fcb%3Ftoken%3D[REDACTED]%26x%3D1"),
        ])
    }

    func testNestedURLsWithoutSecretsAreKeptByteForByte() {
        assertRedacted([
            ("https://a.example/?next=https%3A%2F%2Fa.example%2Fdocs%3Fpage%3D2%23top", "https://a.example/?next=https%3A%2F%2Fa.example%2Fdocs%3Fpage%3D2%23top"),
            ("https://a.example/?next=https://b.example/docs?page=2", "https://a.example/?next=https://b.example/docs?page=2"),
            ("https://a.example/?email=roy%40example.com&q=caf%C3%A9+au+lait", "https://a.example/?email=roy%40example.com&q=caf%C3%A9+au+lait"),
            ("https://a.example/?q=100%25&r=%%%&s=%zz", "https://a.example/?q=100%25&r=%%%&s=%zz"),
        ])
    }

    func testAnAllowedNestedURLAtStrictHasItsOwnValuesMasked() {
        assertRedacted([
            ("https://a.example/?redirect_uri=https%3A%2F%2Fapp.example%2Fcb%3Fstate%3Dx&page=2",
             "https://a.example/?redirect_uri=https%3A%2F%2Fapp.example%2Fcb%3Fstate%3D[REDACTED]&page=[REDACTED]"),
        ], by: Redactor(level: .strict, allowedQueryNames: ["redirect_uri"]))
    }

    func testNestedUserinfoIsRemoved() {
        assertRedacted([
            ("https://a.example/?next=https://bob:pw@b.example/x", "https://a.example/?next=https://b.example/x"),
            ("https://a.example/?next=https%3A%2F%2Fbob%3Apw%40b.example%2Fx", "https://a.example/?next=https%3A%2F%2Fb.example%2Fx"),
            ("https://web.archive.org/web/2020/https://bob:pw@b.example/?token=SECRET", "https://web.archive.org/web/2020/https://b.example/?token=[REDACTED]"),
        ])
    }

    func testNestingDeeperThanFourURLsIsMaskedWhole() {
        assertRedacted([
            ("https://a.example/?a=https://h/?b=https://h/?c=https://h/?d=https://h/?e=https://h/?x=1",
             "https://a.example/?a=https://h/?b=https://h/?c=https://h/?d=https://h/?e=[REDACTED]"),
            ("https://a.example/?a=https://h/?b=https://h/?c=https://h/?d=https://h/?x=1",
             "https://a.example/?a=https://h/?b=https://h/?c=https://h/?d=https://h/?x=1"),
            // URL structure still encoded after four rounds of decoding; plain text is kept.
            ("https://a.example/?v=%252525253Ftoken%252525253DSECRET", "https://a.example/?v=[REDACTED]"),
            ("https://a.example/?v=%2525252541", "https://a.example/?v=%2525252541"),
        ])
    }

    // MARK: Names

    func testNamesWithControlCharactersOrRepeatedEncodingAreMatched() {
        assertRedacted([
            ("https://a.example/?tok%00en=SECRET&x=1", "https://a.example/?tok%00en=[REDACTED]&x=1"),
            ("https://a.example/?token%00=SECRET", "https://a.example/?token%00=[REDACTED]"),
            ("https://a.example/?%09token%0A=SECRET", "https://a.example/?%09token%0A=[REDACTED]"),
            ("https://a.example/?%2574oken=SECRET", "https://a.example/?%2574oken=[REDACTED]"),
            ("https://a.example/?%252574oken=SECRET", "https://a.example/?%252574oken=[REDACTED]"),
            ("https://a.example/?%25%0074oken=SECRET", "https://a.example/?%25%0074oken=[REDACTED]"),
            ("https://a.example/?tok%E2%80%8Ben=SECRET", "https://a.example/?tok%E2%80%8Ben=[REDACTED]"),
            ("https://a.example/?pass%C2%ADword=SECRET", "https://a.example/?pass%C2%ADword=[REDACTED]"),
            ("https://a.example/?tok%FFen=SECRET", "https://a.example/?tok%FFen=[REDACTED]"),
            ("https://a.example/?ToKeN=SECRET&X-Amz-Signature=SECRET&x%2Damz%2Dcredential=SECRET",
             "https://a.example/?ToKeN=[REDACTED]&X-Amz-Signature=[REDACTED]&x%2Damz%2Dcredential=[REDACTED]"),
            // Still encoded after four rounds: the name may be anything, so its value is masked.
            ("https://a.example/?%2525252571=1", "https://a.example/?%2525252571=[REDACTED]"),
        ])
    }

    func testNamesAreMatchedByTheirParts() {
        assertRedacted([
            ("https://a.example/?user[token]=SECRET&user[name]=roy", "https://a.example/?user[token]=[REDACTED]&user[name]=roy"),
            ("https://a.example/?sig[]=SECRET&sig[]=SECRET", "https://a.example/?sig[]=[REDACTED]&sig[]=[REDACTED]"),
            ("https://a.example/?auth.key=SECRET&token%=SECRET", "https://a.example/?auth.key=[REDACTED]&token%=[REDACTED]"),
        ])
    }

    // MARK: Path parameters

    func testPathParametersAreMaskedLikeQueryItems() {
        assertRedacted([
            ("https://a.example/a;jsessionid=SECRET/b?x=1", "https://a.example/a;jsessionid=[REDACTED]/b?x=1"),
            ("https://a.example/cart;JSESSIONID=SECRET", "https://a.example/cart;JSESSIONID=[REDACTED]"),
            ("https://a.example/a;sessionid=SECRET;v=2/b", "https://a.example/a;sessionid=[REDACTED]/b"),
            ("https://a.example/a;v=2;sessionid=SECRET/b", "https://a.example/a;v=2;sessionid=[REDACTED]/b"),
            ("https://a.example/a;token=SECRET?q=1#top", "https://a.example/a;token=[REDACTED]?q=1#top"),
            ("/a;jsessionid=SECRET", "/a;jsessionid=[REDACTED]"),
            ("https://a.example/a%3Bjsessionid%3DSECRET/b", "https://a.example/a%3Bjsessionid%3D[REDACTED]/b"),
            ("https://a.example/token=SECRET/x", "https://a.example/token=[REDACTED]/x"),
            ("https://a.example/cb&token=SECRET", "https://a.example/cb&token=[REDACTED]"),
            ("https://a.example/a;v=1/b;page=2", "https://a.example/a;v=1/b;page=2"),
        ])
        assertRedacted([("https://a.example/a;v=1/b;flag", "https://a.example/a;v=[REDACTED]/b;flag")], by: .strict)
    }

    // MARK: Fragments

    func testHashBangFragmentsAreReadLikeQueries() {
        assertRedacted([
            ("https://a.example/#!/cb?access_token=SECRET", "https://a.example/#!/cb?access_token=[REDACTED]"),
            ("https://a.example/#!access_token=SECRET&x=1", "https://a.example/#!access_token=[REDACTED]&x=1"),
            ("https://a.example/#!/cb?state=abc&id_token=SECRET", "https://a.example/#!/cb?state=abc&id_token=[REDACTED]"),
            ("https://a.example/#!/inbox", "https://a.example/#!/inbox"),
        ])
    }

    func testFragmentAndQueryEdgeCases() {
        assertRedacted([
            ("https://a.example/#/route?token=SECRET", "https://a.example/#/route?token=[REDACTED]"),
            ("https://a.example/?token=ab;cd&x=1", "https://a.example/?token=[REDACTED]&x=1"),
            ("https://a.example/?x=1;token=ab;cd", "https://a.example/?x=1;token=[REDACTED]"),
            // The fragment is not part of the value: it is read on its own.
            ("https://a.example/?code=SECRET#_=_", "https://a.example/?code=[REDACTED]#_=_"),
            ("https://a.example/?token=SECRET#access_token=SECRET", "https://a.example/?token=[REDACTED]#access_token=[REDACTED]"),
            ("https://a.example/?token=SECRET&x=1#top", "https://a.example/?token=[REDACTED]&x=1#top"),
            ("https://a.example/?a=1?id_token=ab;SECRET&x=1", "https://a.example/?a=1?id_token=[REDACTED]&x=1"),
            ("https://a.example/#/route?token=", "https://a.example/#/route?token=[REDACTED]"),
            ("https://a.example/?a=1#token=x", "https://a.example/?a=1#token=[REDACTED]"),
            ("https://a.example/?x=1?token=SECRET", "https://a.example/?x=1?token=[REDACTED]"),
            ("https://a.example/??token=SECRET", "https://a.example/??token=[REDACTED]"),
            ("https://a.example/?a=1&amp;token=SECRET", "https://a.example/?a=1&amp;token=[REDACTED]"),
            ("https://a.example/?a=1&#38;token=SECRET", "https://a.example/?a=1&#38;token=[REDACTED]"),
            ("https://a.example/?token+=SECRET&+token=SECRET&to+ken=SECRET",
             "https://a.example/?token+=[REDACTED]&+token=[REDACTED]&to+ken=[REDACTED]"),
            ("https://a.example/?token=S+E%20C R&x=1", "https://a.example/?token=[REDACTED]&x=1"),
            ("https://a.example/?=SECRET&&token=&=&x=", "https://a.example/?=[REDACTED]&&token=[REDACTED]&=[REDACTED]&x="),
            ("https://a.example/?%00=SECRET&+=SECRET", "https://a.example/?%00=[REDACTED]&+=[REDACTED]"),
            ("https://a.example/docs#section-2", "https://a.example/docs#section-2"),
            ("https://a.example/#:~:text=token", "https://a.example/#:~:text=token"),
            ("https://a.example/a#b#token=SECRET", "https://a.example/a#b#token=[REDACTED]"),
        ])
        assertRedacted([("https://a.example/?=SECRET&&token=&=&x=", "https://a.example/?=[REDACTED]&&token=[REDACTED]&=[REDACTED]&x=[REDACTED]")], by: .strict)
    }

    func testTextThatIsNotAnAbsoluteURL() {
        assertRedacted([
            ("api.example.com/a?token=SECRET", "api.example.com/a?token=[REDACTED]"),
            ("/a?token=SECRET", "/a?token=[REDACTED]"),
            ("?token=SECRET", "?token=[REDACTED]"),
            ("token=SECRET&x=1", "token=[REDACTED]&x=1"),
            ("url=https://bob:pw@a.example/?x=1", "url=https://a.example/?x=1"),
            ("<https://bob:pw@a.example/p?access_token=SECRET>", "<https://a.example/p?access_token=[REDACTED]"),
            ("mailto:roy@example.com?subject=hi", "mailto:roy@example.com?subject=hi"),
            ("https://a.example?token=SECRET", "https://a.example?token=[REDACTED]"),
            ("https://bob:pw@a.example#access_token=SECRET", "https://a.example#access_token=[REDACTED]"),
            ("HTTPS://BOB:PW@A.EXAMPLE/?TOKEN=SECRET", "HTTPS://A.EXAMPLE/?TOKEN=[REDACTED]"),
            ("", ""),
        ])
    }

    // MARK: Userinfo

    func testUserinfoIsRemovedUpToTheLastAtSignBeforeThePath() {
        assertRedacted([
            ("https://user:pa@ss@host.example/p", "https://host.example/p"),
            ("https://user:p%40ss@host.example:8443/", "https://host.example:8443/"),
            ("//user:pw@host.example/p", "//host.example/p"),
            ("https://user:pw@host.example", "https://host.example"),
            ("https://user:pw@host.example\\p", "https://host.example\\p"),
            ("https://user:pa/ss@host.example/p", "https://host.example/p"),
            ("https://user:pa#ss@host.example/p", "https://host.example/p"),
            ("https://[::1]:8080/p?token=SECRET", "https://[::1]:8080/p?token=[REDACTED]"),
            ("https://host.example:abc/p", "https://host.example:abc/p"),
            ("https://host.example/@roy", "https://host.example/@roy"),
        ])
        assertRedacted([("https://bob:pw@a.example/?token=SECRET", "https://bob:pw@a.example/?token=SECRET")], by: .none)
        assertRedacted([("https://bob:pw@a.example/?token=SECRET&email=e", "https://bob:pw@a.example/?token=SECRET&email=[REDACTED]")],
                       by: Redactor(level: .none, sensitiveQueryNames: ["email"]))
    }

    func testAQueryAloneGetsTheQueryRules() {
        let cases: [(Redactor, String, String)] = [
            (.standard, "a=1&tok%00en=SECRET&next=https%3A%2F%2Fb%2F%3Fcode%3DSECRET", "a=1&tok%00en=[REDACTED]&next=https%3A%2F%2Fb%2F%3Fcode%3D[REDACTED]"),
            (.strict, "page=2&flag&&x=", "page=[REDACTED]&[REDACTED]&&x=[REDACTED]"),
            (Redactor(level: .strict, allowedQueryNames: ["flag"]), "page=2&flag", "page=[REDACTED]&flag"),
        ]
        for (redactor, query, expected) in cases {
            XCTAssertEqual(redactor.redactedQuery(Substring(query)), expected, query)
        }
    }

    // MARK: Cost

    func testTextBeyondTheCapIsReplacedByItsSize() {
        let prefix = "https://a.example/?" + String(repeating: "x=1&", count: Redactor.maximumURLBytes / 4)
        let input = prefix + "token=\(secret)"
        let kept = String(decoding: Array(input.utf8)[..<Redactor.maximumURLBytes], as: UTF8.self)
        XCTAssertEqual(Redactor.standard.redactedURL(string: input), kept + "[REDACTED: \(input.utf8.count - Redactor.maximumURLBytes) more bytes]")

        let straddling = String(repeating: "a", count: Redactor.maximumURLBytes - 20) + "?x=1&token=" + secret + secret
        XCTAssertEqual(Redactor.standard.redactedURL(string: straddling),
                       String(repeating: "a", count: Redactor.maximumURLBytes - 20) + "?x=1&token=[REDACTED][REDACTED: 11 more bytes]")

        // The cut never splits a character.
        let accented = String(repeating: "a", count: Redactor.maximumURLBytes - 1) + "é"
        XCTAssertEqual(Redactor.standard.redactedURL(string: accented),
                       String(repeating: "a", count: Redactor.maximumURLBytes - 1) + "[REDACTED: 2 more bytes]")
    }

    func testPathologicalInputNeitherCrashesNorLeaks() {
        let inputs = [
            String(repeating: "?", count: 100_000), String(repeating: "#", count: 100_000), String(repeating: ";", count: 100_000),
            String(repeating: "%", count: 100_000), String(repeating: "&", count: 100_000), String(repeating: "=", count: 100_000),
            String(repeating: "@", count: 100_000), String(repeating: "/", count: 100_000), String(repeating: "://", count: 30_000),
            String(repeating: "%25", count: 30_000), String(repeating: "?a=", count: 30_000), String(repeating: "%3F%3D", count: 20_000),
            "https://a.example/?%", "https://a.example/?%4", "https://a.example/?a=%", "https://a.example/#!", "https://a.example/#!!",
            "https://", "//", "/", "?", "#", ";", "=", "@", "https://@", "https://a@", "https://[", "https://[::1",
        ]
        for input in inputs {
            let output = Redactor.standard.redactedURL(string: input)
            XCTAssertLessThanOrEqual(output.utf8.count, Redactor.maximumURLBytes + 200, String(input.prefix(20)))
        }
        XCTAssertEqual(Redactor.standard.redactedURL(string: "?a=%&token=%\(secret)%"), "?a=%&token=[REDACTED]")
        XCTAssertEqual(Redactor.standard.redactedURL(string: String(repeating: "?", count: 10)), "?????[REDACTED]")
    }

    // MARK: Fuzz

    /// Random URLs built from the classes above, each with a secret planted as the value of a
    /// sensitive name; the secret never shows.
    func testPlantedSecretsNeverShow() {
        var random = SeededRandomNumberGenerator(seed: 0x5EC2E7)
        let names = ["token", "access_token", "code", "password", "key", "sig", "session", "sessionid", "jsessionid",
                     "X-Amz-Signature", "X-Amz-Credential", "X-Amz-Security-Token", "TOKEN", "Access-Token", "id_token"]
        for round in 0..<2_000 {
            let secret = "S3cr3t\(random.next(below: 1_000_000_000))"
            var url = plantedSecret(secret, name: names[random.next(below: names.count)], random: &random)
            for _ in 0..<random.next(below: 4) { url = wrapped(url, random: &random) }
            for redactor in [Redactor.standard, Redactor.strict] {
                let output = redactor.redactedURL(string: url)
                XCTAssertFalse(output.contains(secret), "round \(round): \(url) -> \(output)")
            }
        }
    }

    /// A URL, or part of one, holding `secret` as the value of `name` in one of the forms above.
    private func plantedSecret(_ secret: String, name: String, random: inout SeededRandomNumberGenerator) -> String {
        let spelled = spelledName(name, random: &random)
        let pair = "\(spelled)=\(["", "", "ab;"][random.next(below: 3)])\(secret)\(["", "", "+x", "%26y", " z", "%00"][random.next(below: 6)])"
        let filler = ["a=1", "state=x", "q=caf%C3%A9", "", "flag", "u=https%3A%2F%2Fh%2F", "p=%25"][random.next(below: 7)]
        let host = ["https://a.example", "https://bob:pw@a.example", "//a.example", "api.example.com", "", "https://[::1]:8443"][random.next(below: 6)]
        switch random.next(below: 9) {
        case 0: return "\(host)/p?\(filler)&\(pair)"
        case 1: return "\(host)/p?\(pair)&\(filler)#f"
        case 2: return "\(host)/p;\(pair)/q?\(filler)"
        case 3: return "\(host)/#!/cb?\(filler)&\(pair)"
        case 4: return "\(host)/#!\(pair)&\(filler)"
        case 5: return "\(host)/#/route?\(pair)"
        case 6: return "\(host)/p?\(filler)?\(pair)"
        case 7: return "\(host)/p?\(filler)&amp;\(pair)"
        default: return "\(host)/p?x=1#\(filler)&\(pair)"
        }
    }

    /// The name as an attacker or a sloppy client might spell it.
    private func spelledName(_ name: String, random: inout SeededRandomNumberGenerator) -> String {
        switch random.next(below: 8) {
        case 0: return percentEncoded(name, all: true)
        case 1: return percentEncoded(percentEncoded(name, all: true), all: true)
        case 2: return String(name.prefix(2)) + "%00" + String(name.dropFirst(2))
        case 3: return name + "%00"
        case 4: return "user[\(name)]"
        case 5: return "+" + name
        default: return name
        }
    }

    /// The URL as a value inside another URL: raw, or percent-encoded once or twice.
    private func wrapped(_ url: String, random: inout SeededRandomNumberGenerator) -> String {
        let parameter = ["next", "redirect_uri", "return", "u"][random.next(below: 4)]
        switch random.next(below: 3) {
        case 0 where !url.contains("&") && !url.contains("#"): return "https://outer.example/login?\(parameter)=\(url)"
        case 1: return "https://outer.example/login?\(parameter)=\(percentEncoded(percentEncoded(url, all: false), all: false))&x=1"
        default: return "https://outer.example/login?x=1&\(parameter)=\(percentEncoded(url, all: false))#top"
        }
    }

    private func percentEncoded(_ text: String, all: Bool) -> String {
        var output = ""
        for byte in text.utf8 {
            let isUnreserved = (byte >= 0x30 && byte <= 0x39) || (byte | 0x20 >= 0x61 && byte | 0x20 <= 0x7A) || byte == 0x2D || byte == 0x5F || byte == 0x2E
            output += !all && isUnreserved ? String(UnicodeScalar(byte)) : String(format: "%%%02X", byte)
        }
        return output
    }

    func testRandomLookingPathSegmentsAtStrictAndJWTsAtEveryLevel() {
        let jwt = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2ln"
        XCTAssertEqual(
            Redactor.strict.redactedURL(string: "https://api.example.com/reset/3f9a1c0e8b7d6a5f4e3d/keys/AKIAIOSFODNN7EXAMPLE/users/42"),
            "https://api.example.com/reset/[REDACTED]/keys/[REDACTED]/users/42"
        )
        XCTAssertEqual(
            Redactor.standard.redactedURL(string: "https://api.example.com/reset/3f9a1c0e8b7d6a5f4e3d/verify/\(jwt)"),
            "https://api.example.com/reset/3f9a1c0e8b7d6a5f4e3d/verify/[REDACTED]", "standard keeps ids it has no rule for, never a JWT"
        )
        XCTAssertEqual(Redactor.strict.redactedURL(string: "https://api.example.com/v2/orders/summary"), "https://api.example.com/v2/orders/summary")
    }

    func testAFragmentWithoutPairsIsMaskedWholeAtStrict() {
        XCTAssertEqual(Redactor.strict.redactedURL(string: "https://a.example/cb#S3CR3Tvalue"), "https://a.example/cb#[REDACTED]")
        XCTAssertEqual(Redactor.strict.redactedURL(string: "https://a.example/cb#!S3CR3Tvalue"), "https://a.example/cb#![REDACTED]")
        XCTAssertEqual(Redactor.standard.redactedURL(string: "https://a.example/docs#section-2"), "https://a.example/docs#section-2")
        XCTAssertEqual(Redactor.strict.redactedURL(string: "https://a.example/cb#state=ok"), "https://a.example/cb#state=[REDACTED]")
    }
}
