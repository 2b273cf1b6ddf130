import Foundation
import HTTPCoreRedaction
import XCTest

/// The decision on a value by its name (`ValueRule`), one test per row of its table: what
/// a JSON string, number, boolean and `null` under the name come out as at `.standard`.
final class NameRulesTests: XCTestCase {
    /// What each JSON value under `key` comes out as: `S` string masked, `N` number masked,
    /// `B` boolean masked, lowercase when kept; `null` is kept at `.standard`.
    private func verdict(_ key: String, _ redactor: Redactor = .standard, file: StaticString = #filePath, line: UInt = #line) -> String {
        let escapedKey = String(decoding: try! JSONEncoder().encode(key), as: UTF8.self)
        let input = #"[{\#(escapedKey):"v4lue"},{\#(escapedKey):256},{\#(escapedKey):true},{\#(escapedKey):null}]"#
        let output = String(decoding: redactor.redactedBody(Data(input.utf8), contentType: "application/json"), as: UTF8.self)
        let values = (try! JSONSerialization.jsonObject(with: Data(output.utf8)) as! [[String: Any]]).map { $0[key] }
        if redactor.level == .standard { XCTAssertTrue(values[3] is NSNull, "\(key): null is kept", file: file, line: line) }
        let masked = values.prefix(3).map { ($0 as? String) == Redactor.mask }
        return zip(["S", "N", "B"], masked).map { $1 ? $0 : $0.lowercased() }.joined()
    }

    func testABuiltInWholeNameMasksEveryValue() {
        for key in ["password", "token", "pin", "api_key", "secret", "cvv", "authorization", "auth"] {
            XCTAssertEqual(verdict(key), "SNB", key)
        }
    }

    func testANameThatEndsInASecretWordMasksEveryValue() {
        for key in ["access_token", "idToken", "refresh-token", "newPassword", "card_pin", "stripeApiKey", "otp", "x.session_id"] {
            XCTAssertEqual(verdict(key), "SNB", key)
        }
    }

    func testADescriptorAfterTheWordKeepsEveryValue() {
        for key in ["token_type", "token_count", "password_expires_at", "secret_name", "token_endpoint_auth_methods_supported",
            "id_token_signing_alg_values_supported", "promptTokenCount", "api_key_id"]
        {
            XCTAssertEqual(verdict(key), "snb", key)
        }
    }

    func testAQuestionOrAQuantityOfASecretKeepsNumbersAndBooleans() {
        for key in ["hadAuthorization", "has_password", "uses_pin", "max_token", "requiresToken"] {
            XCTAssertEqual(verdict(key), "Snb", key)
        }
    }

    func testAPluralOrAWordFollowedByOthersKeepsNumbersAndBooleans() {
        for key in ["max_tokens", "prompt_tokens", "completion_tokens", "total_tokens", "input_tokens", "output_tokens", "tokens_used",
            "maxOutputTokens", "cache_creation_input_tokens", "token_budget", "api_keys", "secrets"]
        {
            XCTAssertEqual(verdict(key), "Snb", key)
        }
    }

    func testAWordWhoseSecretsAreNumbersMasksEveryValueWhereverItStands() {
        for key in ["password_confirmation", "pin_code", "otp_value", "cvv2", "passcode_entry"] {
            XCTAssertEqual(verdict(key), "SNB", key)
        }
    }

    func testAnOrdinaryNameKeepsEveryValueAtStandardAndMasksItAtStrict() {
        for key in ["id", "name", "tokenizer", "keyboard", "key", "logprob", "shipping"] {
            XCTAssertEqual(verdict(key), "snb", key)
            XCTAssertEqual(verdict(key, .strict), "SNB", "\(key) at .strict")
        }
    }

    func testConfiguredNamesWinOverEveryBuiltInRow() {
        let redactor = Redactor(sensitiveBodyKeys: ["email", "max_tokens"], allowedBodyKeys: ["pin"])
        XCTAssertEqual(verdict("billingEmail", redactor), "SNB")
        XCTAssertEqual(verdict("email_verified", redactor), "SNB", "a configured name masks wherever it stands")
        XCTAssertEqual(verdict("max_tokens", redactor), "SNB")
        XCTAssertEqual(verdict("pin", redactor), "snb")
    }

    func testTheSameRuleJudgesTextValuesInHeadersQueriesFormsXMLAndFreeText() {
        let redactor = Redactor.standard
        XCTAssertEqual(redactor.redactedHeaderValue("30000", name: "X-RateLimit-Limit-Tokens"), "30000")
        XCTAssertEqual(redactor.redactedHeaderValue("6m0s", name: "X-RateLimit-Reset-Tokens"), "6m0s", "a duration is a number")
        XCTAssertEqual(redactor.redactedHeaderValue("soon", name: "X-RateLimit-Reset-Tokens"), Redactor.mask)
        XCTAssertEqual(redactor.redactedURL(string: "https://a.example/v1?max_tokens=256&token=abc"), "https://a.example/v1?max_tokens=256&token=[REDACTED]")
        let form = redactor.redactedBody(Data("max_tokens=256&password_confirmation=1234&hadAuthorization=true".utf8), contentType: "application/x-www-form-urlencoded")
        XCTAssertEqual(String(decoding: form, as: UTF8.self), "max_tokens=256&password_confirmation=[REDACTED]&hadAuthorization=true")
        let xml = redactor.redactedBody(Data("<r><max_tokens>256</max_tokens><tokens_note>a b</tokens_note><pin>1234</pin></r>".utf8), contentType: "application/xml")
        XCTAssertEqual(String(decoding: xml, as: UTF8.self), "<r><max_tokens>256</max_tokens><tokens_note>[REDACTED]</tokens_note><pin>[REDACTED]</pin></r>")
        XCTAssertEqual(redactor.redactedText("retry with max_tokens=256 and token=abc"), "retry with max_tokens=256 and token=[REDACTED]")
    }

    func testValueHoldingMembersOfAnObjectUnderASecretNameTakeItsRule() {
        let input = #"{"token":{"id":578,"text":" the","logprob":-0.05,"special":false},"password":{"value":"hunter2","set_at":"2024-01-02"}}"#
        let output = Redactor.standard.redactedBody(Data(input.utf8), contentType: "application/json")
        XCTAssertEqual(
            String(decoding: output, as: UTF8.self),
            #"{"token":{"id":578,"text":"[REDACTED]","logprob":"[REDACTED]","special":"[REDACTED]"},"password":{"value":"[REDACTED]","set_at":"2024-01-02"}}"#
        )
    }

    /// Without the GenAI interpreter's exceptions, `token` under `logprobs` is a secret's name
    /// like any other (HTTPCoreGenAITests, `GenAIGeneratedTextRedactionTests`, keeps it).
    func testATokenUnderLogprobsIsASecretsNameWithoutExceptions() {
        let input = #"{"logprobs":{"content":[{"token":"Hello","logprob":-0.31}],"tokens":["Hel","lo"]},"token":"abc"}"#
        let output = Redactor.standard.redactedBody(Data(input.utf8), contentType: "application/json")
        XCTAssertEqual(
            String(decoding: output, as: UTF8.self),
            #"{"logprobs":{"content":[{"token":"[REDACTED]","logprob":-0.31}],"tokens":["[REDACTED]","[REDACTED]"]},"token":"[REDACTED]"}"#
        )
    }

    func testAQueryThatIsNotGraphQLIsText() {
        let redactor = Redactor.standard
        func body(_ text: String) -> String {
            String(decoding: redactor.redactedBody(Data(text.utf8), contentType: "application/json"), as: UTF8.self)
        }
        XCTAssertEqual(body(#"{"query":"n=2"}"#), #"{"query":"n=2"}"#)
        XCTAssertEqual(body(#"{"query":"swift concurrency"}"#), #"{"query":"swift concurrency"}"#)
        XCTAssertEqual(body(##"{"query":"# find\nquery { user(pin: \"1234\") { id } }"}"##), #"{"query":"\nquery { user(pin: ***) { id } }"}"#)
    }
}
