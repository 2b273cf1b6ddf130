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
        let stream = "event: token\r\ndata: {\"t\":\"Hel\",\"api_key\":\"sk-live-123\"}\r\n\r\ndata: Authorization: Bearer abc.def.ghi\n\n: note\n"
        let output = masked(stream, "text/event-stream; charset=utf-8")
        XCTAssertEqual(
            output,
            "event: token\r\ndata: {\"t\":\"Hel\",\"api_key\":\"[REDACTED]\"}\r\n\r\ndata: Authorization: Bearer [REDACTED]\n\n: note\n"
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
}
