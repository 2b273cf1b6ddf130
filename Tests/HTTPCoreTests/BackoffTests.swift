import Foundation
import HTTPCore
import XCTest

final class BackoffTests: XCTestCase {
    func testEqualJitterDoublesAndIsCapped() {
        let backoff = Backoff(initial: 0.5, maximum: 30, jitter: .equal)
        for (retry, ceiling) in [(1, 0.5), (2, 1.0), (3, 2.0), (4, 4.0), (10, 30.0), (2000, 30.0)] {
            XCTAssertEqual(backoff.ceiling(beforeRetry: retry), ceiling)
            let waits = (0..<200).map { _ in backoff.delay(beforeRetry: retry) }
            XCTAssertTrue(waits.allSatisfy { $0 >= ceiling / 2 && $0 <= ceiling }, "retry \(retry): \(waits.min()!)...\(waits.max()!)")
            XCTAssertGreaterThan(Set(waits).count, 1, "jittered, not one fixed wait")
        }
    }

    func testFullJitterDrawsFromZeroToTheCeiling() {
        let backoff = Backoff(initial: 1, maximum: 8, jitter: .full)
        let waits = (0..<500).map { _ in backoff.delay(beforeRetry: 4) }
        XCTAssertTrue(waits.allSatisfy { $0 >= 0 && $0 <= 8 })
        XCTAssertLessThan(waits.min()!, 2, "full jitter reaches well below half the ceiling")
        XCTAssertGreaterThan(waits.max()!, 6)
    }

    func testNoJitterIsTheSchedule() {
        let backoff = Backoff(initial: 0.2, maximum: 1, jitter: .none)
        XCTAssertEqual((1...5).map { backoff.delay(beforeRetry: $0) }, [0.2, 0.4, 0.8, 1, 1])
    }

    func testOddSettingsGiveNoWaitInsteadOfATrap() {
        XCTAssertEqual(Backoff(initial: -1, maximum: -5, jitter: .equal).delay(beforeRetry: 3), 0)
        XCTAssertEqual(Backoff(initial: .nan, maximum: 5, jitter: .full).delay(beforeRetry: 3), 0)
        XCTAssertEqual(Backoff(initial: 1, maximum: .infinity, jitter: .none).delay(beforeRetry: 0), 1)
        XCTAssertEqual(Backoff(initial: 1, maximum: .nan, jitter: .none).delay(beforeRetry: 2), 0)
        let century = 100 * 365 * 86_400.0
        XCTAssertEqual(Backoff(initial: 1, maximum: .infinity, jitter: .none).delay(beforeRetry: 1100), century)
        XCTAssertLessThanOrEqual(Backoff(initial: .infinity, maximum: .infinity, jitter: .full).delay(beforeRetry: 1), century)
        XCTAssertEqual(Backoff(initial: 1, maximum: 10, jitter: .equal).delay(beforeRetry: .min), 0.5, accuracy: 0.5)
        XCTAssertEqual(Backoff(initial: 1, maximum: 10, jitter: .none).delay(beforeRetry: .max), 10)
    }
}
