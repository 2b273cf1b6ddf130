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
            start: start, durationMilliseconds: 10, attemptStart: start, attemptDurationMilliseconds: 7
        )
        XCTAssertEqual(phases(timings), [nil, 0, 7_000, 3_000])
        XCTAssertEqual(timings.total, 10_000)
    }

    func testALaterAttemptIsBlockedByWhatCameBefore() {
        let timings = HARTimings(
            start: start, durationMilliseconds: 100, attemptStart: start.addingTimeInterval(0.06), attemptDurationMilliseconds: 30
        )
        XCTAssertEqual(phases(timings), [60_000, 0, 30_000, 10_000])
    }

    func testWithoutTheAttemptsDurationAllOfTheTimeIsWaiting() {
        let timings = HARTimings(start: start, durationMilliseconds: 2.5, attemptStart: start, attemptDurationMilliseconds: nil)
        XCTAssertEqual(phases(timings), [nil, 0, 2_500, 0])
    }

    func testTimesOutsideTheDurationAreClampedSoThePhasesStillAddUp() {
        let long = HARTimings(start: start, durationMilliseconds: 5, attemptStart: start, attemptDurationMilliseconds: 60_000)
        XCTAssertEqual(phases(long), [nil, 0, 5_000, 0])
        let negative = HARTimings(start: start, durationMilliseconds: 5, attemptStart: start, attemptDurationMilliseconds: -60)
        XCTAssertEqual(phases(negative), [nil, 0, 0, 5_000])
        let stepped = HARTimings(
            start: start, durationMilliseconds: 5, attemptStart: start.addingTimeInterval(60), attemptDurationMilliseconds: 1
        )
        XCTAssertEqual(phases(stepped), [5_000, 0, 0, 0], "a wall clock stepped forward: the attempt starts at the end")
        let nonsense = HARTimings(start: start, durationMilliseconds: .nan, attemptStart: nil, attemptDurationMilliseconds: nil)
        XCTAssertEqual(nonsense.total, 0)
    }
}
