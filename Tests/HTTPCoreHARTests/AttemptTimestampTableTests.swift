import Foundation
import HTTPCore
import XCTest

@testable import HTTPCoreHAR

final class AttemptTimestampTableTests: XCTestCase {
    private func key(_ id: UInt64, attempt: Int = 1) -> AttemptTimestampTable.Key {
        .init(requestID: HTTPRequest.ID(rawValue: id), attempt: attempt)
    }

    func testAnAttemptsStartAndResponseAreTakenOnce() {
        var table = AttemptTimestampTable(limit: 8)
        let start = Date(timeIntervalSince1970: 100)
        table.recordStart(of: key(1), at: start)
        table.recordResponse(of: key(1), at: start.addingTimeInterval(1))
        table.recordResponse(of: key(2), at: start)
        XCTAssertEqual(table.removeMarks(of: key(1)), .init(startedAt: start, responseAt: start.addingTimeInterval(1)))
        XCTAssertNil(table.removeMarks(of: key(1)))
        XCTAssertNil(table.removeMarks(of: key(2)), "a response without a start is not kept")
        XCTAssertEqual(table.count, 0)
    }

    func testPastTheLimitTheOlderHalfIsForgotten() {
        var table = AttemptTimestampTable(limit: 8)
        for id in 1...9 { table.recordStart(of: key(UInt64(id)), at: Date()) }
        XCTAssertEqual(table.count, 4)
        XCTAssertNil(table.removeMarks(of: key(5)))
        XCTAssertNotNil(table.removeMarks(of: key(6)))
        XCTAssertNotNil(table.removeMarks(of: key(9)))
    }
}
