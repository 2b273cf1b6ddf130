@testable import HTTPCore
import Foundation
import HTTPCoreTestPeers
import XCTest

/// What a body tap takes of an LLM call's streamed response as the body is read.
final class BodyTapTests: XCTestCase {
    func testAnLLMStreamsMessagesAreNotParsedOnTheReadingTask() async throws {
        let fixture = GenAIFixture.anthropicStream
        let call = try XCTUnwrap(GenAIRecognizer.standard.recognize(fixture.request))
        let tap = BodyTap(captureLimit: 0, contentType: "text/event-stream", genAI: (call, [:], DispatchTime.now().uptimeNanoseconds))
        let chunks = AsyncStream { stream in
            for event in fixture.events { stream.yield(HTTPBody.ByteChunk(event.utf8)) }
            stream.finish()
        }
        let body = tap.watching(HTTPBody(chunks, length: .unknown))
        for try await _ in body {}
        let read = try XCTUnwrap(tap.genAIRead)
        XCTAssertEqual(read.readMessageCount, 0, "the reading task parsed no message")
        XCTAssertEqual(read.unreadMessageCount, 8)
        let response = read.response
        XCTAssertEqual(response.messageCount, 8)
        XCTAssertEqual(response.outputChunkCount, 2)
        XCTAssertEqual(response.usage?.outputTokens, 15)
        XCTAssertEqual(response.id, "msg_01XFDUDYJgAACzvnptvVoYEL")
    }
}
