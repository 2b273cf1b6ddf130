import HTTPCoreConcurrency
import HTTPCoreTestPeers
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
}
