import Foundation
import HTTPCore
import HTTPCoreObservation
import HTTPCoreTesting
import XCTest

@testable import DevSeeObserver

final class WebSocketTranscriptTests: XCTestCase {
    /// The message events of a connection that sent `count` messages of `size` bytes.
    private func messageEvents(count: Int, size: Int) throws -> [HTTPEvent] {
        let dispatcher = HTTPEventDispatcher()
        let recorder = RecordingObserver()
        dispatcher.subscribe(recorder)
        let client = HTTPTransportClient(transport: MockTransport(), dispatcher: dispatcher, policy: .debug)
        let observation = try client.observeWebSocket(HTTPRequest(url: URL(string: "wss://a.example/live")!))
        observation.opened(HTTPResponse.Head(requestID: observation.request.id, statusCode: 101, url: observation.request.url))
        for _ in 0..<count { observation.received(.text, [UInt8](repeating: UInt8(ascii: "a"), count: size)) }
        return recorder.events.filter { $0.name == .responseMessage }
    }

    func testItKeepsTheFirstAndTheLatestMessagesWithinItsCountAndCountsTheOthers() throws {
        var transcript = WebSocketTranscript(maxMessages: 10, maxBytes: 1 << 20)
        for event in try messageEvents(count: 1000, size: 8) { transcript.append(event) }

        XCTAssertEqual(transcript.head.map(\.messageIndex), Array(0..<5))
        XCTAssertEqual(transcript.tail.map(\.messageIndex), Array(995..<1000))
        XCTAssertEqual(transcript.skippedCount, 990)
    }

    func testTheBytesItKeepsAliveStayWithinItsBoundHoweverManyMessagesCome() throws {
        var transcript = WebSocketTranscript(maxMessages: 100, maxBytes: 8 * 1024)
        for event in try messageEvents(count: 500, size: 1024) { transcript.append(event) }

        XCTAssertLessThanOrEqual(transcript.byteCount, 8 * 1024)
        XCTAssertGreaterThan(transcript.keptCount, 0)
        XCTAssertEqual(transcript.keptCount + transcript.skippedCount, 500)
    }
}
