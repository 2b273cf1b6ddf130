import Foundation
import HTTPCore
import HTTPCoreConcurrency
import XCTest

/// The producer end of a streamed body: chunks in order, a bounded buffer with backpressure,
/// and an end, a failure or a reader that stops, each seen by the other side.
final class HTTPBodyStreamTests: XCTestCase {
    private struct Broken: Error, Equatable {}



    func testChunksWrittenBeforeAndWhileReadingArriveInOrderThenTheEnd() async throws {
        let (body, writer) = HTTPBody.makeStream(length: .known(6))
        XCTAssertEqual(body.length, .known(6))
        XCTAssertEqual(body.iterationBehavior, .single)
        try await writer.write(chunk("ab"))
        var iterator = body.makeAsyncIterator()
        let first = try await iterator.next()
        XCTAssertEqual(first.map(Array.init), Array("ab".utf8))
        let reader = Task {
            var rest: [UInt8] = []
            while let chunk = try await iterator.next() { rest += chunk }
            return rest
        }
        try await writer.write(chunk("cd"))
        try await writer.write(chunk("ef"))
        writer.finish()
        let rest = try await reader.value
        XCTAssertEqual(rest, Array("cdef".utf8))
    }

    func testAFailureReachesTheReaderAfterTheChunksWrittenBeforeIt() async throws {
        let (body, writer) = HTTPBody.makeStream()
        try await writer.write(chunk("kept"))
        writer.finish(throwing: Broken())
        var iterator = body.makeAsyncIterator()
        let kept = try await iterator.next()
        XCTAssertEqual(kept.map(Array.init), Array("kept".utf8))
        do {
            _ = try await iterator.next()
            XCTFail("expected the failure")
        } catch {
            XCTAssertEqual(error as? Broken, Broken())
        }
    }

    func testAWriterWaitsWhileTheBufferIsFullUntilTheReaderTakesHalfOfIt() async throws {
        let (body, writer) = HTTPBody.makeStream(bufferSize: 8)
        try await writer.write(chunk("1234"))
        let progress = AsyncCondition(0)
        let producer = Task {
            try await writer.write(chunk("5678"))    // the buffer now holds 8: this write waits
            progress.update { $0 = 1 }
            writer.finish()
        }
        var iterator = body.makeAsyncIterator()
        // Nothing can finish the write but a read: the reader takes 4, leaving 4 of 8 (half).
        XCTAssertEqual(progress.state, 0)
        let first = try await iterator.next()
        XCTAssertEqual(first.map(Array.init), Array("1234".utf8))
        _ = try await progress.wait(timeout: 60, until: { $0 == 1 })
        let second = try await iterator.next()
        XCTAssertEqual(second.map(Array.init), Array("5678".utf8))
        let end = try await iterator.next()
        XCTAssertNil(end)
        try await producer.value
    }

    func testYieldSaysFullAndCallsBackOnceTheReaderDrainedHalfTheBuffer() async throws {
        let (body, writer) = HTTPBody.makeStream(bufferSize: 4)
        let drained = AsyncCondition(0)
        XCTAssertEqual(writer.yield(chunk("ab"), whenDrained: { XCTFail("not full yet") }), .more)
        XCTAssertEqual(writer.yield(chunk("cd"), whenDrained: { drained.update { $0 += 1 } }), .full)
        XCTAssertEqual(drained.state, 0)
        var iterator = body.makeAsyncIterator()
        _ = try await iterator.next()
        XCTAssertEqual(drained.state, 1)
        writer.finish()
        XCTAssertEqual(writer.yield(chunk("late"), whenDrained: {}), .stopped)
    }

    func testAReaderThatStopsEndsTheProducersWritesAndRunsTheTerminationHandlerOnce() async throws {
        let (body, writer) = HTTPBody.makeStream(bufferSize: 2)
        let terminations = AsyncCondition(0)
        writer.onTermination { terminations.update { $0 += 1 } }
        let producer = Task { try await writer.write(chunk("full")) ; try await writer.write(chunk("more")) }
        body.stopReading()
        do {
            try await producer.value
            XCTFail("expected the writes to stop")
        } catch {
            XCTAssertTrue(error is CancellationError)
        }
        body.stopReading()
        XCTAssertEqual(terminations.state, 1)
        XCTAssertEqual(writer.yield(chunk("x"), whenDrained: {}), .stopped)
        let lateHandlerRuns = Locked(0)
        writer.onTermination { lateHandlerRuns.withLock { $0 += 1 } }
        XCTAssertEqual(lateHandlerRuns.withLock { $0 }, 1, "a handler registered after the reader stopped runs at once")
    }

    func testCancellingTheReadingTaskEndsTheReadAndTellsTheProducer() async throws {
        let (body, writer) = HTTPBody.makeStream()
        let terminated = AsyncCondition(false)
        writer.onTermination { terminated.update { $0 = true } }
        let reader = Task {
            for try await _ in body {}
        }
        reader.cancel()
        do {
            try await reader.value
            XCTFail("expected the read to end")
        } catch {
            XCTAssertTrue(error is CancellationError)
        }
        _ = try await terminated.wait(timeout: 60, until: { $0 })
    }

    func testABodyThatEndedNormallyNeverRunsTheTerminationHandler() async throws {
        let (body, writer) = HTTPBody.makeStream()
        let runs = Locked(0)
        writer.onTermination { runs.withLock { $0 += 1 } }
        try await writer.write(chunk("all"))
        writer.finish()
        let collected = try await body.collect(upTo: 10)
        body.stopReading()
        XCTAssertEqual(collected, Data("all".utf8))
        XCTAssertEqual(runs.withLock { $0 }, 0)
    }
}

private func chunk(_ text: String) -> HTTPBody.ByteChunk { HTTPBody.ByteChunk(text.utf8) }
