import Foundation
import XCTest

@testable import HTTPCoreObservation

/// Each transition of a connection's state machine on its own, without a client.
final class WebSocketObservationStateTests: XCTestCase {
    private let opened = WebSocketObservationState.Opened(
        head: ResponseRecord(
            response: HTTPResponse(requestID: HTTPRequest.ID(rawValue: 1), statusCode: 101, headers: [:], body: Data(), url: URL(string: "wss://example.com")!),
            policy: .debug
        ),
        timing: HTTPEvent.AttemptTiming(startedAt: Date(timeIntervalSince1970: 0), ended: nil)
    )

    func testAMessageBeforeTheOpenIsNeitherCountedNorEmitted() {
        var state = WebSocketObservationState(maxEmittedMessages: 10)
        XCTAssertNil(state.message(.received, byteCount: 5, at: 1, emits: true))
        XCTAssertTrue(state.open(opened))
        XCTAssertFalse(state.open(opened))
        XCTAssertEqual(state.end()?.counts.all, 0)
    }

    func testMessagesAreNumberedByEmissionTimedFromThePreviousAndCountedPastTheCap() {
        var state = WebSocketObservationState(maxEmittedMessages: 2)
        XCTAssertTrue(state.open(opened))
        let first = state.message(.sent, byteCount: 3, at: 1_000_000, emits: true)
        let second = state.message(.received, byteCount: 4, at: 3_500_000, emits: true)
        let third = state.message(.received, byteCount: 5, at: 4_000_000, emits: true)
        XCTAssertEqual(first?.index, 0)
        XCTAssertNil(first?.millisecondsSincePrevious)
        XCTAssertEqual(second?.index, 1)
        XCTAssertEqual(second?.millisecondsSincePrevious, 2.5)
        XCTAssertNil(third)
        let end = state.end()
        XCTAssertEqual(end?.counts.sentMessages, 1)
        XCTAssertEqual(end?.counts.receivedMessages, 2)
        XCTAssertEqual(end?.counts.sentBytes, 3)
        XCTAssertEqual(end?.counts.receivedBytes, 9)
        XCTAssertEqual(end?.counts.emitted, 2)
    }

    func testTheEndIsReportedOnceAndNothingIsCountedAfterIt() {
        var state = WebSocketObservationState(maxEmittedMessages: 10)
        XCTAssertTrue(state.open(opened))
        XCTAssertNotNil(state.end())
        XCTAssertNil(state.end())
        XCTAssertNil(state.message(.received, byteCount: 1, at: 1, emits: true))
        XCTAssertFalse(state.open(opened))
    }

    func testWithoutEmittingMessagesAreStillCounted() {
        var state = WebSocketObservationState(maxEmittedMessages: 10)
        XCTAssertTrue(state.open(opened))
        XCTAssertNil(state.message(.received, byteCount: 7, at: 1, emits: false))
        XCTAssertEqual(state.end()?.counts.receivedBytes, 7)
    }
}
