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
        XCTAssertEqual(Redactor.standard.redactedHeaders(headers).map(\.value), headers.map(\.value), "kept at .standard")
    }
}
