import Foundation
import HTTPCoreRedaction
import XCTest

final class XMLMaskerTests: XCTestCase {
    private func masked(_ xml: String, _ contentType: String? = "application/xml", _ redactor: Redactor = .standard) -> String {
        String(decoding: redactor.redactedBody(Data(xml.utf8), contentType: contentType), as: UTF8.self)
    }

    func testSensitiveElementsAndAttributesAreMaskedEverythingElseKept() {
        let cases: [(String, String)] = [
            ("<login><user>ann</user><password>S3CR3T</password></login>",
             "<login><user>ann</user><password>[REDACTED]</password></login>"),
            (#"<login user="ann" password="S3CR3T" mode='x'/>"#,
             #"<login user="ann" password="[REDACTED]" mode='x'/>"#),
            (#"<a api_key = 'S3CR3T' b="1">t</a>"#, #"<a api_key = '[REDACTED]' b="1">t</a>"#),
            // SOAP WS-Security: namespaced names are matched by their local part.
            (#"<wsse:UsernameToken><wsse:Username>ann</wsse:Username><wsse:Password Type="PasswordText">S3CR3T</wsse:Password></wsse:UsernameToken>"#,
             #"<wsse:UsernameToken>[REDACTED]</wsse:UsernameToken>"#),
            ("<r><token><![CDATA[S3CR3T]]></token><n><![CDATA[kept]]></n></r>", "<r><token>[REDACTED]</token><n><![CDATA[kept]]></n></r>"),
            ("<r><secret><secret>S1</secret>S2</secret><x>1</x></r>", "<r><secret>[REDACTED]</secret><x>1</x></r>"),
            ("<r><newPassword>S3CR3T</newPassword><keyboard>q</keyboard></r>",
             "<r><newPassword>[REDACTED]</newPassword><keyboard>q</keyboard></r>"),
            (#"<?xml version="1.0"?><!-- c --><r a="1"><token/><b>2</b></r>"#, #"<?xml version="1.0"?><!-- c --><r a="1"><token/><b>2</b></r>"#),
            (#"<r note="a > b" token="S3CR3T">x</r>"#, #"<r note="a > b" token="[REDACTED]">x</r>"#),
        ]
        for (input, expected) in cases {
            XCTAssertEqual(masked(input), expected, input)
        }
    }

    func testUnclosedOrCutInputIsMaskedToTheEnd() {
        XCTAssertEqual(masked("<r><password>S3CR3T and more"), "<r><password>[REDACTED]")
        XCTAssertEqual(masked(#"<r token="S3CR3T"#), "<r token=[REDACTED]")
        XCTAssertEqual(masked(#"<r a="1" tok"#), #"<r a="1" tok[REDACTED]"#)
    }

    func testXMLIsFoundByMediaTypeOrShape() {
        let xml = "<r><password>S3CR3T</password></r>"
        let expected = "<r><password>[REDACTED]</password></r>"
        for type in ["text/xml", "application/soap+xml; charset=utf-8", "application/atom+xml", nil, "text/plain", "application/octet-stream"] {
            XCTAssertEqual(masked(xml, type), expected, type ?? "no type")
        }
        XCTAssertEqual(masked("\u{FEFF}\n" + xml, nil), "\u{FEFF}\n" + expected)
        XCTAssertEqual(masked(xml, "application/xml", .strict), "[REDACTED: 34 bytes of application/xml]")
        XCTAssertEqual(masked(xml, "application/xml", .none), xml)
    }
}
