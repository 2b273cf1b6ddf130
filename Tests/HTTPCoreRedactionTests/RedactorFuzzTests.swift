import Foundation
import HTTPCoreRedaction
import XCTest
import HTTPCoreText
import HTTPCoreTesting

/// Random nestings of JSON, forms, multipart, XML and GraphQL with a secret planted at the
/// bottom: the secret never comes out, and nothing crashes. Seeded, so a failure reproduces.
final class RedactorFuzzTests: XCTestCase {
    /// A body and the content type that labels it (`nil`: unlabelled).
    private struct Body {
        var text: String
        var contentType: String?
    }

    func testPlantedSecretsNeverComeOut() {
        var random = SeededRandomNumberGenerator(seed: 0x5EC2E7)
        for round in 0..<2_000 {
            let secret = "S3cr3t\(random.next() % 1_000_000)"
            var body = Self.leaf(secret, &random)
            for _ in 0..<Int(random.next() % 5) {
                body = Self.wrap(body, &random)
            }
            let output = Redactor.standard.redactedBody(Data(body.text.utf8), contentType: body.contentType)
            let text = String(decoding: output, as: UTF8.self)
            XCTAssertFalse(text.contains("S3cr3t"), "round \(round): \(body.contentType ?? "unlabelled")\n\(body.text)\n->\n\(text)")
            if text.contains("S3cr3t") { return }
        }
    }

    /// A body holding the secret where `.standard` masks it.
    private static func leaf(_ secret: String, _ random: inout SeededRandomNumberGenerator) -> Body {
        let key = [
            "password", "newPassword", "auth_token", "client_secret", "api_key", "refreshToken", "session_id",
            "p\u{0430}ssword", "t\u{03BF}ken",  // Cyrillic a, Greek omicron
        ].randomElement(using: &random)!
        switch random.next() % 14 {
        case 0: return Body(text: #"{"id":1,"\#(key)":"\#(secret)","name":"a"}"#, contentType: "application/json")
        case 1: return Body(text: #"[{"user":{"\#(key)":["\#(secret)"]}}]"#, contentType: nil)
        case 2: return Body(text: "a=1&\(key)=\(secret)&b=2", contentType: ["application/x-www-form-urlencoded", nil, "text/plain"].randomElement(using: &random)!)
        case 3: return Body(text: "<r><n>1</n><\(key)>\(secret)</\(key)></r>", contentType: ["application/xml", nil].randomElement(using: &random)!)
        case 4: return Body(text: #"<r \#(key)="\#(secret)"/>"#, contentType: "text/xml")
        case 5: return Body(text: #"{"query":"query($v: String) { a(password: $v) }","variables":{"v":"\#(secret)"}}"#, contentType: "application/json")
        case 6: return Body(text: #"{"next":"https://a.example/cb?\#(key)=\#(secret)&x=1"}"#, contentType: "application/json")
        case 7: return Body(text: #"{"header":"Bearer \#(secret)"}"#, contentType: "application/json")
        case 8: return Body(text: "user: ada\n\(key): \(secret)\n", contentType: ["application/yaml", "text/plain"].randomElement(using: &random)!)
        case 9: return Body(text: #"cb({"\#(key)":"\#(secret)"})"#, contentType: "application/javascript")
        case 10: return Body(text: "<r><!-- \(key)=\(secret) --><n>1</n></r>", contentType: "application/xml")
        case 11: return Body(text: "a=1\r\n\(key)=\(secret)\r\n", contentType: "text/plain")
        case 12: return Body(text: "POST /x HTTP/1.1\r\nAuthorization: Bearer \(secret)\r\n\r\n", contentType: "application/http")
        default: return Body(text: #"{"query":"mutation { login(password: \"\#(secret)\") }"}"#, contentType: "application/json")
        }
    }

    /// The body inside another: a JSON string (JSON or a form), a multipart part (labelled or not), a nested
    /// multipart, or a line of NDJSON.
    private static func wrap(_ inner: Body, _ random: inout SeededRandomNumberGenerator) -> Body {
        let isJSON = inner.text.hasPrefix("{") || inner.text.hasPrefix("[")
        switch random.next() % 4 {
        case 0 where isJSON:
            let encoded = String(decoding: JSONString.encode(inner.text), as: UTF8.self)
            return Body(text: #"{"wrapped":\#(encoded),"n":2}"#, contentType: ["application/json", nil].randomElement(using: &random)!)
        case 0 where inner.text.hasPrefix("a=1&"):
            // A form carried as a JSON string value gets the text rules.
            let encoded = String(decoding: JSONString.encode(inner.text), as: UTF8.self)
            return Body(text: #"{"body":\#(encoded)}"#, contentType: "application/json")
        case 1 where isJSON && Bool.random(using: &random):
            // JSON as a form value, percent-encoded.
            let encoded = inner.text.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
            return Body(text: "n=1&data=\(encoded)", contentType: "application/x-www-form-urlencoded")
        case 1 where isJSON && !inner.text.contains("\n"):
            return Body(text: "{\"a\":1}\n" + inner.text + "\n", contentType: "application/x-ndjson")
        default:
            let boundary = "b\(random.next() % 100_000)"
            let label = Bool.random(using: &random) ? inner.contentType.map { "Content-Type: \($0)\r\n" } ?? "" : ""
            let name = ["file", "data", "payload"].randomElement(using: &random)!
            let text = "--\(boundary)\r\nContent-Disposition: form-data; name=\"\(name)\"\r\n\(label)\r\n\(inner.text)\r\n--\(boundary)--\r\n"
            let type = Bool.random(using: &random) ? "multipart/form-data" : "multipart/mixed"
            return Body(text: text, contentType: "\(type); boundary=\(boundary)")
        }
    }

    func testPlantedSecretsInHeadersNeverComeOut() {
        var random = SeededRandomNumberGenerator(seed: 0x4EAD)
        let names = [
            "X-Custom-Auth", "X-Hub-Signature-256", "X-Shopify-Hmac-Sha256", "X-Session", "X-Client-Key", "Authorization",
            "\u{0410}uthorization", "X-\u{0410}pi-Key",
        ]
        for round in 0..<500 {
            let secret = "S3cr3t\(random.next() % 1_000_000)"
            let value: String
            switch random.next() % 4 {
            case 0: value = secret
            case 1: value = "Bearer \(secret)"
            case 2: value = "https://hooks.example.com/in?sig=\(secret)"
            default: value = "userId=\(secret),lang=en"
            }
            // Under a name of its own, a value is masked for its shape: a credential, a URL's
            // sensitive query value, a baggage member's value.
            let name: String
            if value.hasPrefix("userId") {
                name = "baggage"
            } else if value != secret, random.next() % 2 == 0 {
                name = "X-Anything"
            } else {
                name = names.randomElement(using: &random)!
            }
            let shown = Redactor.standard.redactedHeaderValue(value, name: name)
            XCTAssertFalse(shown.contains("S3cr3t"), "round \(round): \(name): \(value) -> \(shown)")
            if shown.contains("S3cr3t") { return }
        }
    }
}
