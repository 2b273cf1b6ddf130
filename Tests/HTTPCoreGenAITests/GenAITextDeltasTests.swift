import Foundation
import HTTPCore
import HTTPCoreGenAI
import HTTPCoreLoopback
import HTTPCoreObservation
import HTTPCoreTestPeers
import HTTPCoreURLSession
import XCTest

/// An LLM answer's text deltas as one sequence, whatever the provider's shape, read from real
/// exchanges over loopback: the same text observers read, errors thrown.
final class GenAITextDeltasTests: XCTestCase {
    private var server: LoopbackHTTPServer!

    override func setUpWithError() throws {
        server = try LoopbackHTTPServer()
    }

    override func tearDown() {
        server.stop()
    }

    /// The deltas of the answer the loopback server gives with `status`, `contentType` and
    /// `body`, written in chunks of 7 bytes so that messages break anywhere; or the error that
    /// ended them.
    private func read(
        status: Int = 200, contentType: String, body: String, maximumMessageBytes: Int = 1 << 20
    ) async throws -> ([String], (any Error)?) {
        server.route("POST", "/v1/answer", streaming: { _, writer in
            try writer.writeHead(status: status, headers: ["Content-Type": contentType], framing: .chunked)
            let bytes = Array(body.utf8)
            for start in stride(from: 0, to: bytes.count, by: 7) {
                try writer.write(bytes[start..<min(bytes.count, start + 7)])
            }
        })
        let client = URLSessionClient()
        let request = HTTPRequest(method: .post, url: server.url("/v1/answer"), timeout: 60)
        let (head, responseBody) = try await client.send(request, body: HTTPBody(#"{"stream":true}"#))
        var read: [String] = []
        do {
            for try await delta in GenAITextDeltas(head: head, body: responseBody, maximumMessageBytes: maximumMessageBytes) { read.append(delta) }
            return (read, nil)
        } catch {
            return (read, error)
        }
    }

    private func read(_ fixture: GenAIFixture) async throws -> ([String], (any Error)?) {
        try await read(contentType: fixture.contentType, body: fixture.responseBody)
    }

    func testOpenAIChatChunksGiveTheirContentDeltas() async throws {
        let (deltas, error) = try await read(.openAIChatStream)

        XCTAssertNil(error)
        XCTAssertEqual(deltas, ["Rayleigh", " scattering", " makes the sky blue."], "no role-only, finish, usage or [DONE] delta")
    }

    func testAnthropicMessageEventsGiveTheirTextDeltas() async throws {
        let (deltas, error) = try await read(.anthropicStream)

        XCTAssertNil(error)
        XCTAssertEqual(deltas.joined(), "Hello! How can I help?")
        XCTAssertEqual(deltas.count, 2, "ping, start, stop and usage events add nothing")
    }

    func testOllamaJSONLinesGiveTheirMessageContent() async throws {
        let (deltas, error) = try await read(.ollamaChatStream)

        XCTAssertNil(error)
        XCTAssertEqual(deltas, ["The sky", " looks blue."])
    }

    func testTheResponsesAPIGeminiAndTGIStreamsGiveTheirText() async throws {
        let expected: [(GenAIFixture, String)] = [
            (.openAIResponsesStream, "Hi team!"),
            (.geminiStream, "Salt wind on the glass,\nhe trims the wick at midnight;\nships he'll never meet.\n"),
            (.textGenerationInferenceStream, " The sky"),
        ]
        for (fixture, text) in expected {
            let (deltas, error) = try await read(fixture)
            XCTAssertNil(error, fixture.url)
            XCTAssertEqual(deltas.joined(), text, fixture.url)
        }
    }

    func testAnAnswerNotStreamedIsOneDelta() async throws {
        let (deltas, error) = try await read(contentType: "application/json", body: GenAIFixture.anthropicMessage.responseBody)

        XCTAssertNil(error)
        XCTAssertEqual(deltas, ["Let me check."])
    }

    func testAnErrorEventInsideTheStreamThrowsAProviderErrorAfterTheTextBeforeIt() async throws {
        let stream = """
            event: content_block_delta
            data: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hello"}}

            event: error
            data: {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}


            """
        let (deltas, error) = try await read(contentType: "text/event-stream", body: stream)

        XCTAssertEqual(deltas, ["Hello"])
        XCTAssertEqual(error as? HTTPError, .transport(.providerError, message: "the LLM's stream carried the error overloaded_error"))
    }

    func testAnErrorStatusThrowsAProviderErrorNamingTheStatusAndTheProvidersCode() async throws {
        let (deltas, error) = try await read(status: 429, contentType: "application/json", body: GenAIFixture.openAIRateLimited.responseBody)
        let (_, gatewayError) = try await read(status: 502, contentType: "text/html", body: "<h1>Bad gateway</h1>")

        XCTAssertEqual(deltas, [])
        XCTAssertEqual(error as? HTTPError, .transport(.providerError, message: "the LLM answered 429 with the error rate_limit_exceeded"))
        XCTAssertEqual(gatewayError as? HTTPError, .transport(.providerError, message: "the LLM answered 502 with no error the package reads"))
    }

    func testABodyInNoFramingItReadsThrowsNamingItsTypeAndAnAnswerOverTheLimitNamesTheLimit() async throws {
        let (_, binary) = try await read(contentType: "application/vnd.amazon.eventstream", body: "\u{0}\u{0}\u{0}")
        let (_, long) = try await read(contentType: "application/json", body: GenAIFixture.anthropicMessage.responseBody, maximumMessageBytes: 64)

        XCTAssertEqual(binary as? HTTPError, .transport(
            .other, message: "GenAITextDeltas reads server-sent events, JSON lines or a JSON body, not application/vnd.amazon.eventstream"
        ))
        XCTAssertEqual(long as? HTTPError, .transport(
            .responseTooLarge, message: "the LLM's answer is over 64 bytes, the maximumMessageBytes given to GenAITextDeltas"
        ))
    }

    func testACutStreamThrowsTheBodysErrorAfterTheDeltasBeforeIt() async throws {
        server.route("POST", "/v1/cut", streaming: { _, writer in
            try writer.writeHead(headers: ["Content-Type": "text/event-stream"], framing: .chunked)
            try writer.write(#"data: {"choices":[{"index":0,"delta":{"content":"Ray"}}]}"# + "\n\n" + #"data: {"choices":[{"in"#)
            writer.dropConnection()
        })
        let (head, body) = try await URLSessionClient().send(HTTPRequest(method: .post, url: server.url("/v1/cut"), timeout: 60), body: nil)
        var deltas: [String] = []
        var thrown: (any Error)?
        do {
            for try await delta in GenAITextDeltas(head: head, body: body) { deltas.append(delta) }
        } catch {
            thrown = error
        }

        XCTAssertEqual(deltas, ["Ray"])
        XCTAssertEqual((thrown as? HTTPError)?.code, .connectionLost, "\(String(describing: thrown))")
    }
}
