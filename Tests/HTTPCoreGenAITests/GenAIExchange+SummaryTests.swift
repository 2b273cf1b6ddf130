@testable import HTTPCore
@testable import HTTPCoreGenAI
import HTTPCoreTestPeers
import XCTest

/// The one line every sink shows beside a call's answer.
final class GenAIExchangeSummaryTests: XCTestCase {
    func testAStreamedCallReadsModelTokensFirstChunkAndFinish() throws {
        XCTAssertEqual(
            try GenAIFixture.openAIChatStream.exchange().summary,
            "gpt-4o-mini-2024-07-18 · 1,214 in, 9 out tokens · first chunk 625 ms · stop"
        )
    }

    func testUsageTheProviderDidNotSendIsSaidNotGuessed() throws {
        XCTAssertEqual(try GenAIFixture.openAIToolCallStream.exchange().summary, "gpt-4.1-2025-04-14 · no usage · first chunk 500 ms · tool_call")
    }

    func testABodyHasNoFirstChunkAndAnErrorReplacesTheFinishReason() throws {
        XCTAssertEqual(try GenAIFixture.openAIRateLimited.exchange().summary, "gpt-4o · no usage · error rate_limit_exceeded")
        var unknown = try GenAIFixture.openAIRateLimited.exchange()
        unknown.request.model = nil
        unknown.response.usage = GenAIUsage(inputTokens: 12_345_678)
        XCTAssertEqual(unknown.summary, "chat, model unknown · 12,345,678 in tokens · error rate_limit_exceeded")
    }
}
