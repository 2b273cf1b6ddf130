@testable import HTTPCore
@testable import HTTPCoreObservation
@testable import HTTPCoreGenAI
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

    func testMessagesAreKeptUnreadUntilTheFactsAreAskedFor() throws {
        let fixture = GenAIFixture.anthropicStream
        var tap = try tap(fixture)
        for (index, message) in fixture.messages.enumerated() {
            tap.read(message, arrivedAt: 500_000_000 + UInt64(index) * 125_000_000)
        }
        XCTAssertEqual(tap.readMessageCount, 0, "no message parsed on the reading task")
        XCTAssertEqual(tap.unreadMessageCount, 8)
        XCTAssertEqual(tap.response, try fixture.exchange().response, "the fixture's times: 0.5 s, then every 0.125 s")
        XCTAssertEqual(tap.readMessageCount, 0, "asking reads a copy: the tap stays as it was")
    }

    func testAStreamLongerThanTheBudgetIsReadAsItPassesAndKeepsUnderTheBudget() throws {
        let fixture = GenAIFixture.openAIChatStream
        var tap = try tap(fixture)
        var direct = GenAIResponseReader(try XCTUnwrap(GenAIRecognizer.standard.recognize(method: .post, url: URL(string: fixture.url)!)))
        let delta = try XCTUnwrap(fixture.messages.dropFirst().first, "a content delta")
        let stream = [fixture.messages[0]] + Array(repeating: delta, count: 3000) + fixture.messages.dropFirst()
        XCTAssertGreaterThan(stream.reduce(0) { $0 + $1.data.count }, 2 * GenAIResponseTap.unreadMessageBudget)
        var mostUnread = 0
        for (index, message) in stream.enumerated() {
            let uptime = 1_000_000_000 + UInt64(index) * 1_000_000
            tap.read(message, arrivedAt: uptime)
            direct.read(eventType: message.eventType, data: message.data, arrivedAfter: Double(uptime) / 1_000_000_000)
            mostUnread = max(mostUnread, tap.unreadRetainedByteCount)
        }
        XCTAssertLessThanOrEqual(mostUnread, GenAIResponseTap.unreadMessageBudget, "capacities included")
        XCTAssertGreaterThan(mostUnread, GenAIResponseTap.unreadMessageBudget * 3 / 4, "the budget is used before reading")
        XCTAssertGreaterThan(tap.readMessageCount, 2000, "read on the reading task when the budget would be passed")
        XCTAssertGreaterThan(tap.unreadMessageCount, 0)
        XCTAssertEqual(tap.readMessageCount + tap.unreadMessageCount, 3007)
        let response = tap.response
        XCTAssertEqual(response, direct.response)
        XCTAssertEqual(response.messageCount, 3007)
        XCTAssertEqual(response.outputChunkCount, 3003, "the fixture's three deltas and the 3,000 repeated")
        XCTAssertEqual(response.outputChunkIntervals.count, 3002)
        XCTAssertEqual(response.timeToFirstChunk, 1.001)
        XCTAssertEqual(response.usage?.outputTokens, 9)
        XCTAssertEqual(response.finishReasons, ["stop"])
    }

    func testItsRetainedByteCountIsTheReadersPlusWhatItKeepsUnread() throws {
        let fixture = GenAIFixture.anthropicStream
        var tap = try tap(fixture)
        XCTAssertEqual(tap.retainedByteCount, 0)
        for message in fixture.messages { tap.read(message, arrivedAt: 1_000_000_000) }
        let kept = fixture.messages.reduce(0) { $0 + $1.data.count }
        XCTAssertEqual(tap.retainedByteCount, tap.unreadRetainedByteCount)
        XCTAssertGreaterThanOrEqual(tap.retainedByteCount, kept)
        XCTAssertLessThan(tap.retainedByteCount, 2 * kept + 1024, "its buffers double as they grow; a table of event types")
    }

    func testAMessageLongerThanTheCapIsCountedButNotRead() throws {
        let fixture = GenAIFixture.anthropicStream
        var tap = try tap(fixture)
        let text = String(repeating: "x", count: GenAIRecognizer.maximumMessageBytes)
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
