import HTTPCore
import XCTest

final class HTTPMethodTests: XCTestCase {
    func testStandardMethodsHaveTheirTokens() {
        XCTAssertEqual(
            [HTTPMethod.get, .head, .post, .put, .patch, .delete, .options, .trace, .connect].map(\.rawValue),
            ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "TRACE", "CONNECT"]
        )
    }

    func testCustomTokenIsAccepted() {
        XCTAssertEqual(HTTPMethod("PURGE")?.rawValue, "PURGE")
        XCTAssertEqual(HTTPMethod("M-SEARCH")?.rawValue, "M-SEARCH")
    }

    func testInvalidTokensAreRejected() {
        for token in ["", "GE T", "GET\r\n", "GÉT", "(GET)", "a/b"] {
            XCTAssertNil(HTTPMethod(token), token)
        }
    }

    func testCustomTokenEqualsConstantWithSameSpelling() {
        XCTAssertEqual(HTTPMethod("GET"), .get)
        XCTAssertNotEqual(HTTPMethod("get"), .get)
    }

    /// The bit set answers as RFC 9110's `tchar` rule, spelled out, for every byte.
    func testTokenCharactersAreExactlyRFC9110s() {
        let tchar = Set("!#$%&'*+-.^_`|~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz".utf8)
        let accepted = (0...255).map(UInt8.init).filter(HTTPMethod.isTokenCharacter)
        XCTAssertEqual(accepted, tchar.sorted())
    }
}
