import Foundation
import HTTPCore
import HTTPCoreObservation
import HTTPCoreConcurrency
import HTTPCoreTesting
import XCTest

/// `send(_:body:)` returns at the head with a body that outlives the call: the exchange ends
/// with the body, read to its end, stopped, or dropped unread or part read.
final class HTTPTransportClientReturnedBodyTests: XCTestCase {
    private var dispatcher: HTTPEventDispatcher!
    private var recorder: RecordingObserver!

    override func setUp() {
        dispatcher = HTTPEventDispatcher()
        recorder = RecordingObserver()
        dispatcher.subscribe(recorder)
    }

    private func terminal() async throws -> HTTPEvent {
        let events = try await recorder.waitForTerminalEvents(count: 1)
        return try XCTUnwrap(events.first { $0.name.isTerminal })
    }

    func testTheBodyIsReadAfterTheCallReturnedAndTheExchangeEndsWithIt() async throws {
        let transport = StreamingMockTransport(headers: ["Content-Type": "text/plain"])
        let client = HTTPTransportClient(transport: transport, dispatcher: dispatcher, policy: .debug)
        let call = Task { try await client.send(HTTPRequest(url: url), body: nil) }
        let writer = try await transport.nextWriter()
        let (head, body) = try await call.value
        XCTAssertEqual(head.statusCode, 200)
        await dispatcher.flush()
        XCTAssertFalse(recorder.events.contains { $0.name.isTerminal }, "the call returned; the body has not ended")
        let reading = Task { try await body.collect(upTo: 100) }
        try await writer.write(HTTPBody.ByteChunk("hello".utf8))
        writer.finish()
        let bytes = try await reading.value
        XCTAssertEqual(String(decoding: bytes, as: UTF8.self), "hello")
        let end = try await terminal()
        XCTAssertEqual(end.name, .requestSucceeded)
        XCTAssertEqual(end.responseBodyByteCount, 5)
    }

    func testABodyDroppedUnreadCancelsTheExchangeAndStopsTheTransport() async throws {
        let transport = StreamingMockTransport()
        let client = HTTPTransportClient(transport: transport, dispatcher: dispatcher)
        let call = Task { try await client.send(HTTPRequest(url: url), body: nil).0.statusCode }
        _ = try await transport.nextWriter()
        let status = try await call.value
        XCTAssertEqual(status, 200, "the body was never kept")
        let end = try await terminal()
        XCTAssertEqual(end.name, .requestCancelled)
        try await transport.waitForTerminations(1)
        XCTAssertEqual(transport.terminationCount, 1)
    }

    func testABodyDroppedPartReadCancelsTheExchangeWithWhatWasRead() async throws {
        let transport = StreamingMockTransport()
        let client = HTTPTransportClient(transport: transport, dispatcher: dispatcher)
        // The task reads one chunk and returns it; the body and its iterator end with the task.
        let firstChunk = Task {
            let (_, body) = try await client.send(HTTPRequest(url: url), body: nil)
            var iterator = body.makeAsyncIterator()
            return try await iterator.next().map { String(decoding: $0, as: UTF8.self) }
        }
        let writer = try await transport.nextWriter()
        try await writer.write(HTTPBody.ByteChunk("part".utf8))
        let first = try await firstChunk.value
        XCTAssertEqual(first, "part")
        let end = try await terminal()
        XCTAssertEqual(end.name, .requestCancelled)
        XCTAssertEqual(end.responseBodyByteCount, 4)
        try await transport.waitForTerminations(1)
    }

    func testStoppingTheBodyEndsTheExchangeAtOnce() async throws {
        let transport = StreamingMockTransport()
        let client = HTTPTransportClient(transport: transport, dispatcher: dispatcher)
        let call = Task { try await client.send(HTTPRequest(url: url), body: nil) }
        _ = try await transport.nextWriter()
        let (_, body) = try await call.value
        body.stopReading()
        let end = try await terminal()
        XCTAssertEqual(end.name, .requestCancelled)
        do {
            _ = try await body.collect(upTo: 100)
            XCTFail("a stopped body cannot be read")
        } catch let error as HTTPError {
            XCTAssertEqual(error, .cancelled)
        }
        withExtendedLifetime(body) {}
    }
}

private let url = URL(string: "https://api.example.com/export")!
