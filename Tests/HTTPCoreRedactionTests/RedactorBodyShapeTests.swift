import Foundation
import HTTPCoreRedaction
import XCTest

/// Bodies are masked by their shape where the label misleads.
final class RedactorBodyShapeTests: XCTestCase {
    private func masked(_ body: String, _ type: String?) -> String {
        String(decoding: Redactor.standard.redactedBody(Data(body.utf8), contentType: type), as: UTF8.self)
    }

    func testJSONLabelledAsAFormIsMaskedAsJSON() {
        let output = masked(#"{"password":"S3CRET","name":"Roy"}"#, "application/x-www-form-urlencoded")
        XCTAssertEqual(output, #"{"password":"[REDACTED]","name":"Roy"}"#)
        XCTAssertEqual(masked("password=S3CRET&name=Roy", "application/x-www-form-urlencoded"), "password=[REDACTED]&name=Roy")
    }

    func testJSONBehindTheAntiHijackingPrefixIsMasked() {
        for type in ["application/json", "text/plain", nil] {
            for separator in ["\n", ",\n", ""] {
                let output = masked(")]}'" + separator + #"{"token":"S3CRET","id":1}"#, type)
                XCTAssertEqual(output, ")]}'" + separator + #"{"token":"[REDACTED]","id":1}"#, "\(type ?? "unlabelled") \(separator.debugDescription)")
            }
        }
    }

    func testFormsWithRawSpacesAndUTF8InValuesAreMasked() {
        let cases: [(String?, String, String)] = [
            (nil, "password=hunter 2&x=1", "password=[REDACTED]&x=1"),
            ("text/plain", "name=Zo\u{00EB}&password=\u{00DF}\u{00DF} 2\r\n", "name=Zo\u{00EB}&password=[REDACTED]"),
            ("application/x-www-form-urlencoded", "new_password=p w&confirm=\u{1F600}", "new_password=[REDACTED]&confirm=\u{1F600}"),
        ]
        for (type, input, expected) in cases {
            XCTAssertEqual(masked(input, type), expected, input)
        }
        let prose = "Dear user, a=b is not a form"
        XCTAssertEqual(masked(prose, "text/plain"), prose, "a space before the first = is prose")
    }

    func testServerSentEventsAreMaskedLineByLineJSONDataByTheJSONRules() {
        let stream = "event: delta\r\ndata: {\"t\":\"Hel\",\"api_key\":\"sk-live-123\"}\r\n\r\ndata: Authorization: Bearer abc.def.ghi\n\n: note\n"
        let output = masked(stream, "text/event-stream; charset=utf-8")
        XCTAssertEqual(
            output,
            "event: delta\r\ndata: {\"t\":\"Hel\",\"api_key\":\"[REDACTED]\"}\r\n\r\ndata: Authorization: Bearer [REDACTED]\n\n: note\n"
        )
        let strict = Redactor(level: .strict).redactedBody(Data(stream.utf8), contentType: "text/event-stream")
        XCTAssertFalse(String(decoding: strict, as: UTF8.self).contains("sk-live"))
    }

    func testStreamedMessageDataIsMaskedAsJSONOnlyWhenItIsJSON() {
        let cases: [(Redactor, String, Bool, String)] = [
            (.standard, #"{"t":"Hi","api_key":"sk-1"}"#, false, #"{"t":"Hi","api_key":"[REDACTED]"}"#),
            (.standard, "[DONE]", false, "[DONE]"),
            (.standard, "Bearer abc.def.ghi", false, "Bearer [REDACTED]"),
            (.standard, #"{"t":"Hi","api_key":"sk-"#, true, #"{"t":"Hi","api_key":"[REDACTED]""#),
            (Redactor(level: .strict), "[DONE]", false, "[REDACTED: 6 bytes of text]"),
        ]
        for (redactor, data, isTruncated, expected) in cases {
            let output = redactor.redactedStreamData(Data(data.utf8), isTruncated: isTruncated)
            XCTAssertEqual(String(decoding: output, as: UTF8.self), expected, data)
        }
        XCTAssertEqual(masked("data: [DONE]\n\n", "text/event-stream"), "data: [DONE]\n\n", "a stream's body by the same rule")
    }

    /// Each shape an outside review sent a secret through, at `.standard`: masked, or replaced
    /// by a note that says what it hides; never passed through as if it were safe.
    func testEveryBodyShapeIsMaskedOrNotedNeverPassedThrough() {
        let gzip = Data([0x1F, 0x8B, 0x08, 0x00]) + Data("password=hunter2".utf8)
        let utf16 = Data(#"{"password":"hunter2"}"#.utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] })
        let cases: [(String, String?, Data, String)] = [
            ("an XML comment", "application/xml", Data("<a><!-- password=hunter2 --><b>1</b></a>".utf8), "<a><!-- password=[REDACTED] --><b>1</b></a>"),
            ("JSONP", "application/javascript", Data(#"cb({"password":"hunter2","n":1})"#.utf8), #"cb({"password":"[REDACTED]","n":1})"#),
            ("YAML", "application/yaml", Data("user: ada\npassword: hunter2\n".utf8), "user: ada\npassword: [REDACTED]\n"),
            ("GraphQL as text/plain", "text/plain", Data(#"mutation { login(password: "hunter2") { token } }"#.utf8),
             #"mutation { login(password: "[REDACTED]") { token } }"#),
            ("JSON in a form value", "application/x-www-form-urlencoded", Data(#"data={"password":"hunter2"}&x=1"#.utf8),
             "data=%7B%22password%22%3A%22[REDACTED]%22%7D&x=1"),
            ("a CRLF form as text/plain", "text/plain", Data("user=ada\r\npassword=hunter2\r\n".utf8), "user=ada\r\npassword=[REDACTED]\r\n"),
            ("base64 JSON in text", "text/plain", Data("payload eyJwYXNzd29yZCI6Imh1bnRlcjIifQ==".utf8), "payload [REDACTED]=="),
            ("gzip labelled octet-stream", "application/octet-stream", gzip, "[unparsed body: \(gzip.count) bytes, gzip]"),
            ("JSON as UTF-16", "application/octet-stream", utf16, "[unparsed body: \(utf16.count) bytes, UTF-16 text]"),
            ("single-quoted pseudo-JSON", "text/plain", Data("{'password': 'hunter2'}".utf8), "{…[REDACTED: unreadable JSON, 22 more bytes]"),
        ]
        for (shape, type, body, expected) in cases {
            let masked = String(decoding: Redactor.standard.redactedBody(body, contentType: type), as: UTF8.self)
            XCTAssertEqual(masked, expected, shape)
            XCTAssertFalse(masked.contains("hunter2"), shape)
        }
        let part = "--b\r\nContent-Type: application/http\r\n\r\nPOST /x HTTP/1.1\r\nAuthorization: Bearer hunter2\r\n\r\n--b--\r\n"
        let multipart = String(decoding: Redactor.standard.redactedBody(Data(part.utf8), contentType: "multipart/mixed; boundary=b"), as: UTF8.self)
        XCTAssertTrue(multipart.contains("Authorization: Bearer [REDACTED]"), multipart)
        let rawNewline = Data("{\"query\":\"mutation { login(password: \\\"hun\nter2\\\") }\"}".utf8)
        let graphQL = String(decoding: Redactor.standard.redactedBody(rawNewline, contentType: "application/json"), as: UTF8.self)
        XCTAssertTrue(graphQL.hasSuffix("more bytes]") && graphQL.contains("unreadable JSON") && !graphQL.contains("ter2"), graphQL)
        let png = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0x00, 0x01])
        XCTAssertEqual(Redactor.standard.redactedBody(png, contentType: "image/png"), png, "other binary data is kept")
    }
}
