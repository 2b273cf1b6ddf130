import Foundation
@testable import HTTPCore
@testable import HTTPCoreObservation
import XCTest

/// How the attempts of one exchange are numbered, handed over as retried and closed: each
/// ended attempt is reported once, in the order the attempts ended, and the one with the
/// highest number is the exchange's last.
final class AttemptLogTests: XCTestCase {
    private let record = RequestRecord(request: HTTPRequest(url: URL(string: "https://api.example.com/items")!), policy: .default, correlation: nil)

    /// An ended attempt numbered `number`; a failure when `failing`.
    private func attempt(_ number: Int, failing: Bool = false) -> AttemptLog.Attempt {
        AttemptLog.Attempt(
            number: number, request: record, response: nil, error: failing ? .timeout : nil, startedAt: Date(timeIntervalSince1970: 0),
            ended: (Date(timeIntervalSince1970: 1), 1_000)
        )
    }

    func testOneAttemptIsTheLastAndNothingIsRetriedNorReportedTwice() {
        let log = AttemptLog()
        XCTAssertEqual(log.begin().number, 1)
        log.end(attempt(1))

        let closed = log.finish()
        XCTAssertEqual(closed.last?.number, 1)
        XCTAssertEqual(closed.retried.map(\.number), [])
        XCTAssertEqual(log.finish().retried.map(\.number), [])
        XCTAssertEqual(log.startedCount, 1)
    }

    func testAnAttemptFollowedByAnotherIsHandedOverAsRetriedOnceWithItsFailure() {
        let log = AttemptLog()
        _ = log.begin()
        log.end(attempt(1, failing: true))

        let second = log.begin()
        XCTAssertEqual(second.number, 2)
        XCTAssertEqual(second.retried.map(\.number), [1])
        XCTAssertEqual(second.retried.first?.error, .timeout)
        XCTAssertTrue(second.latest === record)
        log.end(attempt(2))

        let closed = log.finish()
        XCTAssertEqual(closed.last?.number, 2)
        XCTAssertNil(closed.last?.error)
        XCTAssertEqual(closed.retried.map(\.number), [])
    }

    func testAttemptsSideBySideAreHandedOverInTheOrderTheyEndedEachOnce() {
        let log = AttemptLog()
        for _ in 1...3 { _ = log.begin() }
        // 2 ends first, then 3, which has a higher number, then 1.
        log.end(attempt(2))
        log.end(attempt(3))
        log.end(attempt(1))

        let fourth = log.begin()
        XCTAssertEqual(fourth.number, 4)
        XCTAssertEqual(fourth.retried.map(\.number), [2, 3, 1])
        XCTAssertEqual(log.begin().retried.map(\.number), [])
    }

    func testTheLastAttemptIsLeftOutOfTheRetriedOnesWhenTheLogCloses() {
        let log = AttemptLog()
        for _ in 1...3 { _ = log.begin() }
        log.end(attempt(3))
        log.end(attempt(1))
        log.end(attempt(2))

        let closed = log.finish()
        XCTAssertEqual(closed.last?.number, 3)
        XCTAssertEqual(closed.retried.map(\.number), [1, 2])
        XCTAssertEqual(log.finish().retried.map(\.number), [])
    }
}
