import Foundation
import HTTPCore
import HTTPCoreObservation
import HTTPCoreConcurrency
import HTTPCoreTesting
import XCTest

/// Streaming exchanges: the response handed over at its head, the body as it arrives, and
/// exactly one terminal event once the body ended, broke, outlived the deadline, or the
/// caller stopped reading.
final class HTTPTransportClientStreamingTests: XCTestCase {
    private var dispatcher: HTTPEventDispatcher!
    private var recorder: RecordingObserver!

    override func setUp() {
        dispatcher = HTTPEventDispatcher()
        recorder = RecordingObserver()
        dispatcher.subscribe(recorder)
    }

    private func client<Transport: HTTPTransport>(
        _ transport: Transport, middlewares: [any HTTPMiddleware] = [], policy: HTTPCorePolicy = .debug
    ) -> HTTPTransportClient<Transport> {
        HTTPTransportClient(transport: transport, middlewares: middlewares, dispatcher: dispatcher, policy: policy)
    }

    private func terminal() async throws -> HTTPEvent {
        let events = try await recorder.waitForTerminalEvents(count: 1)
        return try XCTUnwrap(events.first { $0.name.isTerminal })
    }

    func testChunksReachTheCallerAsTheyArriveAndTheExchangeSucceedsAfterTheBody() async throws {
        let transport = StreamingMockTransport(headers: ["Content-Type": "text/plain"])
        let client = client(transport)
        let received = AsyncCondition<[String]>([])
        let request = HTTPRequest(url: url)
        let exchange = Task {
            try await client.send(request) { response, body in
                XCTAssertEqual(response.statusCode, 200)
                for try await chunk in body { received.update { $0.append(String(decoding: chunk, as: UTF8.self)) } }
                return response.statusCode
            }
        }
        let writer = try await transport.nextWriter()
        try await writer.write(chunk("hello "))
        _ = try await received.wait(timeout: 60, until: { $0 == ["hello "] })
        await dispatcher.flush()
        XCTAssertEqual(recorder.events.map(\.name), [.requestCreated, .requestStarted, .responseReceived], "no end before the body's")
        XCTAssertEqual(recorder.events[2].responseBodyByteCount, 0)
        XCTAssertTrue(recorder.events.allSatisfy(\.isStreamed))
        try await writer.write(chunk("world"))
        writer.finish()
        let status = try await exchange.value
        XCTAssertEqual(status, 200)
        XCTAssertEqual(received.state, ["hello ", "world"])
        let end = try await terminal()
        XCTAssertEqual(end.name, .requestSucceeded)
        XCTAssertEqual(end.requestID, request.id)
        XCTAssertEqual(end.responseBodyByteCount, 11)
        XCTAssertEqual(end.response?.body, Data("hello world".utf8))
        XCTAssertEqual(end.response?.isBodyTruncated, false)
        XCTAssertEqual(recorder.events.map(\.name), [.requestCreated, .requestStarted, .responseReceived, .requestSucceeded])
    }

    func testTheTransportsHeadReachesAStreamedCallAsItIsAndABufferedCallWithItsBody() async throws {
        /// Answers with a head carrying every field, and a body of two chunks.
        struct FullHead: HTTPTransport {
            static func head(for request: HTTPRequest) -> HTTPResponse.Head {
                var head = HTTPResponse.Head(
                    requestID: request.id, statusCode: 203, headers: ["Content-Type": "text/plain", "X-Tag": "a"],
                    url: URL(string: "https://api.example.com/moved")!, redirection: HTTPRedirection(method: .get, resentBody: false, statusCodes: [302])
                )
                head.addedRequestHeaders = ["User-Agent": "full-head"]
                return head
            }
            func perform(_ request: HTTPRequest, body: HTTPBody?) async throws -> (HTTPResponse.Head, HTTPBody) {
                let chunks = AsyncStream { $0.yield(chunk("he")); $0.yield(chunk("llo")); $0.finish() }
                return (Self.head(for: request), HTTPBody(chunks, length: .unknown))
            }
        }
        let client = client(FullHead())
        let request = HTTPRequest(url: url)
        let (head, body) = try await client.send(request, body: nil)
        XCTAssertEqual(head, FullHead.head(for: request))
        let bytes = try await body.collect(upTo: 100)
        XCTAssertEqual(bytes, Data("hello".utf8))
        let buffered = HTTPRequest(url: url)
        let response = try await client.send(buffered)
        XCTAssertEqual(response, HTTPResponse(head: FullHead.head(for: buffered), body: Data("hello".utf8)))
    }

    func testACallerThatStopsReadingEarlyCancelsTheExchangeAndStopsTheTransport() async throws {
        let transport = StreamingMockTransport()
        let client = client(transport)
        let exchange = Task {
            try await client.send(HTTPRequest(url: url)) { _, body in
                var iterator = body.makeAsyncIterator()
                return try await iterator.next().map { Array($0) }
            }
        }
        let writer = try await transport.nextWriter()
        try await writer.write(chunk("first"))
        let first = try await exchange.value
        XCTAssertEqual(first, Array("first".utf8))
        try await transport.waitForTerminations(1)
        let end = try await terminal()
        XCTAssertEqual(end.name, .requestCancelled)
        XCTAssertEqual(end.error?.code, .cancelled)
        XCTAssertEqual(end.responseBodyByteCount, 5)
        XCTAssertEqual(end.statusCode, 200)
        XCTAssertEqual(writer.yield(chunk("late"), whenDrained: {}), .stopped)
    }

    func testABodyReadToItsKnownLengthSucceedsWithoutReadingTheEnd() async throws {
        let transport = StreamingMockTransport(length: .known(4))
        let client = client(transport)
        let exchange = Task {
            try await client.send(HTTPRequest(url: url)) { _, body in
                var iterator = body.makeAsyncIterator()
                return try await iterator.next().map { Array($0) }
            }
        }
        let writer = try await transport.nextWriter()
        try await writer.write(chunk("four"))
        _ = try await exchange.value
        let end = try await terminal()
        XCTAssertEqual(end.name, .requestSucceeded)
    }

    func testABodyThatBreaksMidwayFailsTheExchangeWithTheBytesReceived() async throws {
        let transport = StreamingMockTransport()
        let client = client(transport)
        let exchange = Task { () -> (Int, HTTPError?) in
            try await client.send(HTTPRequest(url: url)) { _, body in
                var count = 0
                do {
                    for try await chunk in body { count += chunk.count }
                    return (count, nil)
                } catch let error as HTTPError {
                    return (count, error)
                }
            }
        }
        let writer = try await transport.nextWriter()
        try await writer.write(chunk(String(repeating: "x", count: 10)))
        writer.finish(throwing: HTTPError.transport(.connectionLost, message: "the connection closed"))
        let (count, error) = try await exchange.value
        XCTAssertEqual(count, 10)
        XCTAssertEqual(error?.code, .connectionLost)
        let end = try await terminal()
        XCTAssertEqual(end.name, .requestFailed)
        XCTAssertEqual(end.error?.code, .connectionLost)
        XCTAssertEqual(end.statusCode, 200)
        XCTAssertEqual(end.responseBodyByteCount, 10)
    }

    func testTheRequestTimeoutBoundsTheBodyToo() async throws {
        let transport = StreamingMockTransport()
        let client = client(transport)
        let exchange = Task {
            // Long enough for the head to arrive on a busy machine; the body's wait then outlives it.
            try await client.send(HTTPRequest(url: url, timeout: 2)) { _, body in
                var chunks = 0
                do {
                    for try await _ in body { chunks += 1 }
                    return (chunks, HTTPError?.none)
                } catch let error as HTTPError {
                    return (chunks, error)
                }
            }
        }
        let writer = try await transport.nextWriter()
        try await writer.write(chunk("one"))    // then nothing more: the deadline ends the wait
        let (chunks, error) = try await exchange.value
        XCTAssertEqual(chunks, 1)
        XCTAssertEqual(error, .timeout)
        try await transport.waitForTerminations(1)
        let end = try await terminal()
        XCTAssertEqual(end.name, .requestFailed)
        XCTAssertEqual(end.error, .timeout)
        XCTAssertEqual(end.responseBodyByteCount, 3)
    }

    func testCancellingTheCallerMidBodyCancelsTheExchange() async throws {
        let transport = StreamingMockTransport()
        let client = client(transport)
        let firstRead = AsyncCondition(false)
        let exchange = Task {
            try await client.send(HTTPRequest(url: url)) { _, body in
                var iterator = body.makeAsyncIterator()
                _ = try await iterator.next()
                firstRead.update { $0 = true }
                do {
                    _ = try await iterator.next()
                    return HTTPError?.none
                } catch let error as HTTPError {
                    return error
                }
            }
        }
        let writer = try await transport.nextWriter()
        try await writer.write(chunk("one"))
        _ = try await firstRead.wait(timeout: 60, until: { $0 })
        exchange.cancel()
        let error = try await exchange.value
        XCTAssertEqual(error, .cancelled)
        try await transport.waitForTerminations(1)
        let end = try await terminal()
        XCTAssertEqual(end.name, .requestCancelled)
        XCTAssertEqual(end.responseBodyByteCount, 3)
    }

    func testReadingTheBodyAfterTheExchangeEndedThrowsCancelled() async throws {
        let transport = StreamingMockTransport()
        let client = client(transport)
        let exchange = Task { try await client.send(HTTPRequest(url: url)) { _, body in body } }
        _ = try await transport.nextWriter()
        let escaped = try await exchange.value
        do {
            for try await _ in escaped {}
            XCTFail("expected the read to fail")
        } catch let error as HTTPError {
            XCTAssertEqual(error, .cancelled)
        }
        let end = try await terminal()
        XCTAssertEqual(end.name, .requestCancelled)
    }

    func testServerSentEventsAreEmittedAsTheyArriveRedactedAndCountedAtTheEnd() async throws {
        let transport = StreamingMockTransport(headers: ["Content-Type": "text/event-stream"])
        let client = client(transport)
        let exchange = Task { try await client.send(HTTPRequest(url: url)) { _, body in try await body.collect(upTo: 1 << 20) } }
        let writer = try await transport.nextWriter()
        try await writer.write(chunk("event: delta\nid: 1\ndata: {\"t\":\"Hel\",\"api_key\":\"sk-live-123\"}\n\n"))
        // The first event reaches observers while the body is still open.
        let first = try await recorder.waitForEvents(count: 4)[3]
        XCTAssertEqual(first.name, .responseMessage)
        XCTAssertEqual(first.message?.index, 0)
        XCTAssertEqual(first.message?.kind, .serverSentEvent)
        XCTAssertEqual(first.message?.eventType, "delta")
        XCTAssertEqual(first.message?.eventID, "1")
        XCTAssertEqual(first.message?.data, #"{"t":"Hel","api_key":"[REDACTED]"}"#)
        XCTAssertEqual(first.statusCode, 200)
        XCTAssertEqual(first.attemptStartedAt, recorder.events[1].attemptStartedAt)
        try await writer.write(chunk("data: lo\n\ndata: [DONE]\n\n"))
        writer.finish()
        let body = try await exchange.value
        XCTAssertTrue(String(decoding: body, as: UTF8.self).contains("sk-live-123"), "the caller gets the body as sent")
        let end = try await terminal()
        XCTAssertEqual(recorder.events.map(\.name), [
            .requestCreated, .requestStarted, .responseReceived, .responseMessage, .responseMessage, .responseMessage, .requestSucceeded,
        ])
        XCTAssertEqual(recorder.events[4].message?.data, "lo")
        XCTAssertEqual(recorder.events[5].message?.data, "[DONE]", "data that is not JSON gets the text rules")
        XCTAssertEqual(end.streamMessageCount, 3)
        XCTAssertEqual(end.droppedStreamMessageCount, 0)
        XCTAssertFalse(String(decoding: end.response?.body ?? Data(), as: UTF8.self).contains("sk-live-123"))
    }

    func testMessagesPastThePolicysCountAreCountedNotEmittedAndNoneWhenBodiesAreOmitted() async throws {
        var policy = HTTPCorePolicy.debug
        policy.streamMessages.maxCount = 2
        for (policy, emitted) in [(policy, 2), (HTTPCorePolicy.release, 0)] {
            dispatcher = HTTPEventDispatcher()
            recorder = RecordingObserver()
            dispatcher.subscribe(recorder)
            let transport = StreamingMockTransport(headers: ["Content-Type": "application/x-ndjson"])
            let client = client(transport, policy: policy)
            let exchange = Task { try await client.send(HTTPRequest(url: url)) { _, body in try await body.collect(upTo: 1 << 20) } }
            let writer = try await transport.nextWriter()
            try await writer.write(chunk("{\"n\":1}\n{\"n\":2}\n{\"n\":3}\n{\"n\":4}"))
            writer.finish()
            _ = try await exchange.value
            let end = try await terminal()
            XCTAssertEqual(recorder.events.filter { $0.name == .responseMessage }.count, emitted)
            XCTAssertEqual(end.streamMessageCount, 4)
            XCTAssertEqual(end.droppedStreamMessageCount, 4 - emitted)
        }
    }

    func testAStreamedUploadIsCountedAndItsFirstBytesCapturedAsItGoesOut() async throws {
        let transport = StreamingMockTransport()
        let client = client(transport, policy: HTTPCorePolicy(bodyCapture: .captured(maxBytes: 8)))
        let pieces = ["0123456789", "abcdefghij", "klmno"]
        let upload = HTTPBody(AsyncStream { continuation in
            pieces.forEach { continuation.yield(chunk($0)) }
            continuation.finish()
        }, length: .unknown)
        let exchange = Task { try await client.send(HTTPRequest(method: .post, url: url), body: upload) { response, _ in response.statusCode } }
        let writer = try await transport.nextWriter()
        writer.finish()
        _ = try await exchange.value
        XCTAssertEqual(transport.uploads, [Data(pieces.joined().utf8)])
        let end = try await terminal()
        XCTAssertEqual(end.requestBodyByteCount, 25)
        XCTAssertEqual(end.request.body, Data("01234567".utf8))
        XCTAssertEqual(end.request.isBodyTruncated, true)
        XCTAssertEqual(recorder.events[1].requestBodyByteCount, 0, "nothing went out when the attempt started")
    }

    func testABufferingTransportServesStreamingCallers() async throws {
        let transport = MockTransport(default: .status(201, body: Data("whole".utf8)))
        let upload = HTTPBody(length: .known(3)) { AsyncStream { $0.yield(chunk("abc")); $0.finish() } }
        let body = try await client(transport).send(HTTPRequest(method: .put, url: url), body: upload) { response, body in
            XCTAssertEqual(response.statusCode, 201)
            return try await body.collect(upTo: 100)
        }
        XCTAssertEqual(body, Data("whole".utf8))
        XCTAssertEqual(transport.requests.map(\.body), [Data("abc".utf8)])
        let end = try await terminal()
        XCTAssertEqual(end.name, .requestSucceeded)
        XCTAssertEqual(end.requestBodyByteCount, 3)
        XCTAssertEqual(end.responseBodyByteCount, 5)
    }

    func testRetryResendsOnlyABodyThatCanBeSentAgain() async throws {
        let retry = RetryMiddleware(backoff: Backoff(initial: 0, maximum: 0, jitter: .none))
        let once = HTTPBody(AsyncStream { $0.yield(chunk("once")); $0.finish() }, length: .known(4))
        let replayable = HTTPBody(length: .known(5)) { AsyncStream { $0.yield(chunk("again")); $0.finish() } }
        for (body, attempts) in [(once, 1), (replayable, 2)] {
            let transport = MockTransport()
            transport.enqueue(.status(503))
            let status = try await client(transport, middlewares: [retry]).send(HTTPRequest(method: .put, url: url), body: body) { response, _ in
                response.statusCode
            }
            XCTAssertEqual(transport.requests.count, attempts)
            XCTAssertEqual(status, attempts == 1 ? 503 : 200)
            XCTAssertEqual(Set(transport.requests.map(\.body)), [Data((attempts == 1 ? "once" : "again").utf8)])
        }
    }

    func testARetriedAttemptsBodyIsStoppedUnreadAndTheLastOneReachesTheCaller() async throws {
        let transport = StreamingMockTransport(statusCodes: [503, 200])
        let retry = RetryMiddleware(backoff: Backoff(initial: 0, maximum: 0, jitter: .none))
        let client = client(transport, middlewares: [retry])
        let exchange = Task { try await client.send(HTTPRequest(url: url)) { response, body in (response.statusCode, try await body.collect(upTo: 100)) } }
        let refused = try await transport.nextWriter()
        try await transport.waitForTerminations(1)
        XCTAssertEqual(refused.yield(chunk("busy"), whenDrained: {}), .stopped, "the 503's body is stopped")
        let accepted = try await transport.nextWriter()
        try await accepted.write(chunk("ok"))
        accepted.finish()
        let (status, body) = try await exchange.value
        XCTAssertEqual(status, 200)
        XCTAssertEqual(body, Data("ok".utf8))
        XCTAssertEqual(transport.terminationCount, 1)
        let end = try await terminal()
        XCTAssertEqual(end.name, .requestSucceeded)
        XCTAssertEqual(end.attempt, 2)
        XCTAssertEqual(end.responseBodyByteCount, 2)
        XCTAssertEqual(recorder.events.filter { $0.name == .requestRetried }.map(\.statusCode), [503])
    }

    func testAMiddlewareThatDropsAnAttemptsBodyStopsItsTransfer() async throws {
        struct Twice: HTTPMiddleware {
            func intercept(
                _ request: HTTPRequest, body: HTTPBody?, context: HTTPMiddlewareContext, next: HTTPMiddlewareNext
            ) async throws -> (HTTPResponse.Head, HTTPBody) {
                _ = try await next(request, body)
                return try await next(request, body)
            }
        }
        let transport = StreamingMockTransport()
        let client = client(transport, middlewares: [Twice()])
        let exchange = Task { try await client.send(HTTPRequest(url: url)) { _, body in try await body.collect(upTo: 100) } }
        let first = try await transport.nextWriter()
        let second = try await transport.nextWriter()
        // The first body, dropped by the middleware, is stopped.
        try await transport.waitForTerminations(1)
        XCTAssertEqual(transport.terminationCount, 1)
        XCTAssertEqual(first.yield(chunk("stale"), whenDrained: {}), .stopped)
        try await second.write(chunk("fresh"))
        second.finish()
        let body = try await exchange.value
        XCTAssertEqual(body, Data("fresh".utf8))
    }

    func testAMiddlewareCallingNextTwiceWithAOnePassBodyGetsAClearError() async throws {
        struct Twice: HTTPMiddleware {
            func intercept(
                _ request: HTTPRequest, body: HTTPBody?, context: HTTPMiddlewareContext, next: HTTPMiddlewareNext
            ) async throws -> (HTTPResponse.Head, HTTPBody) {
                _ = try await next(request, body)
                return try await next(request, body)
            }
        }
        let once = HTTPBody(AsyncStream { $0.yield(chunk("once")); $0.finish() }, length: .known(4))
        do {
            _ = try await client(MockTransport(), middlewares: [Twice()]).send(HTTPRequest(method: .post, url: url), body: once) { _, _ in }
            XCTFail("expected the second attempt to be refused")
        } catch let error as HTTPError {
            XCTAssertEqual(error.code, .invalidRequest)
        }
        let end = try await terminal()
        XCTAssertEqual(end.name, .requestFailed)
        XCTAssertEqual(end.attempt, 1)
    }

    func testAMiddlewareWrittenForWholeResponsesShapesTheRequestWhileTheBodyPassesThrough() async throws {
        let transport = StreamingMockTransport()
        let client = client(transport, middlewares: [DefaultHeadersMiddleware(["X-App": "demo"])])
        let exchange = Task { try await client.send(HTTPRequest(url: url)) { _, body in try await body.collect(upTo: 100) } }
        let writer = try await transport.nextWriter()
        try await writer.write(chunk("through"))
        writer.finish()
        let body = try await exchange.value
        XCTAssertEqual(body, Data("through".utf8))
        let end = try await terminal()
        XCTAssertEqual(end.request.headers["X-App"], "demo")
        XCTAssertEqual(end.responseBodyByteCount, 7)
    }
}

private let url = URL(string: "https://api.example.com/stream")!

private func chunk(_ text: String) -> HTTPBody.ByteChunk { HTTPBody.ByteChunk(text.utf8) }
