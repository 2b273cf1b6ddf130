import Foundation
import HTTPCore
import XCTest

@testable import event_dispatcher
import HTTPCoreConcurrency

final class EventDispatcherExampleTests: XCTestCase {
    func testObserversSubscribeAndUnsubscribeWhileRequestsRun() async throws {
        let lines = Locked<[String]>([])
        let status = await EventDispatcherExample.run { line in lines.withLock { $0.append(line) } }
        XCTAssertEqual(status, 0)
        let output = lines.withLock { $0 }
        XCTAssertEqual(output.count, 7, output.joined(separator: "\n"))
        XCTAssertEqual(output.prefix(3).map { $0.split(separator: " ")[1].split(separator: "/").last.map(String.init) ?? "" }, ["42", "missing", "broken"])
        XCTAssertTrue(output[0].hasPrefix("GET http://127.0.0.1:") && output[0].contains(" -> 200 "))
        XCTAssertEqual(output[3], "console observer unsubscribed while /slow is still in flight")
        XCTAssertEqual(output[4], "status kinds over both rounds: 2xx: 2, 4xx: 2, 5xx: 2, failed: 2")
        XCTAssertEqual(output[5], "the observer subscribed after /slow started saw 8 exchanges end")
        XCTAssertEqual(output[6], "dev-see receiver stored 8 logs")
    }
}
