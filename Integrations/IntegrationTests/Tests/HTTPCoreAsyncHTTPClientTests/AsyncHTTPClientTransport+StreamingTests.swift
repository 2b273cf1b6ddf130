import AsyncHTTPClient
import Foundation
import HTTPCore
import HTTPCoreObservation
import HTTPCoreLoopback
import HTTPCoreTestPeers
import HTTPCoreTesting
import NIOConcurrencyHelpers
import XCTest

@testable import HTTPCoreAsyncHTTPClient

/// The AsyncHTTPClient transport streaming both ways, against the loopback server's streamed
/// routes: gates hold a response in the middle, so nothing here depends on timing.
final class AsyncHTTPClientTransportStreamingTests: XCTestCase {
    private var server: LoopbackHTTPServer!
    private var ahc: AsyncHTTPClient.HTTPClient!
    private var dispatcher: HTTPEventDispatcher!
    private var recorder: RecordingObserver!

    private static let succeeded: [HTTPEvent.Name] = [.requestCreated, .requestStarted, .responseReceived, .requestSucceeded]
    private static let failed: [HTTPEvent.Name] = [.requestCreated, .requestStarted, .responseReceived, .requestFailed]
    private static let cancelled: [HTTPEvent.Name] = [.requestCreated, .requestStarted, .responseReceived, .requestCancelled]

    override func setUpWithError() throws {
        server = try LoopbackHTTPServer()
        ahc = AsyncHTTPClientTransport.makeHTTPClient()
        dispatcher = HTTPEventDispatcher()
        recorder = RecordingObserver()
        dispatcher.subscribe(recorder)
        server.route("/users/42") { _ in .json(#"{"id":42}"#) }
    }

    override func tearDown() async throws {
        server.stop()
        try await ahc.shutdown()
    }

    private func client(maximumStreamedResponseBytes: Int? = nil) -> HTTPTransportClient<AsyncHTTPClientTransport> {
        HTTPTransportClient(
            asyncHTTPClient: ahc, maximumStreamedResponseBytes: maximumStreamedResponseBytes, dispatcher: dispatcher, policy: .debug
        )
    }

    private func request(_ path: String, method: HTTPMethod = .get, timeout: TimeInterval = 60) -> HTTPRequest {
        HTTPRequest(method: method, url: server.url(path), timeout: timeout)
    }

    /// Reads `body` until at least `count` bytes arrived (or it ended).
    private static func read(_ count: Int, from iterator: inout HTTPBody.Iterator) async throws -> [UInt8] {
        var received: [UInt8] = []
        while received.count < count, let chunk = try await iterator.next() {
            received += chunk
        }
        return received
    }

    /// Reads `body` to its end or its failure: the bytes that arrived, and the error.
    private static func readToTheEnd(_ body: HTTPBody) async -> (bytes: [UInt8], error: HTTPError?) {
        var received: [UInt8] = []
        do {
            for try await chunk in body { received += chunk }
            return (received, nil)
        } catch {
            return (received, error as? HTTPError ?? .transport(.other, message: "not an HTTPError: \(error)"))
        }
    }

    // MARK: Responses

    func testTheFirstPieceArrivesWhileTheServerIsStillSending() async throws {
        let gate = server.makeGate()
        server.route("GET", "/gated", streaming: { _, writer in
            try writer.writeHead(headers: ["Content-Type": "text/plain"], framing: .chunked)
            try writer.write("first")
            try writer.wait(for: gate)
            try writer.write("second")
        })
        let (length, first, all) = try await client().send(request("/gated")) { response, body in
            XCTAssertEqual(response.statusCode, 200)
            var iterator = body.makeAsyncIterator()
            let first = try await Self.read(5, from: &iterator)
            gate.open()  // only now can the server send the rest
            let rest = try await Self.read(.max, from: &iterator)
            return (body.length, String(decoding: first, as: UTF8.self), String(decoding: first + rest, as: UTF8.self))
        }
        XCTAssertEqual(length, .unknown)
        XCTAssertEqual(first, "first")
        XCTAssertEqual(all, "firstsecond")
        let events = try await recorder.waitForTerminalEvents(count: 1)
        XCTAssertEqual(events.map(\.name), Self.succeeded)
        XCTAssertEqual(events.last?.endResponse?.bodyByteCount, 11)
        XCTAssertEqual(events.last?.request.isStreamed, true)
    }

    func testALargeBodyArrivesWholeWithItsContentLength() async throws {
        let size: Int64 = 3 << 20 + 17
        server.route("GET", "/download", streaming: { _, writer in
            try writer.writeHead(framing: .contentLength(size))
            try writer.writePattern(byteCount: size)
        })
        let (length, digest) = try await client().send(request("/download")) { _, body in
            var digest = LoopbackBodyDigest()
            for try await chunk in body { chunk.withUnsafeBytes { digest.update($0) } }
            return (body.length, digest)
        }
        XCTAssertEqual(length, .known(size))
        XCTAssertEqual(digest, LoopbackBodyPattern.digest(byteCount: size))
        let events = try await recorder.waitForTerminalEvents(count: 1)
        XCTAssertEqual(events.map(\.name), Self.succeeded)
        XCTAssertEqual(events.last?.endResponse?.bodyByteCount, Int(size))
    }

    func testAHeadResponseHasAnEmptyBodyAndTheConnectionIsReused() async throws {
        server.route("/resource") { _ in .text("twelve bytes") }
        let (length, bytes) = try await client().send(request("/resource", method: .head)) { response, body in
            XCTAssertEqual(response.headers["Content-Length"], "12")
            return (body.length, try await body.collect(upTo: 100))
        }
        XCTAssertEqual(length, .known(0))
        XCTAssertEqual(bytes, Data())
        let next = try await client().send(request("/users/42"))
        XCTAssertEqual(next.statusCode, 200)
        XCTAssertEqual(server.requests.map(\.connectionID), [1, 1], "the HEAD exchange left the connection reusable")
    }

    // MARK: Stopping early

    func testAReaderThatStopsEarlyCancelsTheRequestAndThePoolGoesOn() async throws {
        let gate = server.makeGate()
        let closed = ServerReport<Bool>()
        server.routeHeldAtGate("/long", head: 10, gate: gate, closed: closed)
        let first = try await client().send(request("/long")) { _, body in
            var iterator = body.makeAsyncIterator()
            return try await Self.read(10, from: &iterator).count
        }
        XCTAssertEqual(first, 10)
        let events = try await recorder.waitForTerminalEvents(count: 1)
        XCTAssertEqual(events.map(\.name), Self.cancelled)
        XCTAssertEqual(events.last?.endResponse?.bodyByteCount, 10)
        gate.open()
        let serverSawTheClose = try await closed.value("the route's writes after the early stop")
        XCTAssertTrue(serverSawTheClose, "AHC closed the connection")
        let next = try await client().send(request("/users/42"))
        XCTAssertEqual(String(decoding: next.body, as: UTF8.self), #"{"id":42}"#)
    }

    func testAnEarlyStopFreesTheOnlyConnectionWhileTheServerStalls() async throws {
        var configuration = AsyncHTTPClient.HTTPClient.Configuration()
        configuration.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = 1
        let single = AsyncHTTPClientTransport.makeHTTPClient(configuration: configuration)
        let client = HTTPTransportClient(asyncHTTPClient: single, dispatcher: dispatcher, policy: .debug)
        let gate = server.makeGate()
        server.routeHeldAtGate("/long", head: 10, gate: gate, closed: ServerReport<Bool>())
        let first = try await client.send(request("/long")) { _, body in
            var iterator = body.makeAsyncIterator()
            return try await Self.read(10, from: &iterator).count
        }
        XCTAssertEqual(first, 10)
        // The server still waits at its gate: only the stop itself can have freed the pool's one
        // connection for this request (without it, this waits for the stalled body).
        var text: String?
        do {
            text = String(decoding: try await client.send(request("/users/42", timeout: 10)).body, as: UTF8.self)
        } catch {
            XCTFail("the next request did not get the connection: \(error)")
        }
        gate.open()
        try await single.shutdown()
        XCTAssertEqual(text, #"{"id":42}"#)
    }

    func testAReaderThatNeverReadsCancelsTheRequest() async throws {
        let gate = server.makeGate()
        let closed = ServerReport<Bool>()
        server.routeHeldAtGate("/unread", head: 10, gate: gate, closed: closed)
        try await client().send(request("/unread")) { response, _ in
            XCTAssertEqual(response.statusCode, 200)
        }
        let events = try await recorder.waitForTerminalEvents(count: 1)
        XCTAssertEqual(events.map(\.name), Self.cancelled)
        XCTAssertEqual(events.last?.endResponse?.bodyByteCount, 0)
        gate.open()
        let serverSawTheClose = try await closed.value("the route's writes after the exchange ended")
        XCTAssertTrue(serverSawTheClose)
    }

    func testCancellingTheReaderMidBodyCancelsTheRequest() async throws {
        let gate = server.makeGate()
        let closed = ServerReport<Bool>()
        let readFirst = ServerReport<Int>()
        server.routeHeldAtGate("/long", head: 10, gate: gate, closed: closed)
        let client = client()
        let url = server.url("/long")
        let reading = Task { try await AsyncHTTPClientTransportStreamingTests.readPastTheGate(client, url: url, reportingFirstBytes: readFirst) }
        let first = try await readFirst.value("the first 10 bytes")
        XCTAssertEqual(first, 10)
        reading.cancel()
        do {
            try await reading.value
            XCTFail("expected cancellation")
        } catch let error as HTTPError {
            XCTAssertEqual(error, .cancelled)
        }
        let events = try await recorder.waitForTerminalEvents(count: 1)
        XCTAssertEqual(events.map(\.name), Self.cancelled)
        XCTAssertEqual(events.last?.endResponse?.bodyByteCount, 10)
        gate.open()
        let serverSawTheClose = try await closed.value("the route's writes after the cancellation")
        XCTAssertTrue(serverSawTheClose)
    }

    /// Reads 10 bytes, reports their count, then waits for the rest.
    private static func readPastTheGate(
        _ client: HTTPTransportClient<AsyncHTTPClientTransport>, url: URL, reportingFirstBytes report: ServerReport<Int>
    ) async throws {
        try await client.send(HTTPRequest(url: url, timeout: 60)) { _, body in
            var iterator = body.makeAsyncIterator()
            report.report(try await read(10, from: &iterator).count)
            _ = try await read(.max, from: &iterator)  // waits: the server is at the gate
        }
    }

    // MARK: Failures mid-body

    func testAConnectionDroppedMidBodyIsConnectionLostAfterTheBytesThatArrived() async throws {
        server.route("GET", "/dropped-length", streaming: { _, writer in
            try writer.writeHead(framing: .contentLength(1000))
            try writer.writePattern(byteCount: 300)
            writer.dropConnection()
        })
        server.route("GET", "/dropped-chunked", streaming: { _, writer in
            try writer.writeHead(framing: .chunked)
            try writer.writePattern(byteCount: 300)
            writer.dropConnection()
        })
        for path in ["/dropped-length", "/dropped-chunked"] {
            let received = try await client().send(request(path)) { _, body -> Int in
                var count = 0
                do {
                    for try await chunk in body { count += chunk.count }
                    XCTFail("\(path): expected the body to fail")
                } catch let error as HTTPError {
                    XCTAssertEqual(error.code, .connectionLost, "\(path): \(error)")
                }
                return count
            }
            XCTAssertEqual(received, 300, path)
        }
        let events = try await recorder.waitForTerminalEvents(count: 2)
        XCTAssertEqual(events.map(\.name), Self.failed + Self.failed)
        let terminal = events.filter(\.name.isTerminal)
        XCTAssertEqual(terminal.map(\.endError?.code), [.connectionLost, .connectionLost])
        XCTAssertEqual(terminal.map(\.endResponse?.bodyByteCount), [300, 300])
    }

    /// AHC fails the request on the close without handing over the parts it had received but
    /// not yet been asked for, so a large cut body arrives as a prefix of what was sent.
    func testALargeBodyCutMidWayArrivesAsAPrefixThenConnectionLost() async throws {
        let sent: Int64 = 3 << 20
        server.route("GET", "/cut", streaming: { _, writer in
            try writer.writeHead(framing: .contentLength(8 << 20))
            try writer.writePattern(byteCount: sent)
            writer.dropConnection()
        })
        let (received, error) = try await client().send(request("/cut")) { _, body in
            await Self.readToTheEnd(body)
        }
        let digest = LoopbackBodyDigest(of: received)
        XCTAssertEqual(error?.code, .connectionLost)
        XCTAssertLessThanOrEqual(digest.byteCount, sent)
        XCTAssertEqual(digest, LoopbackBodyPattern.digest(byteCount: digest.byteCount), "the bytes handed over are the first ones sent")
        let events = try await recorder.waitForTerminalEvents(count: 1)
        XCTAssertEqual(events.map(\.name), Self.failed)
        XCTAssertEqual(events.last?.endResponse?.bodyByteCount, Int(digest.byteCount))
    }

    func testABodyOverTheCapDeliversExactlyTheCapThenFails() async throws {
        server.route("GET", "/growing", streaming: { _, writer in
            try writer.writeHead(framing: .chunked)
            for _ in 0..<3 { try writer.writePattern(byteCount: 600) }
        })
        let (received, error) = try await client(maximumStreamedResponseBytes: 1000).send(request("/growing")) { _, body in
            await Self.readToTheEnd(body)
        }
        XCTAssertEqual(received[...], LoopbackBodyPattern.chunk(at: 0, count: 1000))
        XCTAssertEqual(error?.code, .responseTooLarge)
        XCTAssertEqual(
            error?.message,
            "the response body is over 1000 bytes, AsyncHTTPClientTransport.maximumStreamedResponseBytes (127.0.0.1:\(server.port))"
        )
        let events = try await recorder.waitForTerminalEvents(count: 1)
        XCTAssertEqual(events.map(\.name), Self.failed)
        XCTAssertEqual(events.last?.endError?.code, .responseTooLarge)
        XCTAssertEqual(events.last?.endResponse?.bodyByteCount, 1000)
    }

    func testADeclaredLengthOverTheCapFailsBeforeAByteIsRead() async throws {
        server.route("/big") { _ in LoopbackResponse(body: Data(repeating: 65, count: 4096)) }
        let (length, read) = try await client(maximumStreamedResponseBytes: 1024).send(request("/big")) { _, body in
            (body.length, await Self.readToTheEnd(body))
        }
        let (received, error) = (read.bytes.count, read.error)
        XCTAssertEqual(length, HTTPBody.Length.known(4096))
        XCTAssertEqual(received, 0)
        XCTAssertEqual(error?.code, .responseTooLarge)
        let events = try await recorder.waitForTerminalEvents(count: 1)
        XCTAssertEqual(events.map(\.name), Self.failed)
        XCTAssertEqual(events.last?.endResponse?.bodyByteCount, 0)
    }

    // MARK: Deadlines

    func testTheDeadlineMidBodyIsATimeoutAndClosesTheConnection() async throws {
        let gate = server.makeGate()
        let closed = ServerReport<Bool>()
        server.routeHeldAtGate("/stalled", head: 10, gate: gate, closed: closed)
        let received = try await client().send(request("/stalled", timeout: 2)) { _, body -> Int in
            var count = 0
            do {
                for try await chunk in body { count += chunk.count }
                XCTFail("expected a timeout")
            } catch let error as HTTPError {
                XCTAssertEqual(error, .timeout)
            }
            return count
        }
        XCTAssertEqual(received, 10)
        let events = try await recorder.waitForTerminalEvents(count: 1)
        XCTAssertEqual(events.map(\.name), Self.failed)
        XCTAssertEqual(events.last?.endError, .timeout)
        XCTAssertEqual(events.last?.endResponse?.bodyByteCount, 10)
        gate.open()
        let serverSawTheClose = try await closed.value("the route's writes after the deadline")
        XCTAssertTrue(serverSawTheClose)
    }

    func testTheTransportAloneHoldsTheDeadlineForTheBody() async throws {
        let gate = server.makeGate()
        let closed = ServerReport<Bool>()
        server.routeHeldAtGate("/stalled", head: 10, gate: gate, closed: closed)
        let transport = AsyncHTTPClientTransport(client: ahc)
        let (head, body) = try await transport.perform(request("/stalled", timeout: 2), body: nil)
        XCTAssertEqual(head.statusCode, 200)
        var count = 0
        do {
            for try await chunk in body { count += chunk.count }
            XCTFail("expected a timeout")
        } catch let error as HTTPError {
            XCTAssertEqual(error, .timeout)
        }
        XCTAssertEqual(count, 10)
        gate.open()
        let serverSawTheClose = try await closed.value("the route's writes after the deadline")
        XCTAssertTrue(serverSawTheClose)
    }

    // MARK: Uploads

    func testAStreamedUploadArrivesIntactWithAndWithoutALength() async throws {
        server.route("POST", "/upload", requestBody: .digestOnly) { _ in .text("stored", status: 201) }
        let size = 1 << 20 + 7
        for length in [HTTPBody.Length.known(Int64(size)), .unknown] {
            let body = HTTPBody(PatternChunks(total: size, chunkSize: 10_000), length: length)
            let status = try await client().send(request("/upload", method: .post), body: body) { response, body in
                _ = try await body.collect(upTo: 100)
                return response.statusCode
            }
            XCTAssertEqual(status, 201)
        }
        let uploads = server.requests
        XCTAssertEqual(uploads.map(\.bodyDigest), [LoopbackBodyPattern.digest(byteCount: Int64(size))] + [LoopbackBodyPattern.digest(byteCount: Int64(size))])
        XCTAssertEqual(uploads.map { $0.headers["Content-Length"] }, [String(size), nil])
        XCTAssertEqual(uploads.map { $0.headers["Transfer-Encoding"] }, [nil, "chunked"], "an unknown length goes chunked, as it is read")
        let events = try await recorder.waitForTerminalEvents(count: 2)
        XCTAssertEqual(events.map(\.name), Self.succeeded + Self.succeeded)
        XCTAssertEqual(events.filter(\.name.isTerminal).map(\.request.bodyByteCount), [size, size])
    }

    /// The call is cancelled while the upload waits inside a producer that never ends (but
    /// honours cancellation): the task reading the request body ends with the exchange.
    func testTheUploadOfABodyThatNeverEndsStopsWhenTheCallIsCancelled() async throws {
        server.route("POST", "/upload") { _ in .text("stored", status: 201) }
        let (never, producer) = AsyncStream.makeStream(of: HTTPBody.ByteChunk.self)
        defer { producer.finish() }
        let waiting = ServerReport<Bool>()
        let readerGone = ServerReport<Bool>()
        let body = HTTPBody(HeldChunks(secondReadBegins: waiting, readerGone: readerGone) {
            var iterator = never.makeAsyncIterator()
            return await iterator.next()
        }, length: .unknown)
        let client = client()
        let upload = request("/upload", method: .post)
        let call = Task { try await client.send(upload, body: body) { head, _ in head.statusCode } }
        _ = try await waiting.value("the upload's wait for the second chunk")
        call.cancel()
        do {
            _ = try await call.value
            XCTFail("expected cancellation")
        } catch let error as HTTPError {
            XCTAssertEqual(error, .cancelled)
        }
        let gone = try await readerGone.value("the end of the task reading the request body")
        XCTAssertTrue(gone)
        XCTAssertEqual(server.requests.count, 0, "the server never got the whole request")
    }

    /// A producer that ignores cancellation holds its read past the deadline: the call fails
    /// at the deadline all the same, and once the read returns, the task reading the body
    /// sends nothing more and ends.
    func testTheUploadOfAProducerThatIgnoresCancellationEndsAtItsNextChunk() async throws {
        server.route("POST", "/upload") { _ in .text("stored", status: 201) }
        let latch = Latch()
        let waiting = ServerReport<Bool>()
        let readerGone = ServerReport<Bool>()
        let body = HTTPBody(HeldChunks(secondReadBegins: waiting, readerGone: readerGone) {
            await latch.wait()
            return HTTPBody.ByteChunk("late".utf8)
        }, length: .unknown)
        do {
            _ = try await client().send(request("/upload", method: .post, timeout: 2), body: body) { head, _ in head.statusCode }
            XCTFail("expected a timeout")
        } catch let error as HTTPError {
            XCTAssertEqual(error, .timeout)
        }
        let wasWaiting = try await waiting.value("the upload's wait for the second chunk")
        XCTAssertTrue(wasWaiting, "the call ended while the producer still held its read")
        latch.open()
        let gone = try await readerGone.value("the end of the task reading the request body")
        XCTAssertTrue(gone)
        XCTAssertEqual(server.requests.count, 0, "the server never got the whole request")
        let events = try await recorder.waitForTerminalEvents(count: 1)
        XCTAssertEqual(events.last?.endError, .timeout)
    }
}

/// A request body of one chunk, `first`, then whatever `secondRead` returns, then its end.
/// Reports to `secondReadBegins` as the second read starts, and to `readerGone` when the
/// iterator is released: the task reading the body has stopped.
private struct HeldChunks: AsyncSequence, Sendable {
    typealias Element = HTTPBody.ByteChunk
    let secondReadBegins: ServerReport<Bool>
    let readerGone: ServerReport<Bool>
    let secondRead: @Sendable () async -> HTTPBody.ByteChunk?

    init(
        secondReadBegins: ServerReport<Bool>, readerGone: ServerReport<Bool>,
        secondRead: @escaping @Sendable () async -> HTTPBody.ByteChunk?
    ) {
        self.secondReadBegins = secondReadBegins
        self.readerGone = readerGone
        self.secondRead = secondRead
    }

    struct AsyncIterator: AsyncIteratorProtocol {
        let chunks: HeldChunks
        let lifetime: IteratorLifetime
        var reads = 0

        mutating func next() async -> HTTPBody.ByteChunk? {
            reads += 1
            switch reads {
            case 1: return HTTPBody.ByteChunk("first".utf8)
            case 2:
                chunks.secondReadBegins.report(true)
                return await chunks.secondRead()
            default: return nil
            }
        }
    }

    func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(chunks: self, lifetime: IteratorLifetime(readerGone))
    }
}

/// Reports `true` once the iterator holding it is released.
private final class IteratorLifetime: Sendable {
    private let gone: ServerReport<Bool>

    init(_ gone: ServerReport<Bool>) {
        self.gone = gone
    }

    deinit {
        gone.report(true)
    }
}

/// A wait that only ``open()`` ends, whatever happens to the waiting task: a producer that
/// ignores cancellation.
private final class Latch: Sendable {
    private let state = NIOLockedValueBox<(isOpen: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))

    func wait() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let isOpen = state.withLockedValue { state in
                if !state.isOpen { state.waiters.append(continuation) }
                return state.isOpen
            }
            if isOpen { continuation.resume() }
        }
    }

    func open() {
        let waiters = state.withLockedValue { state in
            defer { state = (true, []) }
            return state.waiters
        }
        waiters.forEach { $0.resume() }
    }
}

/// The loopback pattern's first `total` bytes in chunks of `chunkSize`, made as they are read.
private struct PatternChunks: AsyncSequence, Sendable {
    typealias Element = ArraySlice<UInt8>
    let total: Int
    let chunkSize: Int

    struct AsyncIterator: AsyncIteratorProtocol {
        let total: Int
        let chunkSize: Int
        var offset = 0

        mutating func next() async -> ArraySlice<UInt8>? {
            guard offset < total else { return nil }
            let count = Swift.min(chunkSize, total - offset)
            defer { offset += count }
            return LoopbackBodyPattern.chunk(at: Int64(offset), count: count)
        }
    }

    func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(total: total, chunkSize: chunkSize)
    }
}
