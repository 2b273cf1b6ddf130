import Foundation
import HTTPCore
import HTTPCoreObservation
import HTTPCoreTesting
import XCTest

/// Events made as values, without a client: each factory carries what its step carries, and
/// an event made so reads as the one a client emits for the same exchange.
final class HTTPEventValuesTests: XCTestCase {
    private let request = LoginExchange.request
    private let start = LoginExchange.start

    private func response(_ status: Int) -> HTTPResponse { LoginExchange.response(status) }

    func testEachStepCarriesItsOwnFieldsAndTimes() {
        let created = HTTPEvent.requestCreated(request, at: start)
        XCTAssertEqual(created.name, .requestCreated)
        XCTAssertEqual(created.attempt, 0)
        XCTAssertEqual(created.timestamp, start)
        XCTAssertNil(created.startedAt)
        XCTAssertNil(created.response)

        let started = HTTPEvent.requestStarted(request, attempt: 2, at: start)
        XCTAssertEqual(started.name, .requestStarted)
        XCTAssertEqual(started.attempt, 2)
        XCTAssertEqual(started.attemptStartedAt, start)
        XCTAssertNil(started.attemptEndedAt)

        let received = HTTPEvent.responseReceived(response(201), to: request, startedAt: start, receivedAt: start + 0.25)
        XCTAssertEqual(received.name, .responseReceived)
        XCTAssertEqual(received.statusCode, 201)
        XCTAssertEqual(received.attemptEndedAt, start + 0.25)
        XCTAssertEqual(received.attemptDurationMilliseconds ?? 0, 250, accuracy: 0.001)
        XCTAssertNil(received.endedAt)

        let retried = HTTPEvent.requestRetried(request, attempt: 1, outcome: .success(response(503)), startedAt: start, endedAt: start + 1)
        XCTAssertEqual(retried.name, .requestRetried)
        XCTAssertEqual(retried.statusCode, 503)
        XCTAssertNil(retried.error)
        XCTAssertEqual(retried.durationMilliseconds ?? 0, 1000, accuracy: 0.001)

        let lost = HTTPEvent.requestRetried(request, attempt: 1, outcome: .failure(.timeout), startedAt: start, endedAt: start + 1)
        XCTAssertEqual(lost.error, .timeout)
        XCTAssertNil(lost.statusCode)

        let succeeded = HTTPEvent.requestSucceeded(response(200), to: request, attempt: 3, startedAt: start, endedAt: start + 2)
        XCTAssertEqual(succeeded.name, .requestSucceeded)
        XCTAssertEqual(succeeded.attempt, 3)
        XCTAssertEqual(succeeded.startedAt, start)
        XCTAssertEqual(succeeded.endedAt, start + 2)
        XCTAssertEqual(succeeded.timestamp, start + 2)
        XCTAssertEqual(succeeded.durationMilliseconds ?? 0, 2000, accuracy: 0.001)
        XCTAssertEqual(succeeded.responseBodyByteCount, 2)
        XCTAssertEqual(succeeded.requestBodyByteCount, 22)
    }

    func testTheOutcomeOfEachEndIsOneValueAndOtherStepsHaveNone() {
        let ends: [(HTTPEvent, HTTPEvent.Outcome?)] = [
            (.requestCreated(request, at: start), nil),
            (.requestStarted(request, attempt: 1, at: start), nil),
            (.responseReceived(response(503), to: request, startedAt: start, receivedAt: start + 1), nil),
            (.requestRetried(request, attempt: 1, outcome: .success(response(503)), startedAt: start, endedAt: start + 1), .response(statusCode: 503)),
            (.requestRetried(request, attempt: 1, outcome: .failure(.timeout), startedAt: start, endedAt: start + 1), .failed(.timeout, statusCode: nil)),
            (.requestSucceeded(response(404), to: request, startedAt: start, endedAt: start + 1), .response(statusCode: 404)),
            (.requestFailed(.timeout, request: request, startedAt: start, endedAt: start + 1), .failed(.timeout, statusCode: nil)),
            (.requestFailed(.timeout, request: request, response: response(200), startedAt: start, endedAt: start + 1), .failed(.timeout, statusCode: 200)),
            (.requestFailed(.cancelled, request: request, startedAt: start, endedAt: start + 1), .cancelled(statusCode: nil)),
            (.requestFailed(.cancelled, request: request, response: response(200), startedAt: start, endedAt: start + 1), .cancelled(statusCode: 200)),
        ]
        for (event, outcome) in ends {
            XCTAssertEqual(event.outcome, outcome, "\(event.name)")
        }
    }

    func testAnOutcomeReadsAsTheLineShowsItWithAStatusThatCameFirst() {
        XCTAssertEqual(HTTPEvent.Outcome.response(statusCode: 404).description, "404")
        XCTAssertEqual(HTTPEvent.Outcome.failed(.timeout, statusCode: nil).description, "failed: timed out")
        XCTAssertEqual(HTTPEvent.Outcome.failed(.timeout, statusCode: 200).description, "200, then failed: timed out")
        XCTAssertEqual(HTTPEvent.Outcome.cancelled(statusCode: nil).description, "cancelled")
        XCTAssertEqual(HTTPEvent.Outcome.cancelled(statusCode: 200).description, "200, then cancelled")
    }

    func testAFailureIsFailedAndACancellationIsCancelledAsAClientNamesThem() {
        let failed = HTTPEvent.requestFailed(.timeout, request: request, startedAt: start, endedAt: start + 30)
        XCTAssertEqual(failed.name, .requestFailed)
        XCTAssertEqual(failed.error, .timeout)
        XCTAssertEqual(failed.errorTypeName, "timeout")
        XCTAssertNil(failed.response)
        let cut = HTTPEvent.requestFailed(
            .transport(.connectionLost, message: "reset"), request: request, response: response(200), startedAt: start, endedAt: start + 1
        )
        XCTAssertEqual(cut.statusCode, 200, "a body that failed after its head carries both")
        XCTAssertEqual(cut.error?.code, .connectionLost)
        let cancelled = HTTPEvent.requestFailed(.cancelled, request: request, startedAt: start, endedAt: start + 1)
        XCTAssertEqual(cancelled.name, .requestCancelled)
    }

    func testThePolicyRedactsThemAsItRedactsAClientsEvents() {
        let event = HTTPEvent.requestSucceeded(response(200), to: request, startedAt: start, endedAt: start + 1, policy: .debug)
        XCTAssertEqual(event.requestURL, "https://api.example.com/login?token=[REDACTED]")
        XCTAssertEqual(event.requestHeaders["Authorization"], "[REDACTED]")
        XCTAssertEqual(event.responseHeaders?["Set-Cookie"], "[REDACTED]")
        XCTAssertEqual(event.request.body.map { String(decoding: $0, as: UTF8.self) }, #"{"password":"[REDACTED]"}"#)
        let message = HTTPEvent.responseMessage(
            #"{"access_token":"abc","n":1}"#, index: 4, of: response(200), to: request, startedAt: start, policy: .debug
        )
        XCTAssertEqual(message.name, .responseMessage)
        XCTAssertEqual(message.message?.index, 4)
        XCTAssertEqual(message.message?.kind, .serverSentEvent)
        XCTAssertEqual(message.message?.data, #"{"access_token":"[REDACTED]","n":1}"#)
        XCTAssertTrue(message.isStreamed)
    }

    func testAnEventMadeSoReadsAsTheOneAClientEmits() async throws {
        let dispatcher = HTTPEventDispatcher()
        let recorder = RecordingObserver()
        dispatcher.subscribe(recorder)
        let client = HTTPTransportClient(transport: MockTransport(default: .status(201, body: Data("ok".utf8))), dispatcher: dispatcher, policy: .debug)
        let answer = try await client.send(request)
        let events = try await recorder.waitForTerminalEvents(count: 1)
        let emitted = try XCTUnwrap(events.last)
        let made = HTTPEvent.requestSucceeded(
            answer, to: request, startedAt: try XCTUnwrap(emitted.startedAt), endedAt: try XCTUnwrap(emitted.endedAt), policy: .debug
        )
        XCTAssertEqual(made.name, emitted.name)
        XCTAssertEqual(made.attempt, emitted.attempt)
        XCTAssertEqual(made.request.exposed, emitted.request.exposed)
        XCTAssertEqual(made.response?.exposed, emitted.response?.exposed)
        XCTAssertEqual(made.requestBodyByteCount, emitted.requestBodyByteCount)
        XCTAssertEqual(made.responseBodyByteCount, emitted.responseBodyByteCount)
    }
}
