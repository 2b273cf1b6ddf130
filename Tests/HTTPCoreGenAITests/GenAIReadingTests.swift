@testable import HTTPCore
@testable import HTTPCoreObservation
import Foundation
@testable import HTTPCoreGenAI
import HTTPCoreTestPeers
import XCTest

/// What the GenAI reading takes of an LLM call's streamed response as a body tap shows it.
final class GenAIReadingTests: XCTestCase {
    func testAnLLMStreamsMessagesAreNotParsedOnTheReadingTask() async throws {
        let fixture = GenAIFixture.anthropicStream
        let reading = try XCTUnwrap(GenAIRecognizer.standard.reading(for: fixture.request))
        let head = HTTPResponse.Head(requestID: fixture.request.id, statusCode: 200, headers: ["Content-Type": "text/event-stream"], url: fixture.request.url)
        let tap = BodyTap(
            captureLimit: 0, contentType: "text/event-stream", readings: [reading], head: head, began: DispatchTime.now().uptimeNanoseconds
        )
        let chunks = AsyncStream { stream in
            for event in fixture.events { stream.yield(HTTPBody.ByteChunk(event.utf8)) }
            stream.finish()
        }
        let body = tap.watching(HTTPBody(chunks, length: .unknown))
        for try await _ in body {}
        let read = try XCTUnwrap(try XCTUnwrap(tap.readings?.first as? GenAIReading).tap)
        XCTAssertEqual(read.readMessageCount, 0, "the reading task parsed no message")
        XCTAssertEqual(read.unreadMessageCount, 8)
        let response = read.response
        XCTAssertEqual(response.messageCount, 8)
        XCTAssertEqual(response.outputChunkCount, 2)
        XCTAssertEqual(response.usage?.outputTokens, 15)
        XCTAssertEqual(response.id, "msg_01XFDUDYJgAACzvnptvVoYEL")
    }
}
