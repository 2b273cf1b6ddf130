import Foundation
import HTTPCore
import XCTest

/// Header redaction at `.standard`: credential headers by every common name and spelling,
/// and URL-valued headers by the URL rules.
final class RedactorHeaderTests: XCTestCase {
    private let secret = "S3CRET-value"

    func testCommonCredentialHeadersAreMaskedWhateverTheirSpelling() {
        let names = [
            "X-Amz-Security-Token", "X-CSRF-Token", "X-XSRF-TOKEN", "Api-Key", "X-Goog-Api-Key", "Private-Token",
            "X-Access-Token", "X-Refresh-Token", "X-Forwarded-Authorization", "x_api_key", " Authorization ", "X_Auth_Token",
        ]
        for name in names {
            let headers = Redactor.standard.redactedHeaders(HTTPHeaders([HTTPHeaders.Field(name: name, value: secret)]))
            XCTAssertEqual(headers.fields.first?.value, Redactor.mask, name)
            XCTAssertEqual(headers.fields.first?.name, name, "the name is kept as written")
        }
        let configured = Redactor(sensitiveHeaderNames: ["X_Tenant_Key"])
        XCTAssertTrue(configured.masksHeader(named: "x-tenant-key"))
        XCTAssertFalse(Redactor.standard.masksHeader(named: "X-Request-ID"))
    }

    func testANameThatHoldsMoreThanANameGetsTheTextRules() {
        let jwt = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.abcdefghijk"
        let headers = HTTPHeaders([
            .init(name: "X-Debug-Authorization: Bearer abc123", value: "1"),
            .init(name: "Bearer abc123", value: "2"),
            .init(name: jwt, value: "3"),
            .init(name: "X-Debug", value: "token=abc123"),
            .init(name: "Content-Type", value: "application/json"),
            .init(name: "X-Request-Id", value: "req_8f14e45fceea167a"),
            .init(name: "X-Amz-Content-Sha256", value: "UNSIGNED-PAYLOAD"),
        ])
        let names = [
            "X-Debug-Authorization: Bearer [REDACTED]", "Bearer [REDACTED]", "[REDACTED]", "X-Debug", "Content-Type",
            "X-Request-Id", "X-Amz-Content-Sha256",
        ]
        XCTAssertEqual(Redactor.standard.redactedHeaders(headers).map(\.name), names)
        XCTAssertEqual(
            Redactor.standard.redactedHeaders(headers).map(\.value),
            ["1", "2", "3", "token=[REDACTED]", "application/json", "req_8f14e45fceea167a", "UNSIGNED-PAYLOAD"],
            "values are judged by the name as sent: one that mentions a secret keeps a number"
        )
        XCTAssertEqual(Redactor.strict.redactedHeaders(headers).map(\.name), names, "a name is not masked for looking random at .strict")
        XCTAssertEqual(Redactor.none.redactedHeaders(headers), headers)
    }

    func testURLValuedHeadersGetTheURLRules() {
        let headers: HTTPHeaders = [
            "Location": "https://user:pw@api.example.com/cb?code=\(secret)&state=ok",
            "Content-Location": "/files?token=\(secret)",
            "Referer": "https://app.example.com/reset?password=\(secret)",
            "Link": "<https://api.example.com/page?access_token=\(secret)&page=2>; rel=\"next\"",
        ]
        let redacted = Redactor.standard.redactedHeaders(headers)
        for field in redacted {
            XCTAssertFalse(field.value.contains(secret), "\(field.name): \(field.value)")
            XCTAssertTrue(field.value.contains(Redactor.mask), "\(field.name): \(field.value)")
        }
        XCTAssertEqual(redacted["Location"], "https://api.example.com/cb?code=\(Redactor.mask)&state=ok")
        XCTAssertTrue(redacted["Link"]?.contains("page=2") ?? false)
    }

    func testNewURLNamesAreMasked() {
        for name in ["X-Amz-Signature", "X-Amz-Credential", "X-Amz-Security-Token", "sessionid", "JSESSIONID"] {
            let url = Redactor.standard.redactedURL(string: "https://bucket.example.com/o?\(name)=\(secret)&x=1")
            XCTAssertEqual(url, "https://bucket.example.com/o?\(name)=\(Redactor.mask)&x=1", name)
        }
    }

    func testAllowedHeaderValuesGetTheTextRulesAtStrict() {
        let headers: HTTPHeaders = [
            "User-Agent": "MyApp/1.0 token=S3CR3T", "Accept": "application/json", "Cache-Control": "no-cache, Bearer S3CR3T",
        ]
        XCTAssertEqual(
            Redactor.strict.redactedHeaders(headers).map(\.value),
            ["MyApp/1.0 token=[REDACTED]", "application/json", "no-cache, Bearer [REDACTED]"]
        )
        XCTAssertEqual(
            Redactor.standard.redactedHeaders(headers).map(\.value),
            ["MyApp/1.0 token=[REDACTED]", "application/json", "no-cache, Bearer [REDACTED]"],
            "every header value gets the text rules at .standard too"
        )
    }

    func testCredentialsUnderCustomHeaderNamesAreMasked() {
        let names = [
            "X-Custom-Auth", "X-Signature", "X-Hub-Signature-256", "X-Shopify-Hmac-Sha256", "X-Session", "X-Client-Key",
            "X-Webhook-Signatures", "Stripe-Signature", "X-Auth",
        ]
        for name in names {
            XCTAssertTrue(Redactor.standard.masksHeader(named: name), name)
            XCTAssertFalse(Redactor.none.masksHeader(named: name), "\(name) at .none")
        }
        for kept in ["X-Session-Expires", "Sec-WebSocket-Key", "Sec-WebSocket-Accept", "Keep-Alive", "X-Keyboard-Layout", "X-Request-ID"] {
            XCTAssertFalse(Redactor.standard.masksHeader(named: kept), kept)
        }
        XCTAssertTrue(Redactor.standard.masksQueryItem(named: "hmac"))
        XCTAssertFalse(Redactor.standard.masksBodyKey("sortKey"), "header words are for header names only")
    }

    func testCredentialShapedValuesAreMaskedUnderAnyHeaderName() {
        let jwt = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U"
        let headers: HTTPHeaders = [
            "X-Forwarded-Credential": "Bearer \(secret)", "X-Upstream": "Basic dXNlcjpwYXNz", "X-Identity": jwt, "X-Plain": "hello world",
        ]
        XCTAssertEqual(
            Redactor.standard.redactedHeaders(headers).map(\.value),
            ["Bearer [REDACTED]", "Basic [REDACTED]", Redactor.mask, "hello world"]
        )
    }

    func testOrdinaryValuesAreKeptAndAnythingTheTextRulesWouldTouchIsScrubbed() {
        let kept: HTTPHeaders = [
            "Accept": "application/json", "Accept-Encoding": "gzip, deflate, br", "Cache-Control": "no-cache",
            "X-Request-ID": "7f3c2a1b-9d8e-4f6a-b5c4-3e2d1f0a9b8c", "X-Note": "token expired",
        ]
        XCTAssertEqual(Redactor.standard.redactedHeaders(kept).map(\.value), kept.map(\.value))
        let scrubbed: HTTPHeaders = [
            "X-Args": "--password hunter22", "X-Note": "jwt 9f8a7c6b5e4d", "X-Debug": "dsn postgres://app:hunter22@db/x",
            "X-Blob": "eyJwYXNzd29yZCI6Imh1bnRlcjIifQ",
        ]
        for field in Redactor.standard.redactedHeaders(scrubbed) {
            XCTAssertFalse(field.value.contains("hunter2") || field.value.contains("9f8a7c6b5e4d") || field.value.contains("eyJw"), "\(field.name): \(field.value)")
        }
    }

    func testBaggageAndTracestateKeepKeysAndLoseValues() {
        let headers: HTTPHeaders = [
            "baggage": "userId=alice@example.com,isProduction=false;ttl=30, tenant = acme",
            "tracestate": "rojo=00f067aa0ba902b7,congo=t61rcWkgMzE",
        ]
        XCTAssertEqual(
            Redactor.standard.redactedHeaders(headers).map(\.value),
            ["userId=[REDACTED],isProduction=[REDACTED];ttl=[REDACTED], tenant =[REDACTED]", "rojo=[REDACTED],congo=[REDACTED]"]
        )
        XCTAssertEqual(Redactor.none.redactedHeaders(headers).map(\.value), headers.map(\.value), "kept at .none")
    }

    func testURLValuedHeadersOfAnyNameAndRefreshGetTheURLRules() {
        let headers: HTTPHeaders = [
            "Refresh": "0; url=https://app.example.com/reset?token=\(secret)&step=2",
            "X-Callback-URL": "https://u:\(secret)@hooks.example.com/in?sig=\(secret)&id=7",
        ]
        XCTAssertEqual(
            Redactor.standard.redactedHeaders(headers).map(\.value),
            ["0; url=https://app.example.com/reset?token=[REDACTED]&step=2", "https://hooks.example.com/in?sig=[REDACTED]&id=7"]
        )
    }
}
