import Foundation
import XCTest

@testable import HTTPCoreHAR

final class HARTimingsTests: XCTestCase {
    private let start = Date(timeIntervalSince1970: 1_000_000)

    /// blocked, send, wait and receive, in microseconds.
    private func phases(_ timings: HARTimings) -> [Int?] {
        [timings.blocked, timings.send, timings.wait, timings.receive]
    }

    func testADirectAttemptWaitsUntilItsResponseAndReceivesTheRest() {
        let timings = HARTimings(
            start: start, durationMilliseconds: 10, attemptStart: start, responseAt: start.addingTimeInterval(0.007)
        )
        XCTAssertEqual(phases(timings), [nil, 0, 7_000, 3_000])
        XCTAssertEqual(timings.total, 10_000)
    }

    func testALaterAttemptIsBlockedByWhatCameBefore() {
        let timings = HARTimings(
            start: start, durationMilliseconds: 100, attemptStart: start.addingTimeInterval(0.06), responseAt: start.addingTimeInterval(0.09)
        )
        XCTAssertEqual(phases(timings), [60_000, 0, 30_000, 10_000])
    }

    func testWithoutAResponseAllOfTheTimeIsWaiting() {
        let timings = HARTimings(start: start, durationMilliseconds: 2.5, attemptStart: start, responseAt: nil)
        XCTAssertEqual(phases(timings), [nil, 0, 2_500, 0])
    }

    func testWallClockInstantsOutsideTheDurationAreClampedSoThePhasesStillAddUp() {
        let late = HARTimings(start: start, durationMilliseconds: 5, attemptStart: start, responseAt: start.addingTimeInterval(60))
        XCTAssertEqual(phases(late), [nil, 0, 5_000, 0])
        let early = HARTimings(start: start, durationMilliseconds: 5, attemptStart: start, responseAt: start.addingTimeInterval(-60))
        XCTAssertEqual(phases(early), [nil, 0, 0, 5_000])
        let nonsense = HARTimings(start: start, durationMilliseconds: .nan, attemptStart: nil, responseAt: nil)
        XCTAssertEqual(nonsense.total, 0)
    }
}
