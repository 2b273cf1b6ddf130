import Foundation
import HTTPCore
import HTTPCoreObservation
import HTTPCoreConcurrency
import HTTPCoreLoopback
import HTTPCoreTesting
import XCTest

@testable import HTTPCoreURLSession

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Streaming through URLSession against a real loopback server: the response body as it
/// arrives, the reader's stop, failures mid-body, the size caps and streamed uploads.
final class URLSessionStreamingTests: XCTestCase {
    private var server: LoopbackHTTPServer!
    private var dispatcher: HTTPEventDispatcher!
    private var recorder: RecordingObserver!
    private var session: URLSession!

    override func setUpWithError() throws {
        server = try LoopbackHTTPServer()
        dispatcher = HTTPEventDispatcher()
        recorder = RecordingObserver()
        dispatcher.subscribe(recorder)
        session = URLSessionClient.makeDefaultSession()
    }

    override func tearDown() {
        server.stop()
        session.invalidateAndCancel()
    }

    private func client(limits: URLSessionTransport.Limits = URLSessionTransport.Limits()) -> URLSessionClient {
        URLSessionClient(session: session, limits: limits, dispatcher: dispatcher, policy: .debug)
    }

    private func transport(limits: URLSessionTransport.Limits = URLSessionTransport.Limits()) -> URLSessionTransport {
        URLSessionTransport(session: session, limits: limits)
    }

    /// Reads `body` to its end or its failure: the bytes read and the error, if any.
    private func drain(_ body: HTTPBody) async -> (bytes: Data, error: (any Error)?) {
        var bytes = Data()
        do {
            for try await chunk in body { bytes.append(contentsOf: chunk) }
            return (bytes, nil)
        } catch {
            return (bytes, error)
        }
    }

    // MARK: Responses

    func testFirstChunkArrivesWhileTheServerIsStillSending() async throws {
        let gate = server.makeGate()
        server.route("GET", "/events", streaming: { _, writer in
            try writer.writeHead(headers: ["Content-Type": "text/event-stream"], framing: .chunked)
            try writer.write("data: first\n\n")
            try writer.wait(for: gate)
            try writer.write("data: second\n\n")
        })

        let text = try await client().send(HTTPRequest(url: server.url("/events"))) { response, body in
            XCTAssertEqual(response.statusCode, 200)
            var chunks = body.makeAsyncIterator()
            // The server holds the rest at the gate until this first chunk was read.
            let first = try await chunks.next()
            gate.open()
            var text = String(decoding: first ?? [], as: UTF8.self) + "|"
            while let chunk = try await chunks.next() { text += String(decoding: chunk, as: UTF8.self) }
            return text
        }

        XCTAssertEqual(text, "data: first\n\n|data: second\n\n")
        let events = try await recorder.waitForTerminalEvents(count: 1)
        XCTAssertEqual(events.map(\.name), [
            .requestCreated, .requestStarted, .responseReceived, .responseMessage, .responseMessage, .requestSucceeded,
        ])
        XCTAssertEqual(events.last?.responseBodyByteCount, 27)
        XCTAssertEqual(events.last?.isStreamed, true)
    }

    func testALargeBodyStreamsInPiecesWithItsLength() async throws {
        let size: Int64 = 8 << 20
        server.route("GET", "/large", streaming: { _, writer in
            try writer.writeHead(framing: .contentLength(size))
            try writer.writePattern(byteCount: size)
        })

        let (head, body) = try await transport().perform(HTTPRequest(url: server.url("/large")), body: nil)
        XCTAssertEqual(head.statusCode, 200)
        XCTAssertEqual(head.headers["Content-Length"], String(size))
        XCTAssertEqual(body.length, .known(size))
        var digest = LoopbackBodyDigest()
        var largest = 0
        for try await chunk in body {
            digest.update(chunk)
            largest = max(largest, chunk.count)
        }
        XCTAssertEqual(digest, LoopbackBodyPattern.digest(byteCount: size))
        XCTAssertLessThan(largest, 1 << 20, "delivered as the network hands it over, not whole")
    }

    func testAReaderThatStopsEarlyCancelsTheTask() async throws {
        let gate = server.makeGate()
        let serverSaw = Locked<LoopbackResponseWriter.Error?>(nil)
        server.route("GET", "/endless", streaming: { _, writer in
            try writer.writeHead(framing: .chunked)
            try writer.write("first")
            try writer.wait(for: gate)
            do {
                // A trickle that ends only when the client goes away: at most 64 B a millisecond,
                // 3.8 MB a minute, far below the unread-bytes limit whose overflow would also
                // cancel the task, so only the reader's stop can.
                for _ in 0..<60_000 {
                    try writer.write(String(repeating: "x", count: 64))
                    Thread.sleep(forTimeInterval: 0.001)
                }
            } catch let error as LoopbackResponseWriter.Error {
                serverSaw.withLock { $0 = error }
                throw error
            }
        })

        let first = try await client().send(HTTPRequest(url: server.url("/endless"))) { _, body in
            var chunks = body.makeAsyncIterator()
            return try await chunks.next().map { String(decoding: $0, as: UTF8.self) }
        }
        gate.open()

        XCTAssertEqual(first, "first")
        let events = try await recorder.waitForTerminalEvents(count: 1)
        XCTAssertEqual(events.last?.name, .requestCancelled)
        XCTAssertEqual(events.last?.responseBodyByteCount, 5)
        // What the transport does: it cancels URLSession's task (which then runs no more, or
        // has completed and left the session).
        try await waitForEveryTaskToStopRunning()
        do {
            try await waitUntil("the server's writes failed because the client closed the connection") {
                serverSaw.withLock { $0 } == .connectionClosed
            }
        } catch let timeout as ConditionTimeout {
            #if canImport(FoundationNetworking)
            // FoundationNetworking sometimes loses a cancel: the task stays `.canceling`, every
            // later `cancel()` returns at once (StreamedTask.cancelUntilCompleted), and the
            // transfer goes on, open. Seen under the thread sanitizer, and once in a plain CI
            // run in well over a hundred. The transport's part, cancelling the task, was checked
            // above; closing the socket is FoundationNetworking's.
            throw XCTSkip("FoundationNetworking kept the connection of a cancelled task open: \(timeout)")
            #else
            throw timeout
            #endif
        }
    }

    /// Waits until no task of the test's session is running: each was cancelled, or completed.
    private func waitForEveryTaskToStopRunning() async throws {
        let deadline = Date().addingTimeInterval(60)
        var states = await stateOfEveryTask()
        while states.contains(.running) {
            guard Date() < deadline else { throw TaskStillRunning(states: states) }
            try await Task.sleep(nanoseconds: 1_000_000)
            states = await stateOfEveryTask()
        }
    }

    /// A task of the test's session was still running a minute after its reader stopped.
    private struct TaskStillRunning: Error, CustomStringConvertible {
        let states: [URLSessionTask.State]
        var description: String { "not within 60 s: the session's task was cancelled (states: \(states.map(\.rawValue)))" }
    }

    /// The state of each task the test's session holds (a completed task has left it).
    private func stateOfEveryTask() async -> [URLSessionTask.State] {
        await withCheckedContinuation { done in
            session.getAllTasks { tasks in done.resume(returning: tasks.map(\.state)) }
        }
    }

    func testAConnectionDroppedMidBodyIsConnectionLostWithTheBytesSoFar() async throws {
        for framing in [LoopbackResponseWriter.Framing.contentLength(1 << 20), .chunked] {
            server.route("GET", "/drop", streaming: { _, writer in
                try writer.writeHead(framing: framing)
                try writer.writePattern(byteCount: 300_000)
                writer.dropConnection()
            })

            let (_, body) = try await transport().perform(HTTPRequest(url: server.url("/drop")), body: nil)
            let (bytes, error) = await drain(body)

            XCTAssertEqual(bytes.count, 300_000, "\(framing)")
            XCTAssertEqual((error as? HTTPError)?.code, .connectionLost, "\(framing): \(String(describing: error))")
        }
    }

    func testAStreamedBodyOverTheCapFailsWithResponseTooLarge() async throws {
        server.route("GET", "/large", streaming: { _, writer in
            try writer.writeHead(framing: .chunked)
            try writer.writePattern(byteCount: 4 << 20)
        })
        let limits = URLSessionTransport.Limits(maximumStreamedBytes: 100_000)

        let (_, body) = try await transport(limits: limits).perform(HTTPRequest(url: server.url("/large")), body: nil)
        let (bytes, error) = await drain(body)

        XCTAssertLessThanOrEqual(bytes.count, 100_000)
        XCTAssertEqual(error as? HTTPError, .transport(
            .responseTooLarge,
            message: "the response body is over 100000 bytes, URLSessionTransport.Limits.maximumStreamedBytes (127.0.0.1:\(server.port))"
        ))
    }

    func testABufferedBodyOverTheCapFailsWithResponseTooLarge() async throws {
        server.route("/large") { _ in LoopbackResponse(status: 200, body: Data(repeating: 7, count: 2000)) }
        let client = client(limits: URLSessionTransport.Limits(maximumBufferedBytes: 1000))
        let expected = HTTPError.transport(
            .responseTooLarge,
            message: "the response body is over 1000 bytes, URLSessionTransport.Limits.maximumBufferedBytes (127.0.0.1:\(server.port)); "
                + "raise it, or read the body with the streaming send(_:body:receive:)"
        )

        // A completion-handler task, and (on Linux) a delegate-driven one for a request with a body.
        for request in [
            HTTPRequest(url: server.url("/large")),
            HTTPRequest(method: .post, url: server.url("/large"), body: Data("x".utf8)),
        ] {
            do {
                _ = try await client.send(request)
                XCTFail("expected response_too_large for \(request.method)")
            } catch let error as HTTPError {
                XCTAssertEqual(error, expected, "\(request.method)")
            }
        }
    }

    func testTaskCancellationWhileWaitingForTheHeadThrowsCancelled() async throws {
        let gate = server.makeGate()
        server.route("GET", "/slow", streaming: { _, writer in
            try writer.wait(for: gate)
            try writer.writeHead(framing: .contentLength(0))
        })
        let transport = transport()
        let url = server.url("/slow")

        let exchange = Task { try await transport.perform(HTTPRequest(url: url), body: nil) }
        try await waitUntil("the server received the request") { server.requests.count == 1 }
        exchange.cancel()

        do {
            _ = try await exchange.value
            XCTFail("expected cancellation")
        } catch let error as HTTPError {
            XCTAssertEqual(error, .cancelled)
        }
        gate.open()
    }

    func testStreamedResponsesKeepTheSetCookieAndContentEncodingRules() async throws {
        let gzipped: [UInt8] = [
            31, 139, 8, 0, 0, 0, 0, 0, 2, 3, 203, 72, 205, 201, 201, 215, 81, 40, 46, 41, 74, 77, 204, 77, 77, 81, 40, 207,
            47, 202, 73, 1, 0, 70, 196, 42, 116, 21, 0, 0, 0,
        ]
        server.route("GET", "/gz", streaming: { _, writer in
            var headers: HTTPHeaders = ["Content-Encoding": "gzip", "Set-Cookie": "a=1; Expires=Wed, 21 Oct 2026 07:28:00 GMT"]
            headers.add(name: "Set-Cookie", value: "b=2")
            try writer.writeHead(headers: headers, framing: .contentLength(Int64(gzipped.count)))
            try writer.write(gzipped)
        })

        let (head, body) = try await transport().perform(HTTPRequest(url: server.url("/gz")), body: nil)
        let (bytes, error) = await drain(body)

        XCTAssertNil(error)
        XCTAssertEqual(String(decoding: bytes, as: UTF8.self), "hello, streamed world")
        XCTAssertNil(head.headers["Content-Encoding"])
        XCTAssertNil(head.headers["Content-Length"], "the decoded size is not known before the end")
        XCTAssertEqual(body.length, .unknown)
        XCTAssertEqual(head.headers.values(for: "Set-Cookie"), ["a=1; Expires=Wed, 21 Oct 2026 07:28:00 GMT", "b=2"])
    }

    func testASessionWithoutTheDelegateFallsBackToBuffering() async throws {
        server.route("/hello") { _ in .text("hello") }
        let plain = URLSession(configuration: URLSessionClient.makeDefaultConfiguration())
        defer { plain.invalidateAndCancel() }

        let (head, body) = try await URLSessionTransport(session: plain).perform(HTTPRequest(url: server.url("/hello")), body: nil)

        XCTAssertEqual(head.statusCode, 200)
        XCTAssertEqual(body.iterationBehavior, HTTPBody.IterationBehavior.multiple, "the buffered body, replayable")
        let bytes = try await body.collect(upTo: 100)
        XCTAssertEqual(bytes, Data("hello".utf8))
    }

    // MARK: Uploads

    func testAStreamedUploadArrivesIntactAndChunked() async throws {
        let size: Int64 = 64 << 20
        server.route("POST", "/upload", requestBody: .digestOnly) { _ in .text("stored") }
        let upload = HTTPBody(PatternChunks(byteCount: size), length: .known(size))
        var request = HTTPRequest(method: .post, url: server.url("/upload"))
        request.headers.set(name: "Content-Type", value: "application/octet-stream")

        let (head, body) = try await transport().perform(request, body: upload)
        let answer = try await body.collect(upTo: 100)

        XCTAssertEqual(head.statusCode, 200)
        XCTAssertEqual(answer, Data("stored".utf8))
        let received = try XCTUnwrap(server.requests.last)
        XCTAssertEqual(received.bodyDigest, LoopbackBodyPattern.digest(byteCount: size))
        #if canImport(FoundationNetworking)
        XCTAssertEqual(received.headers["Transfer-Encoding"], "chunked")
        XCTAssertNil(received.headers["Content-Length"], "libcurl would send both")
        #endif
    }

    func testASmallUploadOfKnownLengthIsSentWithItsContentLength() async throws {
        server.route("PUT", "/small") { _ in .text("ok") }
        let upload = HTTPBody(PatternChunks(byteCount: 1000), length: .known(1000))

        let (head, _) = try await transport().perform(HTTPRequest(method: .put, url: server.url("/small")), body: upload)

        XCTAssertEqual(head.statusCode, 200)
        let received = try XCTUnwrap(server.requests.last)
        XCTAssertEqual(received.headers["Content-Length"], "1000")
        XCTAssertNil(received.headers["Transfer-Encoding"])
        XCTAssertEqual(received.bodyDigest, LoopbackBodyPattern.digest(byteCount: 1000))
    }

    func testAnUploadThatFailsMidwayFailsTheExchangeWithItsError() async throws {
        server.route("POST", "/upload", requestBody: .digestOnly) { _ in .text("stored") }
        let upload = HTTPBody(PatternChunks(byteCount: 4 << 20, failingAfter: 2 << 20), length: .unknown)

        do {
            _ = try await transport().perform(HTTPRequest(method: .post, url: server.url("/upload")), body: upload)
            XCTFail("expected the body's failure")
        } catch let error as PatternChunks.ProducerFailure {
            XCTAssertEqual(error, PatternChunks.ProducerFailure())
        }
    }

    func testAStreamedBodyOnAGetIsRefusedBeforeSending() async throws {
        let upload = HTTPBody(PatternChunks(byteCount: 10), length: .unknown)
        do {
            _ = try await transport().perform(HTTPRequest(url: server.url("/x")), body: upload)
            XCTFail("expected invalid_request")
        } catch let error as HTTPError {
            XCTAssertEqual(error.code, .invalidRequest)
        }
        XCTAssertEqual(server.requests.count, 0)
    }

    func testA307RedirectResendsAReplayableStreamedBodyAndReturnsAOnePassOne() async throws {
        server.route("POST", "/old") { _ in LoopbackResponse(status: 307, headers: ["Location": "/new"]) }
        server.route("POST", "/new", requestBody: .digestOnly) { _ in .text("moved") }
        let size: Int64 = 2 << 20
        let replayable = HTTPBody(length: .known(size)) { PatternChunks(byteCount: size) }
        let onePass = HTTPBody(PatternChunks(byteCount: size), length: .known(size))

        let (followed, _) = try await transport().perform(HTTPRequest(method: .post, url: server.url("/old")), body: replayable)
        let (returned, _) = try await transport().perform(HTTPRequest(method: .post, url: server.url("/old")), body: onePass)

        XCTAssertEqual(followed.statusCode, 200)
        XCTAssertEqual(followed.url, server.url("/new"))
        XCTAssertEqual(server.requests.filter { $0.path == "/new" }.map(\.bodyDigest), [LoopbackBodyPattern.digest(byteCount: size)])
        XCTAssertEqual(returned.statusCode, 307, "a one-pass body cannot be sent again")
    }
}

/// The loopback pattern as an async sequence of 64 KiB chunks, optionally failing part-way.
struct PatternChunks: AsyncSequence, Sendable {
    typealias Element = ArraySlice<UInt8>

    struct ProducerFailure: Error, Hashable {}

    let byteCount: Int64
    var failingAfter: Int64?

    struct AsyncIterator: AsyncIteratorProtocol {
        typealias Element = ArraySlice<UInt8>

        let byteCount: Int64
        let failingAfter: Int64?
        var offset: Int64 = 0

        mutating func next() async throws -> ArraySlice<UInt8>? {
            if let failingAfter, offset >= failingAfter { throw ProducerFailure() }
            guard offset < byteCount else { return nil }
            let count = Int(Swift.min(64 * 1024, byteCount - offset))
            defer { offset += Int64(count) }
            return LoopbackBodyPattern.chunk(at: offset, count: count)
        }
    }

    func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(byteCount: byteCount, failingAfter: failingAfter)
    }
}
