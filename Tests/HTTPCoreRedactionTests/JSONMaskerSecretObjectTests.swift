import Foundation
import HTTPCoreRedaction
import XCTest

/// What an object or an array under a secret name shows: what holds the secret is masked at
/// any depth, what describes it (counts and figures) is kept.
final class JSONMaskerSecretObjectTests: XCTestCase {
    private func masked(_ json: String, _ type: String = "application/json") -> String {
        String(decoding: Redactor.standard.redactedBody(Data(json.utf8), contentType: type), as: UTF8.self)
    }

    func testEveryMemberThatHoldsTheSecretIsMasked() {
        let cases: [(String, String, String)] = [
            (
                #"{"password":{"old":"hunter2x","new":"hunter3y"},"user":"ann"}"#,
                #"{"password":{"old":"[REDACTED]","new":"[REDACTED]"},"user":"ann"}"#, "a password change"
            ),
            (#"{"token":["a1b2c3",{"v":"zz9"}]}"#, #"{"token":["[REDACTED]",{"v":"[REDACTED]"}]}"#, "a token in parts"),
            (#"{"pin":{"old":1234,"new":5678}}"#, #"{"pin":{"old":"[REDACTED]","new":"[REDACTED]"}}"#, "numbers too"),
            (
                #"{"api_key":{"parts":{"head":"AbC","tail":["9z"]}}}"#, #"{"api_key":{"parts":{"head":"[REDACTED]","tail":["[REDACTED]"]}}}"#,
                "at any depth"
            ),
            (
                #"{"auth":{"type":"basic","user":"ann","pass":"x"}}"#, #"{"auth":{"type":"basic","user":"[REDACTED]","pass":"[REDACTED]"}}"#,
                "an auth object keeps its type"
            ),
            (#"{"token":{"text":"S3CR3T"}}"#, #"{"token":{"text":"[REDACTED]"}}"#, "a TGI member name alone is no exception"),
            (
                #"{"token":{"id":1,"text":"S3CR3T","logprob":0,"special":false,"v":"x"}}"#,
                #"{"token":{"id":1,"text":"[REDACTED]","logprob":"[REDACTED]","special":"[REDACTED]","v":"[REDACTED]"}}"#,
                "nor is TGI's shape with a member more"
            ),
        ]
        for (input, expected, reason) in cases {
            XCTAssertEqual(masked(input), expected, reason)
        }
    }

    func testWhatDescribesTheSecretIsKept() {
        let cases: [String] = [
            #"{"password":{"value":"[REDACTED]","set_at":"2024-01-02","expires_in":3600,"policy":{"min_length":8}}}"#,
            #"{"token":{"access_token":"[REDACTED]","token_type":"Bearer","expires_in":3600,"scope":"read","id":"tok_1"}}"#,
            #"{"properties":{"api_key":{"type":"string","description":"SendGrid API key to send with","title":"Key"}}}"#,
        ]
        for expected in cases {
            XCTAssertEqual(masked(expected.replacingOccurrences(of: "[REDACTED]", with: "S3CR3T")), expected)
        }
    }

    /// The engine knows no LLM: `token` names a secret in an LLM server's answer too, until the
    /// policy's GenAI interpreter tells it otherwise (HTTPCoreGenAITests,
    /// `GenAIGeneratedTextRedactionTests`).
    func testWithoutExceptionsLLMTokenObjectsAndLogprobsAreMaskedAsSecrets() {
        let tgi = #"{"token":{"id":578,"text":" the","logprob":-0.1,"special":false}}"#
        XCTAssertEqual(masked(tgi), #"{"token":{"id":578,"text":"[REDACTED]","logprob":"[REDACTED]","special":"[REDACTED]"}}"#)
        let openAI = #"{"logprobs":{"content":[{"token":"Hello","logprob":-0.31}]}}"#
        XCTAssertEqual(masked(openAI), #"{"logprobs":{"content":[{"token":"[REDACTED]","logprob":-0.31}]}}"#)
    }

    func testAnObjectOfAShapeTheExceptionsNameIsReadAsAnyObjectUnderItsHolderOnly() {
        var redactor = Redactor.standard
        redactor.nameExceptions = NameExceptions(shapes: [NameExceptions.ObjectShape(members: ["id", "text"], under: ["secret"])])
        func masked(_ json: String) -> String {
            String(decoding: redactor.redactedBody(Data(json.utf8), contentType: "application/json"), as: UTF8.self)
        }
        XCTAssertEqual(masked(#"{"secret":{"id":1,"text":"a"}}"#), #"{"secret":{"id":1,"text":"a"}}"#)
        XCTAssertEqual(masked(#"{"secret":[{"text":"a","id":1}]}"#), #"{"secret":[{"text":"a","id":1}]}"#, "members in any order")
        XCTAssertEqual(masked(#"{"secret":{"id":1,"text":"a","v":"b"}}"#), #"{"secret":{"id":1,"text":"[REDACTED]","v":"[REDACTED]"}}"#, "another member: a secret's parts")
        XCTAssertEqual(masked(#"{"password":{"id":1,"text":"a"}}"#), #"{"password":{"id":1,"text":"[REDACTED]"}}"#, "another holder")
        XCTAssertEqual(masked(#"{"secret":{"text":"a","password":"p"}}"#), #"{"secret":{"text":"[REDACTED]","password":"[REDACTED]"}}"#)
    }

    func testAKeyTheExceptionsMakeOrdinaryInsideAContainerKeepsItsValueThereOnly() {
        var redactor = Redactor.standard
        redactor.nameExceptions = NameExceptions(containers: [
            NameExceptions.Container(keyContaining: "ledger", maximumKeyBytes: 12, ordinaryKeys: ["token"]),
        ])
        let input = #"{"ledger":[{"token":"USD","secret":"s"}],"token":"abc"}"#
        let output = String(decoding: redactor.redactedBody(Data(input.utf8), contentType: "application/json"), as: UTF8.self)
        XCTAssertEqual(output, #"{"ledger":[{"token":"USD","secret":"[REDACTED]"}],"token":"[REDACTED]"}"#)
    }

    func testCountsUnderNamesThatMentionTokensStayVisible() {
        let usage = #"{"max_tokens":256,"usage":{"prompt_tokens":5,"completion_tokens":7,"total_tokens":12,"prompt_tokens_details":{"cached_tokens":0}},"usageMetadata":{"promptTokensDetails":[{"modality":"TEXT","tokenCount":5}]}}"#
        XCTAssertEqual(masked(usage), usage)
        XCTAssertEqual(
            masked(#"{"api_keys":[{"name":"prod","value":"S3CR3T"}],"tokens":{"input":5}}"#),
            #"{"api_keys":[{"name":"prod","value":"[REDACTED]"}],"tokens":{"input":5}}"#,
            "under a name that mentions secrets, the value holders are masked and counts kept"
        )
    }
}
