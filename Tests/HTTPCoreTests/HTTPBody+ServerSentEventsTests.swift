import Foundation
import HTTPCore
import HTTPCoreConcurrency
import HTTPCoreLoopback
import HTTPCoreObservation
import HTTPCoreURLSession
import XCTest

/// A body's server-sent events, read as the consumer asks for them: split by the WHATWG rules
/// whatever the chunks, one chunk pulled at a time, an event over the limit refused naming it,
/// and the body's own failure thrown as it is.
final class HTTPBodyServerSentEventsTests: XCTestCase {
    private var server: LoopbackHTTPServer!

    override func setUpWithError() throws {
        server = try LoopbackHTTPServer()
    }

    override func tearDown() {
        server.stop()
    }

    /// The events of `body`, or the error that ended them.
    private func read(_ events: HTTPBody.Messages<HTTPBody.ServerSentEvent>) async -> (events: [HTTPBody.ServerSentEvent], error: (any Error)?) {
        var read: [HTTPBody.ServerSentEvent] = []
        do {
            for try await event in events { read.append(event) }
            return (read, nil)
        } catch {
            return (read, error)
        }
    }

    func testEventsAreTheSameWhereverTheChunksBreakDownToSingleBytes() async {
        let stream = "\u{FEFF}: a comment\r\nevent: token\r\nid: 7\r\ndata: {\"t\":\"Hel\"}\r\n\r\n"
            + "data: first\rdata:second\rretry: 3000\r\r"
            + "event: \nid\ndata\n\n"
            + ":keep-alive\n\n"
            + "id: a\u{0}b\ndata: an id with a NUL is ignored\n\n"
            + "data: cut off at the end"
        let expected = [
            HTTPBody.ServerSentEvent(event: "token", id: "7", data: #"{"t":"Hel"}"#),
            HTTPBody.ServerSentEvent(data: "first\nsecond"),
            HTTPBody.ServerSentEvent(event: nil, id: "", data: ""),
            HTTPBody.ServerSentEvent(data: "an id with a NUL is ignored"),
        ]
        for size in 1...stream.utf8.count {
            let (events, error) = await read(HTTPBody.pieces(of: stream, size: size).serverSentEvents())
            XCTAssertNil(error, "in chunks of \(size)")
            XCTAssertEqual(events, expected, "in chunks of \(size)")
        }
    }

    func testOverLoopbackEachEventArrivesBeforeTheServerWritesTheNext() async throws {
        let gate = server.makeGate()
        server.route("GET", "/events", streaming: { _, writer in
            try writer.writeHead(headers: ["Content-Type": "text/event-stream"], framing: .chunked)
            try writer.write("event: delta\nid: 1\ndata: Hel\n\n")
            try writer.wait(for: gate)
            try writer.write("event: delta\nid: 2\ndata: lo\ndata: world\n\n")
        })
        let client = URLSessionClient()

        let (head, body) = try await client.send(HTTPRequest(url: server.url("/events"), timeout: 60), body: nil)
        var events = body.serverSentEvents().makeAsyncIterator()
        let first = try await events.next()
        gate.open()
        let second = try await events.next()
        let end = try await events.next()

        XCTAssertEqual(head.statusCode, 200)
        XCTAssertEqual(first, HTTPBody.ServerSentEvent(event: "delta", id: "1", data: "Hel"), "read while the server waits at the gate")
        XCTAssertEqual(second, HTTPBody.ServerSentEvent(event: "delta", id: "2", data: "lo\nworld"))
        XCTAssertNil(end)
    }

    func testACutTransferThrowsTheBodysErrorAfterTheEventsBeforeIt() async throws {
        server.route("GET", "/cut", streaming: { _, writer in
            try writer.writeHead(headers: ["Content-Type": "text/event-stream"], framing: .chunked)
            try writer.write("data: one\n\ndata: half an ev")
            writer.dropConnection()
        })
        let client = URLSessionClient()

        let (_, body) = try await client.send(HTTPRequest(url: server.url("/cut"), timeout: 60), body: nil)
        let (events, error) = await read(body.serverSentEvents())

        XCTAssertEqual(events, [HTTPBody.ServerSentEvent(data: "one")])
        XCTAssertEqual((error as? HTTPError)?.code, .connectionLost, "\(String(describing: error))")
    }

    func testAWriterFailureReachesTheConsumerAsItIs() async {
        let (body, writer) = HTTPBody.makeStream()
        let failure = HTTPError.transport(.connectionLost, message: "the peer reset the connection")
        _ = writer.yield(HTTPBody.ByteChunk("data: one\n\n".utf8)) {}
        writer.finish(throwing: failure)

        let (events, error) = await read(body.serverSentEvents())

        XCTAssertEqual(events, [HTTPBody.ServerSentEvent(data: "one")])
        XCTAssertEqual(error as? HTTPError, failure)
    }

    func testAnEventAtTheLimitPassesAndOneOverItFailsNamingTheLimitAfterTheEventsBeforeIt() async {
        let stream = "data: 12345678\n\nevent: 12345678\nid: 12345678\ndata: 1234\ndata: 567\n\ndata: 123456789\n\ndata: never read\n\n"

        let (events, error) = await read(HTTPBody.pieces(of: stream, size: 1 << 10).serverSentEvents(maximumEventBytes: 8))

        XCTAssertEqual(events, [
            HTTPBody.ServerSentEvent(data: "12345678"),
            HTTPBody.ServerSentEvent(event: "12345678", id: "12345678", data: "1234\n567"),
        ])
        XCTAssertEqual(error as? HTTPError, .transport(
            .responseTooLarge,
            message: "a server-sent event is over 8 bytes (its data, or its event: or id: value), "
                + "the maximumEventBytes given to serverSentEvents(maximumEventBytes:)"
        ))
        for field in ["event", "id"] {
            let (events, error) = await read(HTTPBody.pieces(of: "\(field): 123456789\ndata: x\n\n", size: 3).serverSentEvents(maximumEventBytes: 8))
            XCTAssertEqual(events, [], field)
            XCTAssertEqual((error as? HTTPError)?.code, .responseTooLarge, field)
        }
    }

    func testALineOverTheLimitFailsAsSoonAsItIsOverWithoutWaitingForItsEnd() async throws {
        let (body, writer) = HTTPBody.makeStream()
        _ = writer.yield(HTTPBody.ByteChunk("data: ok\n\n: a long comment is skipped \(String(repeating: "c", count: 500))\n".utf8)) {}
        _ = writer.yield(HTTPBody.ByteChunk(("data: " + String(repeating: "x", count: 200)).utf8)) {}
        var events = body.serverSentEvents(maximumEventBytes: 64).makeAsyncIterator()

        let first = try await events.next()
        do {
            _ = try await events.next()
            XCTFail("an event over the limit was read")
        } catch {
            XCTAssertEqual((error as? HTTPError)?.code, .responseTooLarge, "\(error)")
        }
        let afterTheFailure = try await events.next()

        XCTAssertEqual(first, HTTPBody.ServerSentEvent(data: "ok"))
        XCTAssertNil(afterTheFailure, "the sequence ended, though the body never did")
        writer.finish()
    }

    func testTheSequencePullsTheNextChunkOnlyWhenTheEventsOfTheLastWereTaken() async throws {
        // A buffer of one byte: every chunk fills it, and the writer's `whenDrained` runs only
        // once the reader took the chunks, so it tells when the sequence read them.
        let (body, writer) = HTTPBody.makeStream(bufferSize: 1)
        let drained = Locked<[String]>([])
        let first = writer.yield(HTTPBody.ByteChunk("data: 1\n\ndata: 2\n\n".utf8)) { drained.withLock { $0.append("first") } }
        let second = writer.yield(HTTPBody.ByteChunk("data: 3\n\n".utf8)) { drained.withLock { $0.append("second") } }
        XCTAssertEqual([first, second], [.full, .full], "the writer is told to wait")
        var events = body.serverSentEvents().makeAsyncIterator()

        let one = try await events.next()
        let afterOne = drained.withLock { $0 }
        let two = try await events.next()
        let afterTwo = drained.withLock { $0 }
        let three = try await events.next()
        let afterThree = drained.withLock { $0 }

        XCTAssertEqual([one, two, three].map { $0?.data }, ["1", "2", "3"])
        XCTAssertEqual(afterOne, [], "the second chunk is still in the body's buffer")
        XCTAssertEqual(afterTwo, [], "the second event came from the first chunk, without reading on")
        XCTAssertEqual(afterThree.sorted(), ["first", "second"], "the third event needed the second chunk")
        writer.finish()
        let end = try await events.next()
        XCTAssertNil(end)
    }
}
