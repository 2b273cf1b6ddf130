@testable import HTTPCore
@testable import HTTPCoreObservation
@testable import HTTPCoreGenAI
import Foundation
import HTTPCoreTesting
import HTTPCoreTestPeers
import XCTest

/// An LLM call's record derives its facts when they are first read, once, not as its event
/// is emitted.
final class GenAIExchangeRecordTests: XCTestCase {
    private func record(_ fixture: GenAIFixture) throws -> GenAIExchangeRecord {
        let request = fixture.request
        let call = try XCTUnwrap(GenAIRecognizer.standard.recognize(request))
        let response = HTTPResponse(
            requestID: request.id, statusCode: 200, headers: ["Content-Type": "application/json"], body: Data(fixture.responseBody.utf8),
            url: request.url
        )
        return GenAIExchangeRecord(
            call, request: request, policy: .debug, response: .whole(response), error: nil
        )
    }

    func testTheFactsAreDerivedOnFirstReadAndKept() throws {
        let record = try record(.openAIChatCompletion)
        XCTAssertFalse(record.isDerived)
        let first = record.exchange
        XCTAssertTrue(record.isDerived)
        XCTAssertEqual(first, try GenAIFixture.openAIChatCompletion.exchange())
        XCTAssertEqual(record.exchange, first)
    }

    func testABufferedCallsTerminalEventDerivesNothingUntilAnObserverReadsIt() async throws {
        let dispatcher = HTTPEventDispatcher()
        let recorder = RecordingObserver()
        dispatcher.subscribe(recorder)
        let fixture = GenAIFixture.openAIChatCompletion
        let transport = MockTransport(default: .status(200, body: Data(fixture.responseBody.utf8), headers: ["Content-Type": "application/json"]))
        _ = try await HTTPTransportClient(transport: transport, dispatcher: dispatcher, policy: .debug.interpreting(.genAI)).send(fixture.request)
        let events = try await recorder.waitForTerminalEvents(count: 1)
        let end = try XCTUnwrap(events.last)
        let record = try XCTUnwrap(end.genAIRecord)
        XCTAssertFalse(record.isDerived, "the bodies were not parsed as the event was emitted")
        XCTAssertEqual(end.genAI?.response.usage?.inputTokens, 1380)
        XCTAssertTrue(record.isDerived)
    }

    func testFactsGivenWholeAreKeptAsGiven() throws {
        let facts = try GenAIFixture.openAIRateLimited.exchange()
        let record = GenAIExchangeRecord(facts)
        XCTAssertTrue(record.isDerived)
        XCTAssertEqual(record.exchange, facts)
    }
}

/// What an LLM call's record counts as the bytes it keeps alive.
final class GenAIExchangeRecordRetainedBytesTests: XCTestCase {
    func testItCountsTheFactsStrings() throws {
        var facts = try GenAIFixture.openAIChatCompletion.exchange()
        let before = GenAIExchangeRecord(facts).retainedByteCount
        let model = String(repeating: "m", count: 10_000)
        facts.request.model = model
        facts.response.model = model
        XCTAssertGreaterThanOrEqual(GenAIExchangeRecord(facts).retainedByteCount - before, 2 * 10_000)
    }

    func testItCountsWithoutDerivingTheFacts() throws {
        let fixture = GenAIFixture.openAIChatCompletion
        let request = fixture.request
        let call = try XCTUnwrap(GenAIRecognizer.standard.recognize(request))
        var tap = GenAIResponseTap(call, headers: [:], began: 0, keepsBody: true)
        tap.keep(ArraySlice(fixture.responseBody.utf8))
        let record = GenAIExchangeRecord(
            call, request: request, policy: .debug, response: .streamed(head: nil, read: tap),
            error: nil
        )
        XCTAssertGreaterThanOrEqual(record.retainedByteCount, fixture.responseBody.utf8.count, "the JSON body the tap kept")
        XCTAssertFalse(record.isDerived)
    }
}
