import HTTPCore
import NIOConcurrencyHelpers
import NIOCore
import NIOEmbedded
import XCTest

@testable import HTTPCoreAsyncHTTPClient

/// The one timer that ends every exchange still under way past its deadline, on an event loop
/// whose clock the test moves.
final class ExchangeDeadlinesTests: XCTestCase {
    /// An exchange that records whether its deadline passed, and how often its start check came.
    private final class RecordingExchange: ExchangeDeadlines.Exchange {
        private let cancelled = NIOLockedValueBox(false)
        private let checks = NIOLockedValueBox(0)
        var wasCancelled: Bool { cancelled.withLockedValue { $0 } }
        var startChecks: Int { checks.withLockedValue { $0 } }
        func deadlinePassed() { cancelled.withLockedValue { $0 = true } }
        func startCheckDue() { checks.withLockedValue { $0 += 1 } }
    }

    /// XCTest makes a new instance for each test, so each has its own loop and table.
    private let loop = EmbeddedEventLoop()
    private lazy var deadlines = ExchangeDeadlines(on: loop)

    func testReadersWatchedWithLaterDeadlinesWaitBehindOneTimer() {
        let start = loop.now
        let readers = (0..<1000).map { _ in RecordingExchange() }
        let tickets = readers.enumerated().map { index, reader in
            deadlines.watch(reader, until: start + .seconds(30) + .milliseconds(Int64(index)))
        }
        XCTAssertEqual(deadlines.timersScheduled, 1)
        XCTAssertTrue(tickets.dropLast().allSatisfy { deadlines.unwatch($0) })

        // The first timer fires at the first deadline, finds the last reader not yet due, and
        // re-arms once for it.
        loop.advanceTime(to: start + .seconds(30))
        XCTAssertEqual(deadlines.timersScheduled, 2)
        XCTAssertFalse(readers.last!.wasCancelled)
        loop.advanceTime(to: start + .seconds(30) + .milliseconds(999))
        XCTAssertTrue(readers.last!.wasCancelled)
        XCTAssertEqual(readers.filter(\.wasCancelled).count, 1)
    }

    func testEachReaderIsCancelledAtItsOwnDeadlineAndNotBefore() throws {
        let start = loop.now
        let (first, second) = (RecordingExchange(), RecordingExchange())
        let firstTicket = deadlines.watch(first, until: start + .milliseconds(10))
        let secondTicket = deadlines.watch(second, until: start + .milliseconds(20))

        loop.advanceTime(to: start + .milliseconds(10) - .nanoseconds(1))
        XCTAssertEqual([first.wasCancelled, second.wasCancelled], [false, false])
        loop.advanceTime(to: start + .milliseconds(10))
        XCTAssertEqual([first.wasCancelled, second.wasCancelled], [true, false])
        XCTAssertEqual(deadlines.watchedCount, 1)
        loop.advanceTime(to: start + .milliseconds(20))
        XCTAssertEqual([first.wasCancelled, second.wasCancelled], [true, true])

        XCTAssertFalse(deadlines.unwatch(firstTicket))
        XCTAssertFalse(deadlines.unwatch(secondTicket))
        XCTAssertEqual(deadlines.watchedCount, 0)
    }

    func testAReaderUnwatchedInTimeIsNeverCancelled() throws {
        let reader = RecordingExchange()
        let ticket = deadlines.watch(reader, until: loop.now + .milliseconds(10))

        XCTAssertTrue(deadlines.unwatch(ticket))
        loop.advanceTime(by: .seconds(1))
        XCTAssertFalse(reader.wasCancelled)
        XCTAssertEqual(deadlines.watchedCount, 0)
    }

    func testAnEarlierDeadlineWatchedLaterStillFiresOnTime() throws {
        let start = loop.now
        let (patient, hurried) = (RecordingExchange(), RecordingExchange())
        let patientTicket = deadlines.watch(patient, until: start + .hours(1))
        _ = deadlines.watch(hurried, until: start + .milliseconds(10))

        loop.advanceTime(to: start + .milliseconds(10))
        XCTAssertEqual([patient.wasCancelled, hurried.wasCancelled], [false, true])
        XCTAssertTrue(deadlines.unwatch(patientTicket))
        loop.advanceTime(by: .hours(2))
        XCTAssertFalse(patient.wasCancelled)
    }

    func testAReaderWatchedAfterASweepIsCancelledAtItsDeadline() throws {
        let start = loop.now
        let early = RecordingExchange()
        _ = deadlines.watch(early, until: start + .milliseconds(10))
        loop.advanceTime(to: start + .milliseconds(10))
        XCTAssertTrue(early.wasCancelled)

        // The table was empty after the sweep, so no timer is armed until this one.
        let late = RecordingExchange()
        _ = deadlines.watch(late, until: start + .milliseconds(50))
        loop.advanceTime(to: start + .milliseconds(50))
        XCTAssertTrue(late.wasCancelled)
    }

    func testTheStartCheckComesOnceAtItsTimeAndTheDeadlineStillAtItsOwn() {
        let start = loop.now
        let exchange = RecordingExchange()
        let ticket = deadlines.watch(exchange, until: start + .seconds(30), checkingStartAt: start + .milliseconds(50))

        loop.advanceTime(to: start + .milliseconds(50) - .nanoseconds(1))
        XCTAssertEqual(exchange.startChecks, 0)
        loop.advanceTime(to: start + .milliseconds(50))
        XCTAssertEqual(exchange.startChecks, 1)
        XCTAssertFalse(exchange.wasCancelled)
        XCTAssertEqual(deadlines.watchedCount, 1)

        loop.advanceTime(to: start + .seconds(30))
        XCTAssertEqual(exchange.startChecks, 1)
        XCTAssertTrue(exchange.wasCancelled)
        XCTAssertFalse(deadlines.unwatch(ticket))
    }

    func testAnExchangeWithoutDeadlineLeavesTheTableAfterItsStartCheck() {
        let start = loop.now
        let exchange = RecordingExchange()
        let ticket = deadlines.watch(exchange, until: nil, checkingStartAt: start + .milliseconds(50))
        XCTAssertEqual(deadlines.timersScheduled, 1)

        loop.advanceTime(to: start + .milliseconds(50))
        XCTAssertEqual(exchange.startChecks, 1)
        XCTAssertEqual(deadlines.watchedCount, 0)
        // Nothing is due any more: no timer is armed for an entry that never times out.
        XCTAssertEqual(deadlines.timersScheduled, 1)
        XCTAssertFalse(deadlines.unwatch(ticket))
        loop.advanceTime(by: .hours(1))
        XCTAssertEqual(exchange.startChecks, 1)
        XCTAssertFalse(exchange.wasCancelled)
    }

    func testExchangesOverBeforeTheirStartCheckAreNeverToldAndShareOneTimer() {
        let start = loop.now
        let exchanges = (0..<1000).map { _ in RecordingExchange() }
        let tickets = exchanges.enumerated().map { index, exchange in
            deadlines.watch(exchange, until: start + .seconds(30), checkingStartAt: start + .milliseconds(50) + .microseconds(Int64(index)))
        }
        XCTAssertEqual(deadlines.timersScheduled, 1)
        XCTAssertTrue(tickets.dropLast().allSatisfy { deadlines.unwatch($0) })

        loop.advanceTime(to: start + .milliseconds(51))
        XCTAssertEqual(exchanges.map(\.startChecks).reduce(0, +), 1)
        XCTAssertEqual(exchanges.last!.startChecks, 1)
        XCTAssertFalse(exchanges.contains(where: \.wasCancelled))
    }

    func testAnExchangeWithNeitherDeadlineNorCheckArmsNoTimer() {
        let ticket = deadlines.watch(RecordingExchange(), until: nil)
        XCTAssertEqual(deadlines.timersScheduled, 0)
        XCTAssertTrue(deadlines.unwatch(ticket))
    }
}
