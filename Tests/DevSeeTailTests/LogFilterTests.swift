import Foundation
import XCTest

@testable import devsee_tail

final class LogFilterTests: XCTestCase {
    private func log(_ status: Int, url: String = "https://api.example.com/orders/1", correlation: String? = nil, error: String? = nil) -> StoredLog {
        var object: [String: Any] = ["method": "GET", "url": url, "statusCode": status, "duration": 12, "requestId": "r-1"]
        object["correlationId"] = correlation
        object["error"] = error
        return StoredLog(json: try! JSONSerialization.data(withJSONObject: object))!
    }

    func testParsing() {
        XCTAssertEqual(LogFilter("correlation=abc"), .correlationID("abc"))
        XCTAssertEqual(LogFilter("status=4XX"), .statusClass(.clientError))
        XCTAssertEqual(LogFilter("status=404"), .status(404))
        XCTAssertEqual(LogFilter("status=failed"), .failed)
        XCTAssertEqual(LogFilter("url=/orders"), .urlContains("/orders"))
        XCTAssertEqual(LogFilter("page=2"), .urlContains("page=2"))
        XCTAssertNil(LogFilter("status=abc"))
        XCTAssertNil(LogFilter(""))
    }

    func testKindsCombineAndAlternativesOfOneKindDoNot() {
        let logs = [
            log(200, correlation: "c-1"), log(404, url: "https://api.example.com/users/9"), log(503),
            log(599, error: "timed out"),
        ]
        func matching(_ filters: [LogFilter]) -> [Int] {
            logs.filter { LogFilter.log($0, passes: filters) }.map(\.statusCode)
        }
        XCTAssertEqual(matching([]), [200, 404, 503, 599])
        XCTAssertEqual(matching([.correlationID("c-1")]), [200])
        XCTAssertEqual(matching([.correlationID("r-1")]), [200, 404, 503, 599], "the request id counts too")
        XCTAssertEqual(matching([.statusClass(.clientError), .statusClass(.serverError)]), [404, 503], "599 without response is a failure, not 5xx")
        XCTAssertEqual(matching([.failed]), [599])
        XCTAssertEqual(matching([.statusClass(.serverError), .failed, .urlContains("ORDERS")]), [503, 599])
    }
}
