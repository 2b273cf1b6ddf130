import Foundation
import HTTPCore
import HTTPCoreObservation
import HTTPCoreGenAI
import HTTPCoreTestPeers
import XCTest

/// With the GenAI interpreter on the policy, its redactor keeps the generated text LLM servers
/// send under `token` names readable, while a secret beside it is still masked; without it,
/// `token` is a secret's name there too.
final class GenAIGeneratedTextRedactionTests: XCTestCase {
    private let genAI = HTTPCorePolicy.default.interpreting(.genAI).redactor

    private func masked(_ body: String, _ type: String = "application/json", by redactor: Redactor? = nil) -> String {
        String(decoding: (redactor ?? genAI).redactedBody(Data(body.utf8), contentType: type), as: UTF8.self)
    }

    func testTGITokensAndLogprobsStayVisible() {
        let tgi = #"{"token":{"id":578,"text":" the","logprob":-0.1,"special":false},"details":{"tokens":[{"id":1,"text":"a","logprob":-0.2,"special":false}],"top_tokens":[[{"id":2,"text":"b","logprob":null,"special":true}]]}}"#
        XCTAssertEqual(masked(tgi), tgi)
        let event = "data: " + #"{"index":3,"token":{"id":578,"text":" the","logprob":-0.1,"special":false},"generated_text":null}"# + "\n\n"
        XCTAssertEqual(masked(event, "text/event-stream"), event)
        let openAI = #"{"logprobs":{"content":[{"token":"Hello","logprob":-0.31,"bytes":[72],"top_logprobs":[{"token":"Hi","logprob":-1.2}]}]}}"#
        XCTAssertEqual(masked(openAI), openAI)
    }

    func testATokenObjectOfAnotherShapeIsStillASecretsParts() {
        XCTAssertEqual(masked(#"{"token":{"text":"S3CR3T"}}"#), #"{"token":{"text":"[REDACTED]"}}"#, "a TGI member name alone is no exception")
        XCTAssertEqual(
            masked(#"{"token":{"id":1,"text":"S3CR3T","logprob":0,"special":false,"v":"x"}}"#),
            #"{"token":{"id":1,"text":"[REDACTED]","logprob":"[REDACTED]","special":"[REDACTED]","v":"[REDACTED]"}}"#
        )
    }

    func testATokenUnderLogprobsIsGeneratedTextAndOneOutsideThemASecret() {
        let input = #"{"logprobs":{"content":[{"token":"Hello","logprob":-0.31,"top_logprobs":[{"token":"Hi","logprob":-1.2}]}]},"token":"abc"}"#
        XCTAssertEqual(
            masked(input),
            #"{"logprobs":{"content":[{"token":"Hello","logprob":-0.31,"top_logprobs":[{"token":"Hi","logprob":-1.2}]}]},"token":"[REDACTED]"}"#
        )
        let legacy = #"{"choices":[{"text":"Hello","logprobs":{"tokens":["Hel","lo"],"token_logprobs":[-0.1,-0.2]}}],"tokens":"abc"}"#
        XCTAssertEqual(
            masked(legacy),
            #"{"choices":[{"text":"Hello","logprobs":{"tokens":["Hel","lo"],"token_logprobs":[-0.1,-0.2]}}],"tokens":"[REDACTED]"}"#
        )
    }

    func testATokenEventsDataIsGeneratedTextWhoseSecretsAreStillMasked() {
        let stream = "event: token\ndata: {\"t\":\"Hel\",\"api_key\":\"sk-live-123\"}\n\nevent: token\ndata: Hel\n\n"
        XCTAssertEqual(
            masked(stream, "text/event-stream"), "event: token\ndata: {\"t\":\"Hel\",\"api_key\":\"[REDACTED]\"}\n\nevent: token\ndata: Hel\n\n"
        )
        let message = genAI.redactedStreamData(Data("Hel".utf8), isTruncated: false, eventType: "token")
        XCTAssertEqual(String(decoding: message, as: UTF8.self), "Hel")
        XCTAssertEqual(masked(stream, "text/event-stream", by: .standard), "event: token\ndata: {\"t\":\"[REDACTED]\",\"api_key\":\"[REDACTED]\"}\n\nevent: token\ndata: [REDACTED]\n\n", "without the interpreter")
    }

    /// The rule `NameExceptions` states for `event: token`, row by row: the data an event of
    /// each name carries, masked by a redactor without exceptions (the GenAI interpreter off)
    /// and by one with `GenAIRecognizer`'s.
    func testATokenEventsDataIsMaskedWithoutExceptionsAndJudgedAsAnyDataWithTheGenAIOnes() {
        var withGenAI = Redactor.standard
        withGenAI.nameExceptions = GenAIRecognizer().nameExceptions
        let rows: [(event: String, data: String, without: String, withGenAI: String)] = [
            ("token", "Hel", "[REDACTED]", "Hel"),
            ("Token", "Hel", "[REDACTED]", "Hel"),
            ("tokens", "Hel", "[REDACTED]", "Hel"),
            ("token", #"{"id":7,"text":"Hel"}"#, #"{"id":7,"text":"[REDACTED]"}"#, #"{"id":7,"text":"Hel"}"#),
            ("token", #"{"text":"Hel","api_key":"sk-live-123"}"#, #"{"text":"[REDACTED]","api_key":"[REDACTED]"}"#, #"{"text":"Hel","api_key":"[REDACTED]"}"#),
            ("token", "Bearer abcdefghijklmnop", "[REDACTED]", "Bearer [REDACTED]"),
            ("session_token", "abc123def", "[REDACTED]", "[REDACTED]"),
            ("token_count", "12", "12", "12"),
        ]
        for row in rows {
            let data = Data(row.data.utf8)
            let without = Redactor.standard.redactedStreamData(data, isTruncated: false, eventType: row.event)
            let judged = withGenAI.redactedStreamData(data, isTruncated: false, eventType: row.event)
            XCTAssertEqual(String(decoding: without, as: UTF8.self), row.without, "event: \(row.event), no exceptions")
            XCTAssertEqual(String(decoding: judged, as: UTF8.self), row.withGenAI, "event: \(row.event), GenAI's exceptions")
        }
    }

    func testTheExceptionsFollowTheInterpretersWhicheverIsSetLast() {
        var policy = HTTPCorePolicy.default.interpreting(.genAI)
        policy.redactor = Redactor(level: .standard, sensitiveBodyKeys: ["t"])
        let stream = "event: token\ndata: {\"t\":\"Hel\",\"n\":\"lo\"}\n\n"
        XCTAssertEqual(masked(stream, "text/event-stream", by: policy.redactor), "event: token\ndata: {\"t\":\"[REDACTED]\",\"n\":\"lo\"}\n\n")
        policy.interpreters = []
        XCTAssertEqual(masked(stream, "text/event-stream", by: policy.redactor), "event: token\ndata: {\"t\":\"[REDACTED]\",\"n\":\"[REDACTED]\"}\n\n")
        XCTAssertEqual(HTTPCorePolicy(interpreters: [GenAIRecognizer()]).redactor.redactedStreamData(Data("Hel".utf8), isTruncated: false, eventType: "token"), Data("Hel".utf8))
    }

    func testTheLLMCorpusKeepsEveryValueThatHoldsNoSecretAndMasksEverySecret() {
        for outcome in RedactionCorpus.outcomes(genAI, fixtures: RedactionFixture.llmCorpus) {
            XCTAssertEqual(outcome.underMasked, [], "\(outcome.fixture): secrets shown")
            XCTAssertEqual(outcome.overMasked, [], "\(outcome.fixture): values changed that hold no secret")
        }
    }
}
