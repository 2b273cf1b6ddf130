import Foundation
import HTTPCore
import HTTPCoreObservation
import HTTPCoreGenAI
import HTTPCoreHAR
import HTTPCoreTestPeers
import HTTPCoreTesting
import XCTest

/// An LLM call's entry carries `_genAI`, its summary and OpenTelemetry GenAI attributes, and
/// stays a valid HAR 1.2 entry.
final class HARGenAITests: XCTestCase {
    /// The file `HARRecorder` wrote for `fixture`'s call through a client with `policy`, checked
    /// by the HAR 1.2 checker, and its only entry.
    private func recorded(_ fixture: GenAIFixture, policy: HTTPCorePolicy) async throws -> (file: String, entry: [String: Any]) {
        let recorder = HARRecorder()
        let dispatcher = HTTPEventDispatcher()
        dispatcher.subscribe(recorder)
        try await fixture.send(through: dispatcher, policy: policy)
        await dispatcher.flush()
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("har-genai-\(UUID().uuidString).har")
        defer { try? FileManager.default.removeItem(at: url) }
        try recorder.write(to: url)
        // Read first: a skip (haralyzer missing) thrown inside the assertion would be a failure.
        let report = try HARConsumer.check(url)
        XCTAssertEqual(report.errors, [], "HAR 1.2 rules")
        let file = try Data(contentsOf: url)
        let entries = try HARFile.entries(of: file)
        XCTAssertEqual(entries.count, 1)
        return (String(decoding: file, as: UTF8.self), entries[0])
    }

    /// The `_genAI` member as written, each line without its indentation, times shown as `<t>`.
    private func genAIMember(_ file: String) throws -> [String] {
        try HARFile.member("_genAI", in: file).map {
            GenAIFixture.timesHidden(in: $0)
                .replacingOccurrences(of: #"time_to_first_chunk": [0-9.e-]+"#, with: #"time_to_first_chunk": <t>"#, options: .regularExpression)
        }
    }

    func testAStreamedAnthropicCallsEntryCarriesItsSummaryAndAttributesUnderBothPolicies() async throws {
        for policy in [HTTPCorePolicy.debug, .release] {
            let (file, entry) = try await recorded(.anthropicStream, policy: policy)
            XCTAssertEqual(try genAIMember(file), [
                #""_genAI": {"#,
                #""summary": "claude-sonnet-4-20250514 · 3,097 in, 15 out tokens · first chunk <t> · stop","#,
                #""attributes": {"#,
                #""gen_ai.provider.name": "anthropic","#,
                #""gen_ai.operation.name": "chat","#,
                #""gen_ai.request.model": "claude-sonnet-4-20250514","#,
                #""gen_ai.request.max_tokens": 1024,"#,
                #""gen_ai.request.temperature": 0.7,"#,
                #""gen_ai.request.top_p": 0.95,"#,
                #""gen_ai.request.top_k": 40,"#,
            ] + (policy == .release ? [] : [
                // The caller's text: shown only when bodies are.
                #""gen_ai.request.stop_sequences": ["#,
                #""\n\nHuman:""#,
                #"],"#,
            ]) + [
                #""gen_ai.request.stream": true,"#,
                #""gen_ai.response.id": "msg_01XFDUDYJgAACzvnptvVoYEL","#,
                #""gen_ai.response.model": "claude-sonnet-4-20250514","#,
                #""gen_ai.response.finish_reasons": ["#,
                #""stop""#,
                #"],"#,
                #""gen_ai.response.time_to_first_chunk": <t>,"#,
                #""gen_ai.usage.input_tokens": 3097,"#,
                #""gen_ai.usage.output_tokens": 15,"#,
                #""gen_ai.usage.cache_read.input_tokens": 2048,"#,
                #""gen_ai.usage.cache_creation.input_tokens": 1024,"#,
                #""server.address": "api.anthropic.com","#,
                #""server.port": 443"#,
                #"}"#,
                #"}"#,
            ], "\(policy)")
            XCTAssertEqual(entry.keys.filter { $0.hasPrefix("_genAI") }, ["_genAI"])
        }
    }

    func testAnExchangeThatIsNoLLMCallHasNoGenAIMember() async throws {
        var fixture = GenAIFixture.openAIChatCompletion
        fixture.url = "https://api.example.com/v1/chat/completions"
        let (file, entry) = try await recorded(fixture, policy: .debug)
        XCTAssertNil(entry["_genAI"])
        XCTAssertFalse(file.contains("gen_ai"))
    }
}
