import Foundation
import XCTest

@testable import DevSeeObserver

final class LogShipperTests: XCTestCase {
    func testBackoffDoublesWithJitterAndIsCapped() {
        for (attempt, base) in [(1, 0.5), (2, 1.0), (3, 2.0), (4, 4.0), (10, 30.0), (2000, 30.0)] {
            let waits = (0..<200).map { _ in LogShipper.backoff(attempt: attempt, initial: 0.5, maximum: 30) }
            XCTAssertTrue(waits.allSatisfy { $0 >= base / 2 && $0 <= base }, "attempt \(attempt): \(waits.min()!)...\(waits.max()!)")
            XCTAssertGreaterThan(Set(waits).count, 1, "jittered, not one fixed wait")
        }
        XCTAssertEqual(LogShipper.backoff(attempt: 3, initial: -1, maximum: -5), 0, "odd settings give no wait, not a trap")
    }
}
