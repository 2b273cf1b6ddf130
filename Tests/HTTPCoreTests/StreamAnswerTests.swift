import Foundation
import HTTPCore
import HTTPCoreTestPeers
import XCTest

/// The answer of a streamed response, read from the LLM stream shapes of the corpus (their
/// providers' documented streams) and from any other stream.
final class StreamAnswerTests: XCTestCase {
    private func answer(_ fixtureName: String, redactedBy redactor: Redactor = .none) throws -> StreamAnswer {
        let fixture = try XCTUnwrap(RedactionFixture.llmCorpus.first { $0.name == fixtureName })
        let body = redactor.redactedBody(Data(fixture.body.utf8), contentType: fixture.contentType)
        return try XCTUnwrap(StreamAnswer(body: body, contentType: fixture.contentType, redactedBy: [redactor]))
    }

    func testEachLLMShapeReadsAsTheTextItGenerated() throws {
        let expected: [(String, StreamAnswer.Shape, Int, String)] = [
            ("OpenAI chat completion, streamed", .openAIChat, 9, "Rayleigh scattering makes the sky blue."),
            ("OpenAI Responses API, streamed", .openAIResponses, 11, "TCP delivers every byte in order; UDP just sends packets and hopes."),
            ("Anthropic messages, streamed", .anthropic, 9, "Hello! How can I help you today?"),
            ("Gemini streamGenerateContent, alt=sse", .gemini, 3, "Salt wind on the glass,\nhe trims the wick at midnight;\nships he'll never meet.\n"),
            ("Hugging Face TGI /generate_stream", .textGenerationInference, 6, " The sky appears blue."),
            ("Ollama /api/chat, streamed", .ollama, 6, "The sky looks blue because of Rayleigh scattering."),
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
        let answer = try XCTUnwrap(StreamAnswer(body: body, contentType: "text/event-stream; charset=utf-8", redactedBy: [.standard]))
        XCTAssertEqual(answer.shape, .data)
        XCTAssertEqual(answer.messageCount, 3)
        XCTAssertEqual(answer.text, "one\n{\"n\":2}\nthree\nlines")
        XCTAssertNil(StreamAnswer(body: Data("{}".utf8), contentType: "application/json", redactedBy: []), "not a stream")
        XCTAssertNil(StreamAnswer(body: Data(": only a comment\n\n".utf8), contentType: "text/event-stream", redactedBy: []), "no message")
    }

    func testABodyCutShortKeepsItsCompleteMessagesAndSaysSo() throws {
        let body = Data("data: {\"choices\":[{\"delta\":{\"content\":\"Hel\"}}]}\n\ndata: {\"choices\":[{\"delta\":{\"content\":\"lo\"".utf8)
        let answer = try XCTUnwrap(StreamAnswer(body: body, contentType: "text/event-stream", isBodyTruncated: true, redactedBy: [.standard]))
        XCTAssertEqual(answer.text, "Hel")
        XCTAssertTrue(answer.isTruncated)
    }

    func testALongAnswerIsCutAtTheLimit() throws {
        let chunk = "data: {\"choices\":[{\"delta\":{\"content\":\"\(String(repeating: "é", count: 1000))\"}}]}\n\n"
        let answer = try XCTUnwrap(StreamAnswer(body: Data(String(repeating: chunk, count: 40).utf8), contentType: "text/event-stream", redactedBy: [.standard]))
        XCTAssertTrue(answer.isTruncated)
        XCTAssertLessThanOrEqual(answer.text.utf8.count, StreamAnswer.maximumBytes)
        XCTAssertEqual(answer.text.utf8.count, StreamAnswer.maximumBytes, "cut on a character boundary: é is two bytes")
    }
}
