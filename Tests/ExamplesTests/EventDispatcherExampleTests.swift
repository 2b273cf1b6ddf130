import Foundation
import HTTPCore
import XCTest

@testable import event_dispatcher

final class EventDispatcherExampleTests: XCTestCase {
    func testObserversSubscribeAndUnsubscribeWhileRequestsRun() async throws {
        let lines = Locked<[String]>([])
        let status = await EventDispatcherExample.run { line in lines.withLock { $0.append(line) } }
        XCTAssertEqual(status, 0)
        let output = lines.withLock { $0 }
        XCTAssertEqual(output.count, 7, output.joined(separator: "\n"))
        XCTAssertEqual(output.prefix(4).filter { $0.hasPrefix("GET http://127.0.0.1:") }.count, 4, "console saw round one only")
        XCTAssertEqual(output[4], "console observer unsubscribed; the next round is counted and logged only")
        XCTAssertEqual(output[5], "status kinds over both rounds: 2xx: 2, 4xx: 2, 5xx: 2, failed: 2")
        XCTAssertEqual(output[6], "dev-see receiver stored 8 logs")
    }
}
