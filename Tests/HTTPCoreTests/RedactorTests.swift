import Foundation
import HTTPCore
import XCTest

/// The redaction rules, table by table, at every level.
final class RedactorTests: XCTestCase {
    private func body(_ redactor: Redactor, _ text: String, _ type: String?, truncated: Bool = false) -> String {
        String(decoding: redactor.redactedBody(Data(text.utf8), contentType: type, isTruncated: truncated), as: UTF8.self)
    }

    // MARK: Headers

    func testHeaderRulesAtEveryLevel() {
        let headers: HTTPHeaders = [
            "Authorization": "Bearer a", "PROXY-AUTHORIZATION": "Basic b", "cookie": "c=1", "Set-Cookie": "d=2",
            "X-Api-Key": "e", "x-auth-token": "f", "Content-Type": "application/json", "X-Request-Id": "42",
        ]
        let cases: [(Redactor, [String])] = [
            (.none, ["Bearer a", "Basic b", "c=1", "d=2", "e", "f", "application/json", "42"]),
            (.standard, ["[REDACTED]", "[REDACTED]", "[REDACTED]", "[REDACTED]", "[REDACTED]", "[REDACTED]", "application/json", "42"]),
            (.strict, ["[REDACTED]", "[REDACTED]", "[REDACTED]", "[REDACTED]", "[REDACTED]", "[REDACTED]", "application/json", "[REDACTED]"]),
            (Redactor(level: .standard, sensitiveHeaderNames: ["x-REQUEST-id"]),
             ["[REDACTED]", "[REDACTED]", "[REDACTED]", "[REDACTED]", "[REDACTED]", "[REDACTED]", "application/json", "[REDACTED]"]),
            (Redactor(level: .standard, allowedHeaderNames: ["COOKIE"]),
             ["[REDACTED]", "[REDACTED]", "c=1", "[REDACTED]", "[REDACTED]", "[REDACTED]", "application/json", "42"]),
            (Redactor(level: .strict, allowedHeaderNames: ["x-request-id"]),
             ["[REDACTED]", "[REDACTED]", "[REDACTED]", "[REDACTED]", "[REDACTED]", "[REDACTED]", "[REDACTED]", "42"]),
            (Redactor(level: .strict, sensitiveHeaderNames: ["Content-Type"]),
             ["[REDACTED]", "[REDACTED]", "[REDACTED]", "[REDACTED]", "[REDACTED]", "[REDACTED]", "[REDACTED]", "[REDACTED]"]),
            // A configured name matches as a word: `authorization` masks `Proxy-Authorization` too.
            (Redactor(level: .none, sensitiveHeaderNames: ["authorization"]),
             ["[REDACTED]", "[REDACTED]", "c=1", "d=2", "e", "f", "application/json", "42"]),
            (Redactor(level: .none, sensitiveHeaderNames: ["x-request"]),
             ["Bearer a", "Basic b", "c=1", "d=2", "e", "f", "application/json", "[REDACTED]"]),
        ]
        for (index, (redactor, expected)) in cases.enumerated() {
            let redacted = redactor.redactedHeaders(headers)
            XCTAssertEqual(redacted.map(\.value), expected, "case \(index)")
            XCTAssertEqual(redacted.map(\.name), headers.map(\.name), "names and order are kept")
        }
    }

    // MARK: URLs

    func testURLRules() {
        let cases: [(Redactor, String, String)] = [
            (.standard, "https://bob:pw@api.example.com/a?token=abc&page=2", "https://api.example.com/a?token=[REDACTED]&page=2"),
            (.standard, "https://bob@api.example.com:8443/a", "https://api.example.com:8443/a"),
            (.none, "https://bob:pw@api.example.com/a?token=abc", "https://bob:pw@api.example.com/a?token=abc"),
            (.standard, "https://a.example/?TOKEN=1&Access_Token=2&refresh_token=3&id_token=4&api_key=5&apikey=6&key=7",
             "https://a.example/?TOKEN=[REDACTED]&Access_Token=[REDACTED]&refresh_token=[REDACTED]&id_token=[REDACTED]&api_key=[REDACTED]&apikey=[REDACTED]&key=[REDACTED]"),
            (.standard, "https://a.example/?password=1&passwd=2&secret=3&client_secret=4&signature=5&sig=6&code=7&session=8&auth=9&q=shoes",
             "https://a.example/?password=[REDACTED]&passwd=[REDACTED]&secret=[REDACTED]&client_secret=[REDACTED]&signature=[REDACTED]&sig=[REDACTED]&code=[REDACTED]&session=[REDACTED]&auth=[REDACTED]&q=shoes"),
            (.standard, "https://a.example/?%74oken=abc&to%6Ben=def&x=%74oken", "https://a.example/?%74oken=[REDACTED]&to%6Ben=[REDACTED]&x=%74oken"),
            (.standard, "https://a.example/?api+key=1&api_key=2&accessToken=3&client-secret=4",
             "https://a.example/?api+key=[REDACTED]&api_key=[REDACTED]&accessToken=[REDACTED]&client-secret=[REDACTED]"),
            (.standard, "https://a.example/?a=1;token=2", "https://a.example/?a=1;token=[REDACTED]"),
            (.standard, "https://app.example.com/#/callback?access_token=abc&state=1", "https://app.example.com/#/callback?access_token=[REDACTED]&state=1"),
            (.standard, "https://a.example/cb#access_token=abc&state=xyz", "https://a.example/cb#access_token=[REDACTED]&state=xyz"),
            (.standard, "https://a.example/docs#section-2", "https://a.example/docs#section-2"),
            (.standard, "https://a.example/?token=a&token=b", "https://a.example/?token=[REDACTED]&token=[REDACTED]"),
            (.standard, "https://a.example/?token=", "https://a.example/?token=[REDACTED]"),
            (.strict, "https://a.example/?page=2&q=shoes&flag", "https://a.example/?page=[REDACTED]&q=[REDACTED]&[REDACTED]"),
            (Redactor(level: .strict, allowedQueryNames: ["PAGE"]), "https://a.example/?page=2&q=x", "https://a.example/?page=2&q=[REDACTED]"),
            (Redactor(level: .standard, sensitiveQueryNames: ["Email"]), "https://a.example/?email=a%40b.c", "https://a.example/?email=[REDACTED]"),
            (Redactor(level: .standard, allowedQueryNames: ["code"]), "https://a.example/?code=US&token=t", "https://a.example/?code=US&token=[REDACTED]"),
        ]
        for (redactor, input, expected) in cases {
            XCTAssertEqual(redactor.redactedURL(URL(string: input)!), expected, input)
        }
        XCTAssertEqual(Redactor.standard.redactedURL(string: "https://a.example/?token[]=1&q=2"), "https://a.example/?token[]=[REDACTED]&q=2")
    }

    // MARK: JSON bodies

    func testJSONSensitiveKeysAtAnyDepth() {
        let input = #"{"user":{"name":"Roy","password":"p1","cards":[{"card_number":"4111","cvv":"123"},{"cardNumber":"5500"}]},"#
            + #""Token":{"nested":"object","value":"v"},"list":[1,2,{"SSN":"078-05-1120","pin":1234}],"api-key":"k","ok":true,"n":null}"#
        // Every member of an object under a name that holds a secret takes its rule, unless
        // its own name describes the secret (`token_type`, `expires_in`).
        let expected = #"{"user":{"name":"Roy","password":"[REDACTED]","cards":[{"card_number":"[REDACTED]","cvv":"[REDACTED]"},{"cardNumber":"[REDACTED]"}]},"#
            + #""Token":{"nested":"[REDACTED]","value":"[REDACTED]"},"list":[1,2,{"SSN":"[REDACTED]","pin":"[REDACTED]"}],"api-key":"[REDACTED]","ok":true,"n":null}"#
        XCTAssertEqual(body(.standard, input, "application/json"), expected)
    }

    func testJSONKeepsEverythingElseByteForByte() {
        let input = "{\n  \"name\" : \"Roy\",\n  \"tags\" : [ \"a\" , \"b\" ],\n  \"password\" :\t\"x\"\n}"
        XCTAssertEqual(body(.standard, input, "application/vnd.api+json"), "{\n  \"name\" : \"Roy\",\n  \"tags\" : [ \"a\" , \"b\" ],\n  \"password\" :\t\"[REDACTED]\"\n}")
    }

    func testJSONLevelsAndLists() {
        let input = #"{"id":7,"name":"Roy","password":"x","profile":{"email":"r@x.io","age":40}}"#
        XCTAssertEqual(body(.none, input, "application/json"), input)
        XCTAssertEqual(body(.strict, input, "application/json"),
                       #"{"id":"[REDACTED]","name":"[REDACTED]","password":"[REDACTED]","profile":{"email":"[REDACTED]","age":"[REDACTED]"}}"#)
        XCTAssertEqual(body(Redactor(level: .strict, allowedBodyKeys: ["ID", "profile"]), input, "application/json"),
                       #"{"id":7,"name":"[REDACTED]","password":"[REDACTED]","profile":{"email":"r@x.io","age":40}}"#)
        XCTAssertEqual(body(Redactor(level: .standard, sensitiveBodyKeys: ["E-Mail"]), input, "application/json"),
                       #"{"id":7,"name":"Roy","password":"[REDACTED]","profile":{"email":"[REDACTED]","age":40}}"#)
        XCTAssertEqual(body(Redactor(level: .standard, allowedBodyKeys: ["password"]), input, "application/json"), input)
    }

    func testJSONDuplicateAndEscapedKeys() {
        let input = #"{"password":"a","password":"b","pass\u0077ord":"c","\"token\"":"d","tok\u0065n":"e"}"#
        XCTAssertEqual(body(.standard, input, "application/json"),
                       #"{"password":"[REDACTED]","password":"[REDACTED]","pass\u0077ord":"[REDACTED]","\"token\"":"[REDACTED]","tok\u0065n":"[REDACTED]"}"#)
    }

    func testJSONInsideAStringIsMaskedToo() {
        let input = #"{"payload":"{\"password\":\"hunter2\",\"user\":\"roy\"}","note":"{not json"}"#
        XCTAssertEqual(body(.standard, input, "application/json"),
                       #"{"payload":"{\"password\":\"[REDACTED]\",\"user\":\"roy\"}","note":"{not json"}"#)
    }

    func testUntypedBodyThatLooksLikeJSONIsTreatedAsJSON() {
        XCTAssertEqual(body(.standard, #"  [{"token":"t"}]"#, nil), #"  [{"token":"[REDACTED]"}]"#)
        XCTAssertEqual(body(.standard, #"{"token":"t"}"#, "text/plain"), #"{"token":"[REDACTED]"}"#)
    }

    // MARK: Form and multipart bodies

    func testFormBody() {
        let input = "username=roy&password=hunter2&Pass%77ord=x&remember=true&api_key=k&card+number=4111"
        XCTAssertEqual(body(.standard, input, "application/x-www-form-urlencoded; charset=utf-8"),
                       "username=roy&password=[REDACTED]&Pass%77ord=[REDACTED]&remember=true&api_key=[REDACTED]&card+number=[REDACTED]")
        XCTAssertEqual(body(.none, input, "application/x-www-form-urlencoded"), input)
    }

    func testMultipartPartsWithSensitiveNames() {
        let input = "--XyZ\r\nContent-Disposition: form-data; name=\"user\"\r\n\r\nroy\r\n"
            + "--XyZ\r\nContent-Disposition: form-data; name=\"Password\"\r\n\r\nhunter2\r\n"
            + "--XyZ\r\nContent-Disposition: form-data; name=\"avatar\"; filename=\"a.png\"\r\nContent-Type: image/png\r\n\r\nPNG\r\n"
            + "--XyZ--\r\n"
        let expected = "--XyZ\r\nContent-Disposition: form-data; name=\"user\"\r\n\r\nroy\r\n"
            + "--XyZ\r\nContent-Disposition: form-data; name=\"Password\"\r\n\r\n[REDACTED]\r\n"
            + "--XyZ\r\nContent-Disposition: form-data; name=\"avatar\"; filename=\"a.png\"\r\nContent-Type: image/png\r\n\r\nPNG\r\n"
            + "--XyZ--\r\n"
        XCTAssertEqual(body(.standard, input, "multipart/form-data; boundary=XyZ"), expected)
    }

    // MARK: GraphQL

    func testGraphQLLiteralsAreMaskedAndStructureKept() {
        let query = #"mutation Login($pw: String!) { login(user: "roy", password: $pw, pin: 1234, tags: ["a", "b"], "#
            + #"input: {age: 42, ratio: -1.5e3, kind: ADMIN, active: true, note: null, bio: """multi\nline""", secret: "s"}) { token field2 } }"#
        // Literals are judged by the argument or input field they are given to, as JSON values by their keys.
        let expected = #"mutation Login($pw: String!) { login(user: "roy", password: $pw, pin: ***, tags: ["a", "b"], "#
            + #"input: {age: 42, ratio: -1.5e3, kind: ADMIN, active: true, note: null, bio: """multi\nline""", secret: ***}) { token field2 } }"#
        XCTAssertEqual(body(.standard, query, "application/graphql"), expected)
    }

    func testGraphQLOverJSONMasksQueryLiteralsAndVariables() {
        let input = #"{"operationName":"Login","query":"query Q { user(id: \"42\", limit: 10) { name } }","variables":{"password":"p","id":"42"}}"#
        XCTAssertEqual(body(.standard, input, "application/json"),
                       #"{"operationName":"Login","query":"query Q { user(id: \"42\", limit: 10) { name } }","variables":{"password":"[REDACTED]","id":"[REDACTED]"}}"#)
    }

    // MARK: Strict and other bodies

    func testOtherBodiesAreKeptAtStandardAndNotedAtStrict() {
        XCTAssertEqual(body(.standard, "plain text", "text/plain"), "plain text")
        XCTAssertEqual(body(.strict, "plain text", "text/plain; charset=utf-8"), "[REDACTED: 10 bytes of text/plain]")
        XCTAssertEqual(body(.strict, "a=1", "application/x-www-form-urlencoded"), "[REDACTED: 3 bytes of application/x-www-form-urlencoded]")
        XCTAssertEqual(body(.strict, "<x/>", nil), "[REDACTED: 4 bytes of unknown type]")
        XCTAssertEqual(body(.strict, "--b\r\n\r\nx\r\n--b--", "multipart/form-data; boundary=b"), "[REDACTED: 15 bytes of multipart/form-data]")
        XCTAssertEqual(body(.strict, "{ user { name } }", "application/graphql"), "[REDACTED: 17 bytes of application/graphql]")
    }

    // MARK: Error texts

    func testTextScrubsURLsAndCredentials() {
        let text = "GET https://bob:pw@api.example.com/a?token=abc&x=1 failed: Authorization: Bearer eyJabc and password=hunter2"
        XCTAssertEqual(Redactor.standard.redactedText(text),
                       "GET https://api.example.com/a?token=[REDACTED]&x=1 failed: Authorization: Bearer [REDACTED] and password=[REDACTED]")
    }
}
