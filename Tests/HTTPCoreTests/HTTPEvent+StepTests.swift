import Foundation
import HTTPCoreLoopback
import HTTPCoreTesting
import HTTPCoreURLSession
import XCTest

@testable import HTTPCore
@testable import HTTPCoreObservation

/// What each step carries is in its type: a case per name, with its payload.
final class HTTPEventStepTests: XCTestCase {
    private let request = LoginExchange.request
    private let start = LoginExchange.start

    private func response(_ status: Int) -> HTTPResponse { LoginExchange.response(status) }

    func testEachFactorysStepCarriesExactlyItsPayload() throws {
        guard case .created = HTTPEvent.requestCreated(request, at: start).step else { return XCTFail("created") }

        guard case .started(let started) = HTTPEvent.requestStarted(request, attempt: 2, at: start).step else { return XCTFail("started") }
        XCTAssertEqual(started, HTTPEvent.Attempt(number: 2, startedAt: start, endedAt: nil, durationMilliseconds: nil))

        let receivedEvent = HTTPEvent.responseReceived(response(201), to: request, startedAt: start, receivedAt: start + 0.25)
        guard case .received(let head, let attempt) = receivedEvent.step else { return XCTFail("received") }
        XCTAssertEqual(head.statusCode, 201)
        XCTAssertEqual(attempt.number, 1)
        XCTAssertEqual(attempt.endedAt, start + 0.25)
        XCTAssertEqual(try XCTUnwrap(attempt.durationMilliseconds), 250, accuracy: 0.001)

        let messageEvent = HTTPEvent.responseMessage(
            #"{"token":"t0"}"#, eventType: "delta", index: 3, of: response(200), to: request, startedAt: start, at: start + 1
        )
        guard case .message(let message, let running) = messageEvent.step else { return XCTFail("message") }
        XCTAssertEqual([message.index, message.byteCount], [3, 14])
        XCTAssertEqual(message.eventType, "delta")
        XCTAssertEqual(running, HTTPEvent.Attempt(number: 1, startedAt: start, endedAt: nil, durationMilliseconds: nil))

        let retriedEvent = HTTPEvent.requestRetried(request, attempt: 1, outcome: .success(response(503)), startedAt: start, endedAt: start + 1)
        guard case .retried(.success(let busy), let ended) = retriedEvent.step else { return XCTFail("retried with a response") }
        XCTAssertEqual(busy.statusCode, 503)
        XCTAssertEqual(ended.endedAt, start + 1)
        let lostEvent = HTTPEvent.requestRetried(request, attempt: 1, outcome: .failure(.timeout), startedAt: start, endedAt: start + 1)
        guard case .retried(.failure(let lost), _) = lostEvent.step else { return XCTFail("retried with an error") }
        XCTAssertEqual(lost.code, .timeout)

        let succeededEvent = HTTPEvent.requestSucceeded(response(200), to: request, attempt: 3, startedAt: start, endedAt: start + 2)
        guard case .succeeded(let done, let exchange) = succeededEvent.step else { return XCTFail("succeeded") }
        XCTAssertEqual(done.statusCode, 200)
        XCTAssertEqual(done.bodyByteCount, 2)
        XCTAssertEqual(exchange.startedAt, start)
        XCTAssertEqual(exchange.endedAt, start + 2)
        XCTAssertEqual(exchange.durationMilliseconds, 2000, accuracy: 0.001)
        XCTAssertEqual(exchange.lastAttempt?.number, 3)
        XCTAssertEqual([exchange.streamMessageCount, exchange.droppedStreamMessageCount], [0, 0])

        let cut = HTTPEvent.requestFailed(
            .transport(.connectionLost, message: "reset"), request: request, response: response(200), startedAt: start, endedAt: start + 1
        )
        guard case .failed(let error, let partial?, _) = cut.step else { return XCTFail("failed after its head") }
        XCTAssertEqual(error.code, .connectionLost)
        XCTAssertEqual(partial.statusCode, 200)
        let cancelled = HTTPEvent.requestFailed(.cancelled, request: request, startedAt: start, endedAt: start + 1)
        guard case .cancelled(nil, let stopped) = cancelled.step else { return XCTFail("cancelled before a response") }
        XCTAssertEqual(stopped.durationMilliseconds, 1000, accuracy: 0.001)
    }

    /// Through a real client: a 503 retried, a reset retried, then the 200, each step carrying
    /// its attempt, and the terminal one the exchange with its last attempt.
    func testARetriedExchangeReadsAsItsStepsThroughAClient() async throws {
        let transport = MockTransport()
        transport.enqueue(.status(503), .failure(.transport(.connectionLost, message: "reset")), .status(200))
        let retry = RetryMiddleware(maximumAttempts: 3, backoff: Backoff(initial: 0, maximum: 0, jitter: .none))
        let dispatcher = HTTPEventDispatcher()
        let recorder = RecordingObserver()
        dispatcher.subscribe(recorder)
        let client = HTTPTransportClient(transport: transport, middlewares: [retry], dispatcher: dispatcher)
        _ = try await client.send(HTTPRequest(url: URL(string: "https://a.example/x")!))
        let events = try await recorder.waitForTerminalEvents(count: 1)

        XCTAssertEqual(events.map(Self.summary), [
            "created", "started 1", "received 1 503", "retried 1 503", "started 2", "retried 2 connection_lost",
            "started 3", "received 3 200", "succeeded 3 200",
        ])
        guard case .succeeded(_, let exchange) = events.last?.step, let last = exchange.lastAttempt else { return XCTFail("succeeded") }
        XCTAssertLessThanOrEqual(try XCTUnwrap(last.durationMilliseconds), exchange.durationMilliseconds)
        XCTAssertGreaterThanOrEqual(last.startedAt, exchange.startedAt, "the last attempt started within the exchange")
    }

    /// Every event a client emits carries what its name promises, so its step reads as it
    /// happened (``HTTPEvent/step`` stops on one that does not): an invalid request that never
    /// reached the transport, an exchange a middleware answered without an attempt, a stream
    /// with its messages, and one its caller stopped reading.
    func testEveryEventAClientEmitsReadsAsTheStepItsNameSays() async throws {
        let dispatcher = HTTPEventDispatcher()
        let recorder = RecordingObserver()
        dispatcher.subscribe(recorder)
        let url = URL(string: "https://api.example.com/items")!
        let buffered = HTTPTransportClient(transport: MockTransport(), dispatcher: dispatcher)
        _ = try? await buffered.send(HTTPRequest(url: url, headers: ["X-Foo\r\nHost": "1"]))
        let answering = ClosureMiddleware { request, _ in HTTPResponse(requestID: request.id, statusCode: 204, headers: [:], body: Data(), url: url) }
        _ = try await HTTPTransportClient(transport: MockTransport(), middlewares: [answering], dispatcher: dispatcher).send(HTTPRequest(url: url))
        _ = try await recorder.waitForTerminalEvents(count: 2)

        let transport = StreamingMockTransport(headers: ["Content-Type": "text/event-stream"])
        let streaming = HTTPTransportClient(transport: transport, dispatcher: dispatcher, policy: .debug)
        let whole = Task { try await streaming.send(HTTPRequest(url: url)) { _, body in try await body.collect(upTo: 1024).count } }
        let writer = try await transport.nextWriter()
        try await writer.write(HTTPBody.ByteChunk("data: one\n\ndata: two\n\n".utf8))
        writer.finish()
        _ = try await whole.value
        _ = try await recorder.waitForTerminalEvents(count: 3)
        let stopped = Task {
            try await streaming.send(HTTPRequest(url: url)) { _, body in
                var iterator = body.makeAsyncIterator()
                return try await iterator.next()?.count
            }
        }
        try await transport.nextWriter().write(HTTPBody.ByteChunk("data: first\n\n".utf8))
        _ = try await stopped.value
        let events = try await recorder.waitForTerminalEvents(count: 4)

        XCTAssertEqual(events.map(Self.summary), [
            "created", "failed 0 invalid_request",
            "created", "succeeded 0 204",
            "created", "started 1", "received 1 200", "message 1 0", "message 1 1", "succeeded 1 200",
            "created", "started 1", "received 1 200", "message 1 0", "cancelled 1 200",
        ])
    }

    /// An event's step in a few words: its name, attempt and status or error code.
    private static func summary(_ event: HTTPEvent) -> String {
        switch event.step {
        case .created: "created"
        case .started(let attempt): "started \(attempt.number)"
        case .received(let response, let attempt): "received \(attempt.number) \(response.statusCode)"
        case .message(let message, let attempt): "message \(attempt.number) \(message.index)"
        case .retried(.success(let response), let attempt): "retried \(attempt.number) \(response.statusCode)"
        case .retried(.failure(let error), let attempt): "retried \(attempt.number) \(error.code)"
        case .succeeded(let response, let exchange): "succeeded \(exchange.lastAttempt?.number ?? 0) \(response.statusCode)"
        case .failed(let error, _, let exchange): "failed \(exchange.lastAttempt?.number ?? 0) \(error.code)"
        case .cancelled(let response, let exchange): "cancelled \(exchange.lastAttempt?.number ?? 0) \(response?.statusCode ?? 0)"
        }
    }

    /// The request and response are views: reading a field redacts that field alone, and
    /// what the redactor never masks is read without redacting anything.
    func testTheViewsRedactOnlyTheFieldsRead() async throws {
        let server = try LoopbackHTTPServer()
        defer { server.stop() }
        server.route("/orders") { _ in LoopbackResponse(status: 201, headers: ["Set-Cookie": "session=s3cret"], body: Data("created!".utf8)) }
        let dispatcher = HTTPEventDispatcher()
        let recorder = RecordingObserver()
        dispatcher.subscribe(recorder)
        let request = HTTPRequest(method: .post, url: server.url("/orders?token=s3cret"), headers: ["Authorization": "Bearer s3cret"], body: Data("{}".utf8))
        _ = try await URLSessionClient(dispatcher: dispatcher, policy: .debug).send(request)
        let events = try await recorder.waitForTerminalEvents(count: 1)
        let terminal = try XCTUnwrap(events.last)
        guard case .succeeded(let response, _) = terminal.step else { return XCTFail("succeeded") }

        XCTAssertEqual(terminal.request.method, .post)
        XCTAssertEqual(terminal.request.host, "127.0.0.1")
        XCTAssertEqual(terminal.request.port, Int(server.port))
        XCTAssertEqual(terminal.request.bodyByteCount, 2)
        XCTAssertEqual(response.statusCode, 201)
        XCTAssertEqual(response.bodyByteCount, 8)
        XCTAssertEqual(terminal.requestRecord.exposedFields, [], "the summary redacts nothing")
        XCTAssertEqual(terminal.responseRecord?.exposedFields, [])

        XCTAssertEqual(terminal.request.url, "http://127.0.0.1:\(server.port)/orders?token=[REDACTED]")
        XCTAssertEqual(terminal.requestRecord.exposedFields, ["url"])
        XCTAssertEqual(response.headers["Set-Cookie"], "[REDACTED]")
        XCTAssertEqual(terminal.responseRecord?.exposedFields, ["headers"])
        XCTAssertEqual(response.body, Data("created!".utf8))
        XCTAssertEqual(terminal.responseRecord?.exposedFields, ["headers", "body"])
    }
}
