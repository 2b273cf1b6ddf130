import Foundation
import HTTPCore
import HTTPCoreObservation
import HTTPCoreGenAI
import HTTPCoreLoopback
import XCTest

/// Secrets an LLM call carries where no single message or body value holds them whole, or in
/// the facts read from it, made for real over loopback and read in every output that shows
/// them: dev-see (its log and what `devsee-tail` prints of it), HAR, Loki, the console, and
/// the GenAI span.
final class OutputsLLMSecretsTests: XCTestCase {
    /// An OpenAI chat completion streamed as `deltas` (JSON string contents, escapes as
    /// written), a last chunk that finishes with `stop`, and `[DONE]`; read to its end, under
    /// `policy` with the GenAI interpreter, which reads the stream's answer.
    private func streamChat(
        _ deltas: [String], through outputs: Outputs, requestBody: String = #"{"model":"gpt-4o","stream":true}"#,
        policy: HTTPCorePolicy = .debug, lastChunk: String = #"{"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}"#
    ) async throws {
        let chunks = deltas.map { #"{"choices":[{"index":0,"delta":{"content":"\#($0)"}}]}"# } + [lastChunk, "[DONE]"]
        outputs.api.route("POST", "/v1/chat/completions", streaming: { _, writer in
            try writer.writeHead(headers: ["Content-Type": "text/event-stream"], framing: .chunked)
            for chunk in chunks { try writer.write("data: \(chunk)\n\n") }
        })
        let request = HTTPRequest(
            method: .post, url: outputs.api.url("/v1/chat/completions"), headers: ["Content-Type": "application/json"],
            body: Data(requestBody.utf8)
        )
        let policy = policy.interpreters.isEmpty ? policy.interpreting(.genAI) : policy
        _ = try await outputs.client(policy: policy).send(request, body: nil) { _, body in
            try await body.collect(upTo: 1 << 20).count
        }
    }

    /// Streams `deltas` through fresh outputs and asserts that every one shows `expected` as
    /// the stream's answer.
    private func assertAnswer(of deltas: [String], is expected: String, file: StaticString = #filePath, line: UInt = #line) async throws {
        let outputs = try Outputs()
        defer { outputs.stop() }
        try await streamChat(deltas, through: outputs)
        let shown = try await outputs.shown(logs: 1, lines: 1)
        let log = try XCTUnwrap(shown.devSee.first, file: file, line: line)
        XCTAssertEqual(log["streamAnswer"] as? String, expected, "dev-see's stored answer", file: file, line: line)
        let body = log["responseBody"] as? String ?? ""
        XCTAssertTrue(body.contains("the OpenAI chat answer:\n\(expected)\n\n[events]"), "dev-see's body: \(body)", file: file, line: line)
        let answer = try XCTUnwrap(shown.har.first?["_streamAnswer"] as? [String: Any], file: file, line: line)
        XCTAssertEqual(answer["text"] as? String, expected, "HAR", file: file, line: line)
        XCTAssertEqual(shown.loki.count, 1, file: file, line: line)
        XCTAssertTrue(shown.loki[0].contains(#" answer="\#(expected)""#), "Loki: \(shown.loki[0])", file: file, line: line)
        let printed = shown.console.joined(separator: "\n")
        XCTAssertTrue(printed.contains("messages):\n    \(expected)\n"), "console: \(printed)", file: file, line: line)
        let tail = try XCTUnwrap(shown.tail.first, file: file, line: line)
        XCTAssertTrue(tail.hasSuffix("answer: \(expected)"), "devsee-tail: \(tail)", file: file, line: line)
    }

    // MARK: The assembled answer

    func testAKeySplitOverTwoDeltasIsMaskedInTheAnswerOfEveryOutput() async throws {
        try await assertAnswer(
            of: ["Your key is sk-proj-AbCd", "Ef12GhIj34KlMnOp56QrStUv78WxYz90AbCdEfGhIj12KlMn. Keep it safe."],
            is: "Your key is [REDACTED]. Keep it safe."
        )
    }

    func testAJWTSplitOverTwoDeltasIsMaskedInTheAnswerOfEveryOutput() async throws {
        try await assertAnswer(
            of: ["Here it is eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0", ".dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U and more"],
            is: "Here it is [REDACTED] and more"
        )
    }

    func testAPasswordPairSplitOverTwoDeltasIsMaskedInTheAnswerOfEveryOutput() async throws {
        try await assertAnswer(of: ["Set DB_PASS", "WORD=hunter2secret and restart."], is: "Set DB_PASSWORD=[REDACTED] and restart.")
    }

    func testAnEscapedKeyIsMaskedInTheAnswerOfEveryOutputAsThePlainKeyWouldBe() async throws {
        try await assertAnswer(of: [#"The key \u0073k-proj-AbCdEf12GhIj34KlMnOp56QrStUv78WxYz90 works"#], is: "The key [REDACTED] works")
    }

    func testAKeyMaskedInItsFirstDeltaShowsNoTailFromTheNext() async throws {
        try await assertAnswer(of: ["Use sk-proj-AbCdEf12GhIj34KlMnOp56QrStUv", "78WxYz90AbCd now."], is: "Use [REDACTED] now.")
    }

    func testOrdinaryIdsSplitOverDeltasStayInTheAnswerAsTheyWere() async throws {
        try await assertAnswer(
            of: ["Request 3f2b9c1e-8a7d-4c2b-", "9e1f-0a1b2c3d4e5f failed at commit 9fceb02d0ae598e9", "5dc970b74767f19372d61af8; max_tokens=256."],
            is: "Request 3f2b9c1e-8a7d-4c2b-9e1f-0a1b2c3d4e5f failed at commit 9fceb02d0ae598e95dc970b74767f19372d61af8; max_tokens=256."
        )
    }

    // MARK: GenAI facts

    /// The `genAI` attributes dev-see stored and HAR wrote, and the span's.
    private func attributes(_ shown: Shown) throws -> (devSee: [String: Any], har: [String: Any], span: [String: HTTPExchangeNote.Value]) {
        let devSee = try XCTUnwrap(shown.devSee.first?["genAI"] as? [String: Any])
        let har = try XCTUnwrap((shown.har.first?["_genAI"] as? [String: Any])?["attributes"] as? [String: Any])
        let span = try XCTUnwrap(shown.spans.first).attributes
        return (devSee, har, span)
    }

    /// Whether `summary` is a call's with `model`, no usage, a time to the first chunk (which
    /// varies) and `finish`.
    private static func isSummary(_ summary: Substring?, model: String, finish: String) -> Bool {
        guard let summary else { return false }
        return summary.hasPrefix("\(model) · no usage · first chunk ") && summary.hasSuffix(" · \(finish)")
    }

    /// The summaries dev-see's `[genAI]` line, HAR's `_genAI`, the console's `[genAI]` line and
    /// `devsee-tail`'s `genAI:` show.
    private static func summaries(_ shown: Shown) -> (devSee: Substring?, har: Substring?, console: Substring?, tail: Substring?) {
        let body = shown.devSee.first?["responseBody"] as? String ?? ""
        let devSee = body.split(separator: "\n").first.flatMap { $0.hasPrefix("[genAI] ") ? $0.dropFirst("[genAI] ".count) : nil }
        let har = ((shown.har.first?["_genAI"] as? [String: Any])?["summary"] as? String).map { Substring($0) }
        let console = shown.console.flatMap { $0.split(separator: "\n") }.last { $0.hasPrefix("[genAI] ") }?.dropFirst("[genAI] ".count)
        let tail = shown.tail.first.flatMap { $0.components(separatedBy: "genAI: ").dropFirst().first?.components(separatedBy: "  ").first }
        return (devSee, har, console, tail.map { Substring($0) })
    }

    /// Asserts that every output that shows a call's summary shows the one of `model` and `finish`.
    private func assertSummary(model: String, finish: String, in shown: Shown, file: StaticString = #filePath, line: UInt = #line) {
        let shownSummaries = Self.summaries(shown)
        let outputs = [
            ("dev-see", shownSummaries.devSee), ("HAR", shownSummaries.har), ("console", shownSummaries.console), ("devsee-tail", shownSummaries.tail),
        ]
        for (output, summary) in outputs {
            XCTAssertTrue(Self.isSummary(summary, model: model, finish: finish), "\(output): \(summary ?? "none")", file: file, line: line)
        }
    }

    /// Asserts that every output shows the call's model as masked: the summaries, the
    /// attributes, Loki's field and the span's name.
    private func assertMaskedModel(in shown: Shown, operation: String, file: StaticString = #filePath, line: UInt = #line) throws {
        assertSummary(model: "[REDACTED]", finish: "stop", in: shown, file: file, line: line)
        let (devSee, har, span) = try attributes(shown)
        XCTAssertEqual(devSee["gen_ai.request.model"] as? String, "[REDACTED]", "dev-see", file: file, line: line)
        XCTAssertEqual(har["gen_ai.request.model"] as? String, "[REDACTED]", "HAR", file: file, line: line)
        XCTAssertEqual(span["gen_ai.request.model"], .string("[REDACTED]"), "span", file: file, line: line)
        XCTAssertEqual(shown.spans.first?.name, "\(operation) [REDACTED]", "span", file: file, line: line)
        XCTAssertTrue(shown.loki[0].contains(" gen_ai.request.model=[REDACTED] "), shown.loki[0], file: file, line: line)
    }

    func testAKeyPastedAsTheModelIsMaskedInEveryOutput() async throws {
        let outputs = try Outputs()
        defer { outputs.stop() }
        let key = "sk-proj-AbCdEf12GhIj34KlMnOp56QrStUv78WxYz90"
        try await streamChat(
            ["Hello"], through: outputs, requestBody: #"{"model":"\#(key)","stream":true}"#, policy: outputs.recognizingLLMCalls()
        )
        let shown = try await outputs.shown(logs: 1, lines: 1)
        try assertMaskedModel(in: shown, operation: "chat")
        let shownTexts = [
            ("dev-see", "\(shown.devSee)"), ("HAR", "\(shown.har)"), ("Loki", shown.loki[0]), ("console", "\(shown.console)"), ("spans", "\(shown.spans)"),
        ]
        for (output, text) in shownTexts {
            XCTAssertFalse(text.contains(key), "\(output) shows the key")
        }
    }

    func testAGeminiModelPathHoldingAKeyIsMaskedInTheFactsOfEveryOutput() async throws {
        let outputs = try Outputs()
        defer { outputs.stop() }
        let key = "AIzaSyA1b2C3d4E5f6G7h8I9j0KlMnOpQrStUvW"
        outputs.api.route("POST", "/v1beta/models/\(key):streamGenerateContent", streaming: { _, writer in
            try writer.writeHead(headers: ["Content-Type": "text/event-stream"], framing: .chunked)
            try writer.write(#"data: {"candidates":[{"content":{"parts":[{"text":"Hi"}]},"finishReason":"STOP"}]}"# + "\n\n")
        })
        let request = HTTPRequest(
            method: .post, url: outputs.api.url("/v1beta/models/\(key):streamGenerateContent?alt=sse"),
            headers: ["Content-Type": "application/json"], body: Data(#"{"contents":[]}"#.utf8)
        )
        _ = try await outputs.client(policy: outputs.recognizingLLMCalls()).send(request, body: nil) { _, body in
            try await body.collect(upTo: 1 << 20).count
        }
        try assertMaskedModel(in: try await outputs.shown(logs: 1, lines: 1), operation: "generate_content")
    }

    func testStopSequencesUnderAPolicysSensitiveNameAreMaskedInEveryOutput() async throws {
        let outputs = try Outputs(sinkRedactor: Redactor(sensitiveBodyKeys: ["stop"]))
        defer { outputs.stop() }
        var policy = outputs.recognizingLLMCalls()
        policy.redactor = Redactor(sensitiveBodyKeys: ["stop"])
        try await streamChat(["Hi"], through: outputs, requestBody: #"{"model":"gpt-4o","stream":true,"stop":["</end>"]}"#, policy: policy)
        let (devSee, har, span) = try attributes(try await outputs.shown(logs: 1, lines: 1))
        XCTAssertEqual(devSee["gen_ai.request.stop_sequences"] as? [String], ["[REDACTED]"])
        XCTAssertEqual(har["gen_ai.request.stop_sequences"] as? [String], ["[REDACTED]"])
        XCTAssertEqual(span["gen_ai.request.stop_sequences"], .stringArray(["[REDACTED]"]))
        XCTAssertEqual(devSee["gen_ai.request.model"] as? String, "gpt-4o", "a fact under no sensitive name is kept")
    }

    func testASinksOwnSensitiveNameLeavesTheStopSequencesAsThePolicyExposedThem() async throws {
        let outputs = try Outputs(sinkRedactor: Redactor(sensitiveBodyKeys: ["stop"]))
        defer { outputs.stop() }
        try await streamChat(
            ["Hi"], through: outputs, requestBody: #"{"model":"gpt-4o","stream":true,"stop":["</end>"]}"#, policy: outputs.recognizingLLMCalls()
        )
        let shown = try await outputs.shown(logs: 1, lines: 1)
        let (devSee, har, span) = try attributes(shown)
        // The policy is the one place an exchange is redacted: every output shows its view.
        XCTAssertEqual(devSee["gen_ai.request.stop_sequences"] as? [String], ["</end>"], "dev-see's redactor is for its manual API")
        XCTAssertEqual(har["gen_ai.request.stop_sequences"] as? [String], ["</end>"])
        XCTAssertEqual(span["gen_ai.request.stop_sequences"], .stringArray(["</end>"]))
    }

    func testAStrictSinkShowsEveryTextFactAsThePolicyExposedIt() async throws {
        let outputs = try Outputs(sinkRedactor: .strict)
        defer { outputs.stop() }
        try await streamChat(
            ["Hi"], through: outputs, policy: outputs.recognizingLLMCalls(),
            lastChunk: #"{"id":"chatcmpl-B9MBs8CjcvOU2jLn4n570S5qMJKcT","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}"#
        )
        let shown = try await outputs.shown(logs: 1, lines: 1)
        // The policy's `.standard` view in every output, `.strict` would mask each of them.
        assertSummary(model: "gpt-4o", finish: "stop", in: shown)
        let (devSee, har, _) = try attributes(shown)
        for (output, attributes) in [("dev-see", devSee), ("HAR", har)] {
            XCTAssertEqual(attributes["gen_ai.request.model"] as? String, "gpt-4o", output)
            XCTAssertEqual(attributes["gen_ai.response.id"] as? String, "chatcmpl-B9MBs8CjcvOU2jLn4n570S5qMJKcT", output)
            XCTAssertEqual(attributes["gen_ai.response.finish_reasons"] as? [String], ["stop"], output)
        }
        XCTAssertTrue(shown.loki[0].contains(" gen_ai.request.model=gpt-4o "), shown.loki[0])
        XCTAssertTrue(shown.loki[0].contains(" gen_ai.response.finish_reasons=stop "), shown.loki[0])
    }

    func testAStrictSinkShowsTheProvidersErrorCodeAsThePolicyExposedIt() async throws {
        let outputs = try Outputs(sinkRedactor: .strict)
        defer { outputs.stop() }
        try await streamChat(
            ["Hi"], through: outputs, policy: outputs.recognizingLLMCalls(),
            lastChunk: #"{"error":{"code":"rate_limit_exceeded","message":"Slow down"}}"#
        )
        let shown = try await outputs.shown(logs: 1, lines: 1)
        XCTAssertTrue(shown.loki[0].contains(" gen_ai.error.type=rate_limit_exceeded"), shown.loki[0])
        let (devSee, har, _) = try attributes(shown)
        XCTAssertEqual(devSee["error.type"] as? String, "rate_limit_exceeded")
        XCTAssertEqual(har["error.type"] as? String, "rate_limit_exceeded")
    }
}
