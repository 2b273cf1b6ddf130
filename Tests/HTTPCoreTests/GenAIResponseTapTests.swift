@testable import HTTPCore
import Foundation
import HTTPCoreTestPeers
import XCTest

/// What a body tap reads of an LLM call's streamed response.
final class GenAIResponseTapTests: XCTestCase {
    private func tap(_ fixture: GenAIFixture) throws -> GenAIResponseTap {
        let call = try XCTUnwrap(GenAIRecognizer.standard.recognize(method: .post, url: URL(string: fixture.url)!))
        return GenAIResponseTap(call, headers: [:], began: 0, keepsBody: false)
    }

    /// `message` as a parser capped below its size hands it over.
    private func cut(_ message: StreamMessageParser.Message) -> StreamMessageParser.Message {
        message.prefix(message.data.count - 1)
    }

    func testEveryCompleteMessageIsRead() throws {
        let fixture = GenAIFixture.anthropicStream
        var tap = try tap(fixture)
        for message in fixture.messages { tap.read(message, arrivedAt: 1_000_000_000) }
        XCTAssertEqual(tap.response.messageCount, 8)
        XCTAssertEqual(tap.response.usage?.outputTokens, 15)
        XCTAssertEqual(tap.response.id, "msg_01XFDUDYJgAACzvnptvVoYEL")
    }

    func testAMessageLongerThanTheCapIsCountedButNotRead() throws {
        let fixture = GenAIFixture.anthropicStream
        var tap = try tap(fixture)
        let text = String(repeating: "x", count: HTTPCorePolicy.maximumGenAIMessageBytes)
        let data = Data(#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"\#(text)"}}"#.utf8)
        let long = StreamMessageParser.Message(
            kind: .serverSentEvent, eventType: "content_block_delta", eventID: nil, data: data, byteCount: data.count, isTruncated: false
        )
        tap.read(long, arrivedAt: 1_000_000_000)
        XCTAssertEqual(tap.response.messageCount, 1)
        XCTAssertEqual(tap.response.outputChunkCount, 0)
        XCTAssertNil(tap.response.timeToFirstChunk)
    }

    func testAMessageCutShortIsCountedButNotRead() throws {
        let fixture = GenAIFixture.anthropicStream
        var tap = try tap(fixture)
        for message in fixture.messages { tap.read(cut(message), arrivedAt: 1_000_000_000) }
        XCTAssertEqual(tap.response.messageCount, 8, "each still counts as a message")
        XCTAssertNil(tap.response.usage, "no fact is taken from a cut message")
        XCTAssertNil(tap.response.id)
        XCTAssertEqual(tap.response.outputChunkCount, 0)
    }
}
