import Foundation
import HTTPCore
import HTTPCoreConcurrency
import XCTest

/// The body type of both directions: bytes in memory, one-pass streams, replayable streams,
/// and a collect that never reads past its cap.
final class HTTPBodyTests: XCTestCase {
    private struct Broken: Error, Equatable {}

    private func chunks(_ body: HTTPBody) async throws -> [[UInt8]] {
        var result: [[UInt8]] = []
        for try await chunk in body { result.append(Array(chunk)) }
        return result
    }

    private static func stream(_ pieces: [String], failingAfter: Int? = nil) -> AsyncThrowingStream<HTTPBody.ByteChunk, any Error> {
        AsyncThrowingStream { continuation in
            for (index, piece) in pieces.enumerated() {
                if index == failingAfter { return continuation.finish(throwing: Broken()) }
                continuation.yield(HTTPBody.ByteChunk(piece.utf8))
            }
            continuation.finish()
        }
    }

    func testBytesInMemoryAreOneChunkOfKnownLengthReadAnyNumberOfTimes() async throws {
        let body = HTTPBody(Data("hello".utf8))
        XCTAssertEqual(body.length, .known(5))
        XCTAssertEqual(body.iterationBehavior, .multiple)
        let first = try await chunks(body)
        let second = try await chunks(body)
        XCTAssertEqual(first, [Array("hello".utf8)])
        XCTAssertEqual(second, first)
        XCTAssertEqual(HTTPBody("é").length, .known(2))
        XCTAssertEqual(HTTPBody([1, 2, 3]).length, .known(3))
    }

    func testAnEmptyBodyHasNoChunks() async throws {
        let emptyChunks = try await chunks(HTTPBody())
        let emptyData = try await chunks(HTTPBody(Data()))
        XCTAssertEqual(emptyChunks, [])
        XCTAssertEqual(emptyData, [])
        XCTAssertEqual(HTTPBody().length, .known(0))
    }

    func testAStreamIsReadOnceInItsOrderAndASecondPassThrows() async throws {
        let body = HTTPBody(Self.stream(["a", "bc", "", "d"]), length: .unknown)
        XCTAssertEqual(body.iterationBehavior, .single)
        let first = try await chunks(body)
        XCTAssertEqual(first.map { String(decoding: $0, as: UTF8.self) }, ["a", "bc", "", "d"])
        do {
            _ = try await chunks(body)
            XCTFail("a second pass of a single-pass body must throw")
        } catch {
            XCTAssertEqual(HTTPError(error)?.code, .bodyAlreadyRead)
            XCTAssertEqual(HTTPError(error)?.message, "this body can be read once and was read already; make it replayable to read it again")
        }
    }

    func testAReplayableBodyMakesItsSequenceAgainForEachPass() async throws {
        let passes = Locked(0)
        let body = HTTPBody(length: .known(6)) { () -> AsyncThrowingStream<HTTPBody.ByteChunk, any Error> in
            let pass = passes.withLock { count -> Int in
                count += 1
                return count
            }
            return HTTPBodyTests.stream(["pass", "\(pass) "])
        }
        XCTAssertEqual(body.iterationBehavior, .multiple)
        let first = try await body.collect(upTo: 100)
        let second = try await body.collect(upTo: 100)
        XCTAssertEqual(String(decoding: first, as: UTF8.self), "pass1 ")
        XCTAssertEqual(String(decoding: second, as: UTF8.self), "pass2 ")
        XCTAssertEqual(passes.withLock { $0 }, 2)
    }

    func testCollectReturnsEveryByteUpToAndIncludingTheCap() async throws {
        let exact = try await HTTPBody(Self.stream(["abc", "de"]), length: .unknown).collect(upTo: 5)
        XCTAssertEqual(String(decoding: exact, as: UTF8.self), "abcde")
        let known = try await HTTPBody(Data("abcde".utf8)).collect(upTo: 5)
        XCTAssertEqual(known, Data("abcde".utf8))
    }

    func testCollectingBytesInMemoryHandsBackTheSameStorage() async throws {
        let bytes = Data(repeating: 0x61, count: 100_000)
        let collected = try await HTTPBody(bytes).collect(upTo: 100_000)
        let sameStorage = bytes.withUnsafeBytes { original in collected.withUnsafeBytes { $0.baseAddress == original.baseAddress } }
        XCTAssertTrue(sameStorage, "a buffered call takes its body back without a copy")
        do {
            _ = try await HTTPBody(bytes).collect(upTo: 99_999)
            XCTFail("over the cap")
        } catch {
            XCTAssertEqual(HTTPError(error)?.code, .responseTooLarge)
        }
    }

    func testAKnownLengthOverTheCapThrowsBeforeReadingAByte() async throws {
        let passes = Locked(0)
        let body = HTTPBody(length: .known(1_000_000)) { () -> AsyncThrowingStream<HTTPBody.ByteChunk, any Error> in
            passes.withLock { $0 += 1 }
            return HTTPBodyTests.stream(["never read"])
        }
        do {
            _ = try await body.collect(upTo: 1_000)
            XCTFail("over the cap")
        } catch {
            XCTAssertEqual(
                HTTPError(error),
                .transport(.responseTooLarge, message: "the body is longer than 1000 bytes, the limit given to collect(upTo:)")
            )
        }
        XCTAssertEqual(passes.withLock { $0 }, 0, "nothing was read")
    }

    func testAnUnknownLengthOverTheCapThrowsAtTheChunkThatPassesIt() async throws {
        let read = Locked(0)
        let chunks = AsyncThrowingStream<HTTPBody.ByteChunk, any Error> { continuation in
            for _ in 0..<1_000 { continuation.yield(HTTPBody.ByteChunk(repeating: 0x61, count: 100)) }
            continuation.finish()
        }
        let counted = HTTPBody(length: .unknown) {
            chunks.map { @Sendable chunk -> HTTPBody.ByteChunk in
                read.withLock { $0 += 1 }
                return chunk
            }
        }
        do {
            _ = try await counted.collect(upTo: 250)
            XCTFail("over the cap")
        } catch {
            XCTAssertEqual(HTTPError(error)?.message, "the body is longer than 250 bytes, the limit given to collect(upTo:)")
        }
        XCTAssertEqual(read.withLock { $0 }, 3, "reading stopped at the third chunk, the one past 250 bytes")
        do {
            _ = try await HTTPBody(Data(count: 1)).collect(upTo: -1)
            XCTFail("a negative cap holds nothing")
        } catch {
            XCTAssertEqual(HTTPError(error)?.message, "the body is longer than 0 bytes, the limit given to collect(upTo:)")
        }
    }

    func testAStreamThatFailsPassesItsErrorOnAfterTheChunksBeforeIt() async throws {
        let body = HTTPBody(Self.stream(["a", "b", "c"], failingAfter: 2), length: .unknown)
        var received: [String] = []
        do {
            for try await chunk in body { received.append(String(decoding: chunk, as: UTF8.self)) }
            XCTFail("the stream fails")
        } catch {
            XCTAssertEqual(error as? Broken, Broken())
        }
        XCTAssertEqual(received, ["a", "b"])
    }

    func testChunksArriveAsTheyAreProducedNotWhenTheStreamEnds() async throws {
        let (chunks, producer) = AsyncThrowingStream<HTTPBody.ByteChunk, any Error>.makeStream()
        let body = HTTPBody(chunks, length: .unknown)
        var iterator = body.makeAsyncIterator()
        producer.yield(HTTPBody.ByteChunk("first".utf8))
        let first = try await iterator.next()
        XCTAssertEqual(first.map { String(decoding: $0, as: UTF8.self) }, "first", "read while the stream is still open")
        producer.yield(HTTPBody.ByteChunk("second".utf8))
        producer.finish()
        let second = try await iterator.next()
        let end = try await iterator.next()
        XCTAssertEqual(second.map { String(decoding: $0, as: UTF8.self) }, "second")
        XCTAssertNil(end)
    }
}
