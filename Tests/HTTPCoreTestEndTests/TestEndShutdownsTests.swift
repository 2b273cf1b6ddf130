import HTTPCoreConcurrency
@testable import HTTPCoreTestEnd
import XCTest

final class TestEndShutdownsTests: XCTestCase {
    func testRunAllRunsEachShutdownOnceInOrderAndEmptiesTheList() {
        let shutdowns = TestEndShutdowns()
        let ran = Locked<[Int]>([])
        shutdowns.add { ran.withLock { $0.append(1) } }
        shutdowns.add { ran.withLock { $0.append(2) } }

        shutdowns.runAll()
        shutdowns.runAll()

        XCTAssertEqual(ran.withLock { $0 }, [1, 2])
    }

    func testItsObserverRunsTheListWhenATestEnds() {
        let shutdowns = TestEndShutdowns()
        let ran = Locked(0)
        shutdowns.add { ran.withLock { $0 += 1 } }

        RunAtTestEnd(shutdowns).testCaseDidFinish(self)   // what XCTest calls after each test

        XCTAssertEqual(ran.withLock { $0 }, 1)
    }
}
