import Foundation
@testable import HTTPCoreRedaction
import XCTest

/// `name=value` masking as form bodies and free text use it: each table row is an input and
/// the exact text logged.
final class RedactorPairsTests: XCTestCase {
    private func form(_ text: String, _ redactor: Redactor = .standard) -> String {
        String(decoding: redactor.redactedBody(Data(text.utf8), contentType: "application/x-www-form-urlencoded"), as: UTF8.self)
    }

    private func assertForms(_ cases: [(String, String)], file: StaticString = #filePath, line: UInt = #line) {
        for (input, expected) in cases {
            XCTAssertEqual(form(input), expected, input, file: file, line: line)
        }
    }

    func testValuesWithRawSpacesAndUTF8AreMaskedWhole() {
        assertForms([
            ("password=hunter 2&x=1", "password=[REDACTED]&x=1"),
            ("name=Zoë&password=ß", "name=Zoë&password=[REDACTED]"),
            ("password=hunter+2%21&remember=on", "password=[REDACTED]&remember=on"),
            ("comment=a b=c&token=x y", "comment=a b=c&token=[REDACTED]"),
            ("password==x=&b=2", "password=[REDACTED]&b=2"),
            ("a=1;password=x;b=2", "a=1;password=[REDACTED]"),
            ("password=ab;cd&b=2", "password=[REDACTED]&b=2"),
            ("password=", "password=[REDACTED]"),
        ])
    }

    func testBracketedAndDottedNamesAreMatchedByTheirParts() {
        assertForms([
            ("user[password]=x&user[name]=roy", "user[password]=[REDACTED]&user[name]=roy"),
            ("user[password][]=a&user[password][]=b", "user[password][]=[REDACTED]&user[password][]=[REDACTED]"),
            ("user[password][0]=a&user[name][0]=roy", "user[password][0]=[REDACTED]&user[name][0]=roy"),
            ("token[]=x&ids[]=1", "token[]=[REDACTED]&ids[]=1"),
            ("data[user][api_key]=k", "data[user][api_key]=[REDACTED]"),
            ("user.password=x&user.name=roy", "user.password=[REDACTED]&user.name=roy"),
            ("user%5Bpassword%5D=x", "user%5Bpassword%5D=[REDACTED]"),
        ])
    }

    func testCaseUnderscoreAndHyphenVariantsAreOneName() {
        assertForms([
            ("PASSWORD=a&Pass_Word=b&pass-word=c&Api-Key=d&APIKEY=e&client_Secret=f&name=roy",
             "PASSWORD=[REDACTED]&Pass_Word=[REDACTED]&pass-word=[REDACTED]&Api-Key=[REDACTED]&APIKEY=[REDACTED]&client_Secret=[REDACTED]&name=roy"),
        ])
    }

    func testEncodedAndDisguisedNamesAreDecodedBeforeMatching() {
        assertForms([
            ("pass%77ord=a&pass%2577ord=b&%70assword=c", "pass%77ord=[REDACTED]&pass%2577ord=[REDACTED]&%70assword=[REDACTED]"),
            ("pass%00word=a&password%00=b&%0Apassword=c", "pass%00word=[REDACTED]&password%00=[REDACTED]&%0Apassword=[REDACTED]"),
            ("pass+word=a&pass%E2%80%8Bword=b", "pass+word=[REDACTED]&pass%E2%80%8Bword=[REDACTED]"),
            ("%zz=1&%=2&password%=x&a=%", "%zz=1&%=2&password%=[REDACTED]&a=%"),
        ])
    }

    func testAURLInAFormValueGetsTheURLRules() {
        assertForms([
            ("grant_type=authorization_code&redirect_uri=https%3A%2F%2Fapp.example%2Fcb%3Fcode%3DSECRET%26state%3Dx",
             "grant_type=authorization_code&redirect_uri=https%3A%2F%2Fapp.example%2Fcb%3Fcode%3D[REDACTED]%26state%3Dx"),
            ("next=https://bob:pw@a.example/?token=SECRET&x=1", "next=https://a.example/?token=[REDACTED]&x=1"),
            ("note=see%20https%3A%2F%2Fa.example%2Fdocs", "note=see%20https%3A%2F%2Fa.example%2Fdocs"),
        ])
    }

    func testEmptyNamesAndItemsAreKeptInForms() {
        assertForms([
            ("=x&&a=&=", "=x&&a=&="),
            ("&&&", "&&&"),
            ("flag&password", "flag&password"),
        ])
    }

    func testFreeTextPairsUseTheSameRules() {
        let cases = [
            ("retry with a=1&tok%00en=x", "retry with a=1&tok%00en=[REDACTED]"),
            ("form: a=1&user[password]=hunter2&b=2", "form: a=1&user[password]=[REDACTED]&b=2"),
        ]
        for (input, expected) in cases {
            XCTAssertEqual(Redactor.standard.redactedText(input), expected, input)
        }
    }

    func testAFormBeyondTheCapIsReplacedByItsSize() {
        let filler = String(repeating: "x", count: Redactor.maximumFormBytes)
        let input = "note=\(filler)&password=S3cr3t"
        let output = form(input)
        let expected = "note=" + String(filler.dropFirst(5)) + "[REDACTED: \(input.utf8.count - Redactor.maximumFormBytes) more bytes]"
        XCTAssertTrue(output == expected, "…" + String(output.suffix(60)))
        XCTAssertTrue(output.hasSuffix("x[REDACTED: 21 more bytes]"), "…" + String(output.suffix(60)))
    }

    func testPathologicalFormsNeitherCrashNorGrow() {
        for unit in ["&", "=", ";", "%", "%25", "[", "]", "+", "%00", "%2", "a=%", "=&"] {
            let input = String(repeating: unit, count: 50_000)
            XCTAssertLessThanOrEqual(form(input).utf8.count, input.utf8.count * 12, unit)
        }
        XCTAssertEqual(form(String(repeating: "%25", count: 1_000)), String(repeating: "%25", count: 1_000))
    }

    // MARK: Names

    func testFormKeyCandidates() {
        let cases: [(String, [String])] = [
            ("password", ["password"]),
            ("user[password]", ["user[password]", "user", "password"]),
            ("user[password][]", ["user[password][]", "user[password]", "user", "password"]),
            ("token[]", ["token[]", "token"]),
            ("user.api_key", ["user.api_key", "user", "api_key"]),
            ("api-key", ["api-key"]),
            ("[]", ["[]"]),
            ("", [""]),
        ]
        for (name, expected) in cases {
            XCTAssertEqual(Redactor.formKeyCandidates(name), expected, name)
        }
    }

    func testFormDecoded() {
        let cases = [
            ("pass%77ord", "password"), ("%2574oken", "token"), ("%252574oken", "token"), ("tok%00en", "token"),
            ("%25%0074oken", "token"), ("a+b", "a b"), ("%zz%", "%zz%"), ("%", "%"), ("%E2%80%8Btoken%EF%BB%BF", "token"),
            ("caf%C3%A9", "café"), ("tok%FFen", "token"), ("plain", "plain"),
        ]
        for (name, expected) in cases {
            XCTAssertEqual(Redactor.formDecoded(Substring(name)), expected, name)
        }
    }
}
