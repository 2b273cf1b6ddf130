import Foundation
import HTTPCore
import HTTPCoreObservation
import HTTPCoreGenAI
import HTTPCoreTestPeers
import XCTest

/// The answer of a streamed response, read by the GenAI interpreter from the LLM stream shapes
/// of the corpus (their providers' documented streams), and from any other stream.
final class StreamAnswerGenAITests: XCTestCase {
    private func answer(_ fixtureName: String, redactedBy redactor: Redactor = .none) throws -> StreamAnswer {
        let fixture = try XCTUnwrap(RedactionFixture.llmCorpus.first { $0.name == fixtureName })
        let body = redactor.redactedBody(Data(fixture.body.utf8), contentType: fixture.contentType)
        return try XCTUnwrap(StreamAnswer(body: body, contentType: fixture.contentType, redactedBy: redactor, readBy: [GenAIRecognizer.genAI]))
    }

    func testEachLLMShapeReadsAsTheTextItGenerated() throws {
        let expected: [(String, String, Int, String)] = [
            ("OpenAI chat completion, streamed", "OpenAI chat", 9, "Rayleigh scattering makes the sky blue."),
            ("OpenAI Responses API, streamed", "OpenAI responses", 11, "TCP delivers every byte in order; UDP just sends packets and hopes."),
            ("Anthropic messages, streamed", "Anthropic", 9, "Hello! How can I help you today?"),
            ("Gemini streamGenerateContent, alt=sse", "Gemini", 3, "Salt wind on the glass,\nhe trims the wick at midnight;\nships he'll never meet.\n"),
            ("Hugging Face TGI /generate_stream", "TGI", 6, " The sky appears blue."),
            ("Ollama /api/chat, streamed", "Ollama", 6, "The sky looks blue because of Rayleigh scattering."),
        ]
        for (name, shape, count, text) in expected {
            let answer = try answer(name)
            XCTAssertEqual(answer.shape, shape, name)
            XCTAssertEqual(answer.messageCount, count, name)
            XCTAssertEqual(answer.text, text, name)
            XCTAssertFalse(answer.isTruncated, name)
        }
    }

    func testTheAnswerOfARedactedBodyIsMasked() throws {
        let answer = try answer("OpenAI chat completion, streamed: a delta is a GitHub token", redactedBy: .standard)
        XCTAssertEqual(answer.text, "The GITHUB_TOKEN in your .env is [REDACTED].")
    }

    func testAnyOtherStreamReadsAsItsDataOnePerLine() throws {
        let body = Data("event: tick\ndata: one\n\n: comment\n\ndata: {\"n\":2}\n\ndata: three\ndata: lines\n\n".utf8)
        let answer = try XCTUnwrap(StreamAnswer(body: body, contentType: "text/event-stream; charset=utf-8", redactedBy: .standard, readBy: [GenAIRecognizer.genAI]))
        XCTAssertEqual(answer.shape, StreamAnswer.dataShape)
        XCTAssertEqual(answer.messageCount, 3)
        XCTAssertEqual(answer.text, "one\n{\"n\":2}\nthree\nlines")
        XCTAssertNil(StreamAnswer(body: Data("{}".utf8), contentType: "application/json", redactedBy: .none, readBy: [GenAIRecognizer.genAI]), "not a stream")
        XCTAssertNil(StreamAnswer(body: Data(": only a comment\n\n".utf8), contentType: "text/event-stream", redactedBy: .none, readBy: [GenAIRecognizer.genAI]), "no message")
    }

    func testABodyCutShortKeepsItsCompleteMessagesAndSaysSo() throws {
        let body = Data("data: {\"choices\":[{\"delta\":{\"content\":\"Hel\"}}]}\n\ndata: {\"choices\":[{\"delta\":{\"content\":\"lo\"".utf8)
        let answer = try XCTUnwrap(StreamAnswer(body: body, contentType: "text/event-stream", isBodyTruncated: true, redactedBy: .standard, readBy: [GenAIRecognizer.genAI]))
        XCTAssertEqual(answer.text, "Hel")
        XCTAssertTrue(answer.isTruncated)
    }

    func testALongAnswerIsCutAtTheLimit() throws {
        let chunk = "data: {\"choices\":[{\"delta\":{\"content\":\"\(String(repeating: "é", count: 1000))\"}}]}\n\n"
        let answer = try XCTUnwrap(StreamAnswer(body: Data(String(repeating: chunk, count: 40).utf8), contentType: "text/event-stream", redactedBy: .standard, readBy: [GenAIRecognizer.genAI]))
        XCTAssertTrue(answer.isTruncated)
        XCTAssertLessThanOrEqual(answer.text.utf8.count, StreamAnswer.maximumBytes)
        XCTAssertEqual(answer.text.utf8.count, StreamAnswer.maximumBytes, "cut on a character boundary: é is two bytes")
    }

    /// An OpenAI chat stream of `deltas`, as JSON string contents.
    private static func chatStream(_ deltas: [String]) -> Data {
        Data(deltas.map { "data: {\"choices\":[{\"delta\":{\"content\":\"\($0)\"}}]}\n\n" }.joined().utf8)
    }

    func testTheJoinedAnswerIsMaskedAsOneTextByTheRedactor() throws {
        let body = Self.chatStream(["Set DB_PASS", "WORD=hunter2secret and use sk-proj-AbCd", "Ef12GhIj34KlMnOp56QrStUv78WxYz90 now"])
        let joined = try XCTUnwrap(StreamAnswer(body: body, contentType: "text/event-stream", redactedBy: .none, readBy: [GenAIRecognizer.genAI]))
        XCTAssertEqual(joined.text, "Set DB_PASSWORD=hunter2secret and use sk-proj-AbCdEf12GhIj34KlMnOp56QrStUv78WxYz90 now", "no redactor: as joined")
        let masked = try XCTUnwrap(StreamAnswer(body: body, contentType: "text/event-stream", redactedBy: .standard, readBy: [GenAIRecognizer.genAI]))
        XCTAssertEqual(masked.text, "Set DB_PASSWORD=[REDACTED] and use [REDACTED] now")
    }

    func testAKeyThePolicyNamesIsMaskedInTheJoinedAnswer() throws {
        let body = Self.chatStream(["deploy_ph", "rase=correct-horse"])
        let answer = try XCTUnwrap(
            StreamAnswer(body: body, contentType: "text/event-stream", redactedBy: Redactor(sensitiveBodyKeys: ["deploy_phrase"]), readBy: [GenAIRecognizer.genAI])
        )
        XCTAssertEqual(answer.text, "deploy_phrase=[REDACTED]")
    }

    func testAMaskAtADeltasEdgeTakesTheRestOfTheSecretFromItsNeighbour() throws {
        let cases: [([String], String)] = [
            (["Use [REDACTED]", "78WxYz90AbCd now."], "Use [REDACTED] now."),
            (["Use [REDACTED]", "."], "Use [REDACTED]."),
            (["Use [REDACTED]", "AbCd-ef. Then"], "Use [REDACTED]. Then"),
            (["See ghp_Ab12", "[REDACTED] here"], "See [REDACTED] here"),
            (["token=", "[REDACTED]"], "token=[REDACTED]"),
            (["[REDACTED]", "[REDACTED]"], "[REDACTED][REDACTED]"),
        ]
        for (deltas, expected) in cases {
            let answer = try XCTUnwrap(StreamAnswer(body: Self.chatStream(deltas), contentType: "text/event-stream", redactedBy: .none, readBy: [GenAIRecognizer.genAI]))
            XCTAssertEqual(answer.text, expected, "\(deltas)")
        }
    }

    func testALongAnswerIsCutBeforeTheWordTheLimitFallsIn() throws {
        let word = "abcdefghi "
        let deltas = Array(repeating: word, count: StreamAnswer.maximumBytes / word.utf8.count) + ["ab", "cdefghijkl tail"]
        let answer = try XCTUnwrap(StreamAnswer(body: Self.chatStream(deltas), contentType: "text/event-stream", redactedBy: .standard, readBy: [GenAIRecognizer.genAI]))
        XCTAssertTrue(answer.isTruncated)
        XCTAssertTrue(answer.text.hasSuffix("abcdefghi"), String(answer.text.suffix(20)))
        XCTAssertEqual(answer.text.utf8.count, (StreamAnswer.maximumBytes / word.utf8.count) * word.utf8.count - 1, "the cut word is left out")
    }

    func testAShapeIsReadFromTheMessagesStructureNotFromAKeyName() throws {
        let named = Data("data: {\"token\":\"t0\"}\n\ndata: {\"token\":\"t1\"}\n\n".utf8)
        let data = try XCTUnwrap(StreamAnswer(body: named, contentType: "text/event-stream", redactedBy: .none, readBy: [GenAIRecognizer.genAI]))
        XCTAssertEqual(data.shape, StreamAnswer.dataShape, "a token string is not TGI's token object")
        XCTAssertEqual(data.text, "{\"token\":\"t0\"}\n{\"token\":\"t1\"}")
        let tgi = Data("data: {\"token\":{\"id\":1,\"text\":\"Hi\",\"logprob\":-0.1,\"special\":false},\"generated_text\":null}\n\n".utf8)
        let answer = try XCTUnwrap(StreamAnswer(body: tgi, contentType: "text/event-stream", redactedBy: .none, readBy: [GenAIRecognizer.genAI]))
        XCTAssertEqual(answer.shape, "TGI")
        XCTAssertEqual(answer.text, "Hi")
    }

    func testAStreamInAShapeWhoseMessagesAddNoTextIsAnEmptyAnswer() throws {
        let special = Data("data: {\"token\":{\"id\":2,\"text\":\"</s>\",\"logprob\":0,\"special\":true},\"generated_text\":\"\"}\n\n".utf8)
        let answer = try XCTUnwrap(StreamAnswer(body: special, contentType: "text/event-stream", redactedBy: .none, readBy: [GenAIRecognizer.genAI]))
        XCTAssertEqual(answer.shape, "TGI")
        XCTAssertEqual(answer.text, "")
        XCTAssertTrue(answer.isEmpty)
    }

    func testPlainDataLinesAmongLLMChunksAreLinesOfTheAnswerInOrder() throws {
        let body = Data(
            ("data: {\"choices\":[{\"delta\":{\"content\":\"Hel\"}}]}\n\ndata: plain one\n\n"
                + "data: {\"choices\":[{\"delta\":{\"content\":\"lo\"}}]}\n\ndata: plain two\n\ndata: [DONE]\n\n").utf8
        )
        let answer = try XCTUnwrap(StreamAnswer(body: body, contentType: "text/event-stream", redactedBy: .none, readBy: [GenAIRecognizer.genAI]))
        XCTAssertEqual(answer.shape, "OpenAI chat")
        XCTAssertEqual(answer.text, "Hel\nplain one\nlo\nplain two")
        XCTAssertEqual(answer.messageCount, 5)
    }
}
