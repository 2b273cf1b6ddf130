import DevSeeObserver
import Foundation
import XCTest
import DevSeeServer
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Drops are never silent: one line when a buffer overflow starts, one with the count when
/// the buffer has room again.
final class LogShipperOverflowTests: XCTestCase {
    func testAnOverflowIsReportedOnceWhenItStartsAndOnceWithItsCountWhenItEnds() async throws {
        let receiver = try DevSeeReceiver()
        defer { receiver.stop() }
        // The first upload is held by the server, so the buffer fills while it waits and
        // nothing leaves it until it is answered: small logs go one at a time.
        let gate = receiver.makeGate()
        receiver.script([.held(gate)])
        let harness = LoggerHarness(receiver: receiver) { $0.delivery.bufferLimit = 4 }
        await harness.logger.log(request: request(), response: response(200))
        try await receiver.waitForPosts(count: 1)
        for _ in 0..<30 { await harness.logger.log(request: request(), response: response(200)) }
        XCTAssertEqual(harness.logger.statistics.dropped, 26, "4 waiting, 1 in flight")
        gate.open()
        await harness.logger.flush()

        let dropped = 26
        XCTAssertEqual(harness.logger.statistics.delivered, 31 - dropped)
        XCTAssertEqual(harness.diagnostics.state, [
            "buffer full (4 logs or 16384 KiB): dropping the oldest logs until there is room",
            "buffer has room again: \(dropped) logs were dropped",
        ])
        XCTAssertTrue(harness.logger.statistics.isBalanced)
    }

    func testABufferThatNeverFillsSaysNothing() async throws {
        let receiver = try DevSeeReceiver()
        defer { receiver.stop() }
        let harness = LoggerHarness(receiver: receiver)
        for _ in 0..<50 { await harness.logger.log(request: request(), response: response(200)) }
        await harness.logger.flush()
        XCTAssertEqual(harness.logger.statistics.delivered, 50)
        XCTAssertEqual(harness.diagnostics.state, [])
    }
}
