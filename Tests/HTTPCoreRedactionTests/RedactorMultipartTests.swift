import Foundation
import HTTPCoreRedaction
import XCTest

/// Multipart and form bodies at `.standard`: every placement of a secret that the review
/// found, as a table, plus nesting and size that must neither crash nor leak.
final class RedactorMultipartTests: XCTestCase {
    private let secret = "hunter2-S3CRET"
    private let redactor = Redactor.standard

    private func multipart(_ parts: [(headers: String, content: String)], boundary: String = "XyZ") -> Data {
        var text = ""
        for part in parts { text += "--\(boundary)\r\n\(part.headers)\r\n\r\n\(part.content)\r\n" }
        return Data((text + "--\(boundary)--\r\n").utf8)
    }

    private func masked(_ body: Data, _ contentType: String?) -> String {
        String(decoding: redactor.redactedBody(body, contentType: contentType), as: UTF8.self)
    }

    func testContentDispositionIsParsedAsTheRFCsDescribeIt() {
        let dispositions = [
            #"Content-Disposition: form-data; name = "password""#: "spaces around =",
            #"Content-Disposition: form-data; filename="a; name=x"; name="password""#: "a quoted ; name= before the name",
            "Content-Disposition: form-data;\r\n name=\"password\"": "a folded line",
            "Content-Disposition: form-data; name='password'": "single quotes",
            #"Content-Disposition: form-data; name="pass\word""#: "a backslash escape",
            "content-disposition:form-data;name=password": "no spaces, a token",
            "Content-Disposition: form-data; name*=utf-8''pass%77ord": "RFC 5987",
            "Content-Disposition : form-data; name=\"password\"": "space before the colon",
        ]
        for (headers, reason) in dispositions {
            let output = masked(multipart([(headers, secret)]), "multipart/form-data; boundary=XyZ")
            XCTAssertFalse(output.contains(secret), "\(reason): \(output)")
            XCTAssertTrue(output.contains(Redactor.mask), reason)
        }
        let plain = masked(multipart([(#"Content-Disposition: form-data; filename="password"; name="bio""#, "hello")]), "multipart/form-data; boundary=XyZ")
        XCTAssertTrue(plain.contains("hello"), "a file named password is not a password field: \(plain)")
    }

    func testFormsWithALineBreakAtTheEndAreMasked() {
        for body in ["access_token=\(secret)&expires_in=3600\n", "access_token=\(secret)&expires_in=3600\r\n", "a=1&password=\(secret)\r\n"] {
            for type in [nil, "text/plain", "application/octet-stream"] {
                let output = masked(Data(body.utf8), type)
                XCTAssertFalse(output.contains(secret), "\(type ?? "unlabelled"): \(output)")
            }
        }
        let part = masked(multipart([(#"Content-Disposition: form-data; name="callback""#, "access_token=\(secret)&expires_in=3600")]), "multipart/form-data; boundary=XyZ")
        XCTAssertFalse(part.contains(secret), "a part without Content-Type holding a form: \(part)")
        XCTAssertTrue(part.contains("expires_in=3600"), part)
    }

    func testAnUnlabelledFormOverOneMebibyteIsMasked() {
        let filler = String(repeating: "x", count: 1 << 20)
        let output = masked(Data("note=\(filler)&password=\(secret)".utf8), nil)
        XCTAssertFalse(output.contains(secret))
        XCTAssertTrue(output.hasSuffix("password=\(Redactor.mask)"))
    }

    func testDeepNestingIsMaskedAsUnreadableWithoutCrashing() {
        var body = "password=\(secret)"
        var type = "application/x-www-form-urlencoded"
        for level in 0..<8_000 {
            let boundary = "b\(level)"
            body = "--\(boundary)\r\nContent-Type: \(type)\r\n\r\n\(body)\r\n--\(boundary)--\r\n"
            type = "multipart/mixed; boundary=\(boundary)"
        }
        let output = masked(Data(body.utf8), type)
        XCTAssertFalse(output.contains(secret))
        XCTAssertTrue(output.contains("[REDACTED: multipart nested too deep"), String(output.prefix(300)))
    }

    func testManyPartsAreMaskedEachOnce() {
        let parts = (0..<40_000).map { index in
            (headers: "Content-Disposition: form-data; name=\"\(index.isMultiple(of: 2) ? "password" : "field")\"", content: "v\(index)")
        }
        let output = masked(multipart(parts), "multipart/form-data; boundary=XyZ")
        XCTAssertEqual(output.components(separatedBy: Redactor.mask).count - 1, 20_000)
        XCTAssertTrue(output.contains("\r\n\r\nv39999\r\n"))
        XCTAssertFalse(output.contains("\r\n\r\nv39998\r\n"))
    }

    func testUnlabelledContentThatStartsWithABoundaryIsReadAsMultipart() {
        let inner = "--in\r\nContent-Disposition: form-data; name=\"password\"\r\n\r\nS3CR3T\r\n--in--\r\n"
        let outer = "--out\r\nContent-Disposition: form-data; name=\"file\"\r\n\r\n\(inner)\r\n--out--\r\n"
        let output = String(decoding: Redactor.standard.redactedBody(Data(outer.utf8), contentType: "multipart/form-data; boundary=out"), as: UTF8.self)
        XCTAssertEqual(output, outer.replacingOccurrences(of: "S3CR3T", with: "[REDACTED]"))
        let unlabelled = String(decoding: Redactor.standard.redactedBody(Data(inner.utf8), contentType: nil), as: UTF8.self)
        XCTAssertEqual(unlabelled, inner.replacingOccurrences(of: "S3CR3T", with: "[REDACTED]"))
        let prose = "-- a signature line\nnot multipart"
        XCTAssertEqual(String(decoding: Redactor.standard.redactedBody(Data(prose.utf8), contentType: nil), as: UTF8.self), prose)
    }
}
