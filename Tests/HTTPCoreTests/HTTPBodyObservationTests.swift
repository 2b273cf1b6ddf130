import Foundation
import HTTPCore
import HTTPCoreConcurrency
import XCTest

/// `observingReads` tells each chunk and the one end of a reading, and changes no byte.
final class HTTPBodyObservationTests: XCTestCase {
    private final class Seen: Sendable {
        let chunks = Locked<[Int]>([])
        let ends = Locked<[String]>([])

        func record(_ end: HTTPBody.ReadEnd) {
            let name =
                switch end {
                case .finished: "finished"
                case .failed(let error): "failed: \(error)"
                case .stopped: "stopped"
                }
            ends.withLock { $0.append(name) }
        }
    }

    func testAReadToTheEndIsFinishedOnceWithEveryChunk() async throws {
        let seen = Seen()
        let (body, writer) = HTTPBody.makeStream()
        let observed = body.observingReads(chunk: { chunk in seen.chunks.withLock { $0.append(chunk.count) } }, end: seen.record)
        try await writer.write(HTTPBody.ByteChunk("abc".utf8))
        try await writer.write(HTTPBody.ByteChunk("de".utf8))
        writer.finish()
        let bytes = try await observed.collect(upTo: 100)
        XCTAssertEqual(String(decoding: bytes, as: UTF8.self), "abcde")
        XCTAssertEqual(seen.chunks.withLock { $0 }, [3, 2])
        XCTAssertEqual(seen.ends.withLock { $0 }, ["finished"])
    }

    func testAFailureIsTold() async throws {
        let seen = Seen()
        let (body, writer) = HTTPBody.makeStream()
        let observed = body.observingReads(end: seen.record)
        try await writer.write(HTTPBody.ByteChunk("abc".utf8))
        writer.finish(throwing: HTTPError.transport(.connectionLost, message: "reset"))
        do {
            _ = try await observed.collect(upTo: 100)
            XCTFail("the body failed")
        } catch {}
        XCTAssertEqual(seen.ends.withLock { $0 }.count, 1)
        XCTAssertTrue(seen.ends.withLock { $0 }.first?.hasPrefix("failed: ") ?? false)
    }

    func testEachReadingOfAReplayableBodyBeginsAndEndsOnItsOwn() async throws {
        let seen = Seen()
        let begun = Locked(0)
        let observed = HTTPBody(Data("abc".utf8)).observingReads(
            readingBegins: { begun.withLock { $0 += 1 } },
            chunk: { chunk in seen.chunks.withLock { $0.append(chunk.count) } },
            end: seen.record
        )
        _ = try await observed.collect(upTo: 100)
        _ = try await observed.collect(upTo: 100)
        XCTAssertEqual(begun.withLock { $0 }, 2)
        XCTAssertEqual(seen.chunks.withLock { $0 }, [3, 3])
        XCTAssertEqual(seen.ends.withLock { $0 }, ["finished", "finished"])
    }

    func testABodyDroppedUnreadIsStopped() {
        let seen = Seen()
        do {
            let observed = HTTPBody(Data("abc".utf8)).observingReads(end: seen.record)
            XCTAssertEqual(observed.length, .known(3))
        }
        XCTAssertEqual(seen.ends.withLock { $0 }, ["stopped"])
    }
}
