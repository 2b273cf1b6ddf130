import Foundation
import HTTPCoreRedaction
import XCTest

/// Bodies cut at a capture cap (`isTruncated`): masked as far as they go, by the rules of a
/// whole body, with no marker of their own; a secret the cut falls in is masked all the same.
final class RedactorTruncatedBodyTests: XCTestCase {
    private let secret = "hunter2-S3CRET"

    private func cut(_ text: String, _ type: String?, _ redactor: Redactor = .standard) -> String {
        String(decoding: redactor.redactedBody(Data(text.utf8), contentType: type, isTruncated: true), as: UTF8.self)
    }

    func testJSONCutInsideAValueShowsItUpToTheCutOrMasksItWhole() {
        let cases: [(input: String, expected: String, why: String)] = [
            (#"{"blob":"aaaa"#, #"{"blob":"aaaa"#, "a plain string, up to the cut"),
            (#"{"user":"roy","password":"hunt"#, #"{"user":"roy","password":"[REDACTED]""#, "a sensitive string"),
            (#"{"user":"roy","password":"#, #"{"user":"roy","password":"[REDACTED]""#, "a sensitive value not begun"),
            (#"{"auth":{"type":"basic","user":"ro"#, #"{"auth":{"type":"basic","user":"[REDACTED]""#, "a sensitive object: its descriptor kept, the rest masked"),
            (#"{"auth":{"value":"S3"#, #"{"auth":{"value":"[REDACTED]""#, "a sensitive object's value-holding member"),
            (#"{"pin":12"#, #"{"pin":"[REDACTED]""#, "a sensitive number"),
            (#"{"items":[1,2,3"#, #"{"items":[1,2,3"#, "an array"),
            (#"{"n":12"#, #"{"n":12"#, "a number"),
            (#"{"ok":tr"#, #"{"ok":tr"#, "a literal"),
            (#"{"user":"roy","passw"#, #"{"user":"roy","#, "a key, left out"),
            (#"{"user":"roy" , "#, #"{"user":"roy" , "#, "whitespace"),
            (#"{"text":"caf\u00"#, #"{"text":"caf"#, "an escape cut short, left out"),
            (#"{"text":"a\"#, #"{"text":"a"#, "a lone backslash, left out"),
            (#"{"note":"see https://a.example/cb?token=\#(secret)"#, #"{"note":"see https://a.example/cb?token=[REDACTED]"#, "text rules on what there is"),
            (#"{"note":"Bearer \#(secret)"#, #"{"note":"Bearer [REDACTED]"#, "a credential"),
            (#"{"db":"postgres://admin:hunt"#, #"{"db":"postgres://[REDACTED]"#, "a URL's userinfo cut in two"),
            (#"{"db":"postgres:\/\/admin:hunt"#, #"{"db":"postgres://[REDACTED]"#, "the same, slashes escaped"),
            (#"{"site":"https://api.exa"#, #"{"site":"https://[REDACTED]"#, "a host cut short, masked: it may be a token used as a user"),
            (#"{"git":"https://ghp_16C7e42F292c"#, #"{"git":"https://[REDACTED]"#, "a token as the user, cut before its @"),
            (#"{"db":"https://alice%40corp.com:hunter"#, #"{"db":"https://[REDACTED]"#, "an encoded @ inside the user"),
            (#"{"db":"postgres://app:s3cr/et"#, #"{"db":"postgres://[REDACTED]"#, "a password holding a /"),
            (#"{"db":"https://user:p@ss"#, #"{"db":"https://[REDACTED]"#, "a password holding a raw @"),
            (#"{"site":"https://api.example.com:8080/pa"#, #"{"site":"https://api.example.com:8080/pa"#, "a whole authority, cut in the path"),
            (#"{"site":"https://api.example.com/pa"#, #"{"site":"https://api.example.com/pa"#, "a host without a port, cut in the path"),
            (#"{"note":"id eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIx"#, #"{"note":"id [REDACTED]"#, "a JSON Web Token cut before its signature"),
            (#"{"site":"https://api.example.com:84"#, #"{"site":"https://[REDACTED]"#, "host and port cut short, masked: they may be user and password"),
            (#"{"payload":"{\"password\":\"\#(secret)"#, #"{"payload":"{\"password\":\"[REDACTED]\""#, "JSON in a string"),
            (#"{"query":"query { user(pin: \"12"#, #"{"query":"query { user(pin: ***"#, "a GraphQL operation's query"),
            (#"{"variables":{"pin":"12"#, #"{"variables":{"pin":"[REDACTED]""#, "GraphQL variables"),
            (#"[{"a":1},{"token":"\#(secret)"#, #"[{"a":1},{"token":"[REDACTED]""#, "a batch"),
        ]
        for item in cases {
            XCTAssertEqual(cut(item.input, "application/json"), item.expected, item.why)
        }
    }

    func testJSONCutInsideACharacterEndsBeforeIt() {
        var bytes = Data(#"{"text":"café"#.utf8)
        bytes.removeLast()
        XCTAssertEqual(String(decoding: Redactor.standard.redactedBody(bytes, contentType: "application/json", isTruncated: true), as: UTF8.self), #"{"text":"caf"#)
    }

    func testStrictJSONCutInsideAValueMasksIt() {
        XCTAssertEqual(cut(#"{"id":7,"name":"Ro"#, "application/json", .strict), #"{"id":"[REDACTED]","name":"[REDACTED]""#)
        XCTAssertEqual(cut(#"{"id":12"#, "application/json", .strict), #"{"id":"[REDACTED]""#)
    }

    func testJSONMalformedBeforeTheCutIsStillUnreadable() {
        XCTAssertEqual(cut(#"{"a":1,,"password":"\#(secret)"#, "application/json"), #"{"a":1,…[REDACTED: unreadable JSON, 27 more bytes]"#)
        XCTAssertEqual(cut(#"{"a":1,"b":nope"#, "application/json"), #"{"a":1,"b":…[REDACTED: unreadable JSON, 4 more bytes]"#)
    }

    func testAWholeBodyThatEndsEarlyIsUnreadableNotCut() {
        let output = String(decoding: Redactor.standard.redactedBody(Data(#"{"blob":"aaaa"#.utf8), contentType: "application/json"), as: UTF8.self)
        XCTAssertEqual(output, #"{"blob":…[REDACTED: unreadable JSON, 5 more bytes]"#)
    }

    func testEveryOtherKindCutInsideAValue() {
        let multipart = "--b\r\nContent-Disposition: form-data; name=\"user\"\r\n\r\nroy\r\n--b\r\n"
        let cases: [(input: String, type: String?, expected: String, why: String)] = [
            ("{\"a\":1}\n{\"token\":\"\(secret)", "application/x-ndjson", "{\"a\":1}\n{\"token\":\"[REDACTED]\"", "NDJSON's last line"),
            ("user=roy&password=\(secret.prefix(4))", "application/x-www-form-urlencoded", "user=roy&password=[REDACTED]", "a form value"),
            ("user=roy&next=https%3A%2F%2Fa%2F%3Ftoken%3D\(secret.prefix(4))", "application/x-www-form-urlencoded",
             "user=roy&next=https%3A%2F%2Fa%2F%3Ftoken%3D[REDACTED]", "a URL in a form value"),
            ("user=roy&passw", "application/x-www-form-urlencoded", "user=roy&passw", "a form name"),
            ("user=roy&db=postgres://admin:hun", "application/x-www-form-urlencoded", "user=roy&db=postgres://[REDACTED]", "a URL's userinfo in a form"),
            ("user=roy&db=postgres%3A%2F%2Fadmin%3Ahun", "application/x-www-form-urlencoded", "user=roy&db=postgres%3A%2F%2F[REDACTED]",
             "the same, percent-encoded"),
            ("<login><user>roy</user><password>hun", "application/xml", "<login><user>roy</user><password>[REDACTED]", "an XML element"),
            ("<login><user>ro", "application/xml", "<login><user>ro", "XML text"),
            ("<login token=\"ab", "application/xml", "<login token=[REDACTED]", "an XML attribute"),
            (multipart + "Content-Disposition: form-data; name=\"password\"\r\n\r\nhun", "multipart/form-data; boundary=b",
             multipart + "Content-Disposition: form-data; name=\"password\"\r\n\r\n[REDACTED]\r\n", "a sensitive part"),
            (multipart + "Content-Disposition: form-data; name=\"meta\"\r\nContent-Type: application/json\r\n\r\n{\"token\":\"ab",
             "multipart/form-data; boundary=b",
             multipart + "Content-Disposition: form-data; name=\"meta\"\r\nContent-Type: application/json\r\n\r\n{\"token\":\"[REDACTED]\"",
             "a JSON part"),
            (multipart + "Content-Disposition: form-data; name=\"no", "multipart/form-data; boundary=b", String(multipart.dropLast()), "a part's headers, left out"),
            ("mutation { login(password: \"hun", "application/graphql", "mutation { login(password: ***", "GraphQL text"),
            ("plain text, cut mid-wo", "text/plain", "plain text, cut mid-wo", "text"),
        ]
        for item in cases {
            XCTAssertEqual(cut(item.input, item.type), item.expected, item.why)
        }
    }

    func testBinaryCutIsKept() {
        let bytes = Data([0xFF, 0x00, 0xFE, 0x01])
        XCTAssertEqual(Redactor.standard.redactedBody(bytes, contentType: "application/octet-stream", isTruncated: true), bytes)
    }

    func testTheCutSecretNeverLeaksWhereverTheCutFalls() {
        let bodies: [(text: String, type: String)] = [
            (#"{"user":"roy","db":"postgres://admin:\#(secret)@db.internal/app","password":"\#(secret)","note":"ok"}"#, "application/json"),
            ("user=roy&db=postgres://admin:\(secret)@db.internal/app&password=\(secret)&note=ok", "application/x-www-form-urlencoded"),
            ("user=roy&db=postgres%3A%2F%2Fadmin%3A\(secret)%40db.internal%2Fapp&note=ok", "application/x-www-form-urlencoded"),
        ]
        for body in bodies {
            for length in 0...body.text.utf8.count {
                let prefix = String(decoding: Array(body.text.utf8.prefix(length)), as: UTF8.self)
                let output = cut(prefix, body.type)
                XCTAssertFalse(output.contains(secret.prefix(2)), "cut at \(length): \(output)")
                XCTAssertFalse(output.contains("REDACTED: unreadable"), "cut at \(length): \(output)")
            }
        }
    }
}
