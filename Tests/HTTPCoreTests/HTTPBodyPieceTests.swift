import Foundation
@_spi(Transports) import HTTPCore
import HTTPCoreConcurrency
import HTTPCoreObservation
import HTTPCoreTesting
import XCTest

/// A transport's chunk (`HTTPBodyTransportChunk`) goes through a body's layers as it is: the
/// client's tap and `observingReads` read it in place, a reader of pieces gets the chunk itself,
/// and only a reader of `ArraySlice`s has it copied, once (counted in `HTTPBodyCopies`).
final class HTTPBodyPieceTests: XCTestCase {
    /// A transport's chunk whose identity a test can check.
    private final class StoredChunk: HTTPBodyTransportChunk {
        let bytes: [UInt8]

        init(_ text: String) {
            bytes = Array(text.utf8)
        }

        var count: Int { bytes.count }

        func withUnsafeBytes<Result>(_ body: (UnsafeRawBufferPointer) throws -> Result) rethrows -> Result {
            try bytes.withUnsafeBytes(body)
        }
    }

    /// The chunks `body` yields as pieces, each a `StoredChunk` the transport handed over.
    private static func storedChunks(of body: HTTPBody) async throws -> [StoredChunk] {
        var iterator = body.makeAsyncIterator()
        var chunks: [StoredChunk] = []
        while let piece = try await iterator.nextPiece() {
            guard case .transport(let chunk as StoredChunk) = piece else {
                XCTFail("a piece that is not the transport's chunk: \(piece)")
                continue
            }
            chunks.append(chunk)
        }
        return chunks
    }

    /// The chunks of a streamed exchange through `client`, read as pieces behind an observer.
    private static func streamedChunks(through client: HTTPTransportClient<StreamingMockTransport>) async throws -> [StoredChunk] {
        let (_, body) = try await client.send(HTTPRequest(url: URL(string: "https://example.com/stream")!), body: nil)
        return try await storedChunks(of: body.observingReads(end: { _ in }))
    }

    func testATransportsChunkReachesAReaderOfPiecesThroughTheClientAsItIsAndTheTapCountsItInPlace() async throws {
        let dispatcher = HTTPEventDispatcher()
        let recorder = RecordingObserver()
        dispatcher.subscribe(recorder)
        let transport = StreamingMockTransport(headers: ["Content-Type": "text/plain"])
        let client = HTTPTransportClient(transport: transport, dispatcher: dispatcher, policy: .debug)
        let sent = [StoredChunk("hello "), StoredChunk("world")]
        let copied = HTTPBodyCopies.copiedByteCount

        async let received = Self.streamedChunks(through: client)
        let writer = try await transport.nextWriter()
        for chunk in sent { XCTAssertEqual(writer.yield(transportChunk: chunk, whenDrained: {}), .more) }
        writer.finish()
        let chunks = try await received

        XCTAssertEqual(chunks.map(ObjectIdentifier.init), sent.map(ObjectIdentifier.init), "the transport's own chunks, in order")
        XCTAssertEqual(HTTPBodyCopies.copiedByteCount - copied, 0, "nothing copied on the way")
        let ends = try await recorder.waitForTerminalEvents(count: 1)
        let end = try XCTUnwrap(ends.first { $0.name.isTerminal })
        XCTAssertEqual(end.name, .requestSucceeded)
        XCTAssertEqual(end.responseBodyByteCount, 11)
        XCTAssertEqual(end.response?.body, Data("hello world".utf8), "the tap captured the bytes in place")
    }

    func testAReaderOfChunksGetsATransportsChunkCopiedOnceAndCounted() async throws {
        let (body, writer) = HTTPBody.makeStream()
        _ = writer.yield(transportChunk: StoredChunk("abc"), whenDrained: {})
        try await writer.write(HTTPBody.ByteChunk("de".utf8))
        writer.finish()
        let copied = HTTPBodyCopies.copiedByteCount

        var chunks: [String] = []
        for try await chunk in body { chunks.append(String(decoding: chunk, as: UTF8.self)) }

        XCTAssertEqual(chunks, ["abc", "de"])
        XCTAssertEqual(HTTPBodyCopies.copiedByteCount - copied, 3, "the transport's chunk once; HTTPCore's own bytes not at all")
    }

    func testAnObserverOfChunksGetsACopyWhileTheReaderStillGetsTheTransportsChunk() async throws {
        let (body, writer) = HTTPBody.makeStream()
        let chunk = StoredChunk("abc")
        _ = writer.yield(transportChunk: chunk, whenDrained: {})
        writer.finish()
        let seen = Locked<[String]>([])

        let received = try await Self.storedChunks(of: body.observingReads(chunk: { bytes in
            seen.withLock { $0.append(String(decoding: bytes, as: UTF8.self)) }
        }, end: { _ in }))

        XCTAssertEqual(seen.withLock { $0 }, ["abc"])
        XCTAssertEqual(received.map(ObjectIdentifier.init), [ObjectIdentifier(chunk)])
    }

    func testCollectingATransportsChunksKeepsEveryByte() async throws {
        let (body, writer) = HTTPBody.makeStream(length: .known(5))
        _ = writer.yield(transportChunk: StoredChunk("abc"), whenDrained: {})
        _ = writer.yield(transportChunk: StoredChunk("de"), whenDrained: {})
        writer.finish()

        let bytes = try await body.collect(upTo: 5)

        XCTAssertEqual(String(decoding: bytes, as: UTF8.self), "abcde")
    }
}
