import HTTPCore
import XCTest

final class HTTPHeadersTests: XCTestCase {
    func testLookupIsCaseInsensitiveAndKeepsSpelling() {
        let headers: HTTPHeaders = ["X-Request-Id": "42"]
        XCTAssertEqual(headers["x-request-id"], "42")
        XCTAssertEqual(headers["X-REQUEST-ID"], "42")
        XCTAssertEqual(headers.fields.map(\.name), ["X-Request-Id"])
    }

    func testRepeatedNamesAreKeptInOrderAndJoined() {
        var headers = HTTPHeaders()
        headers.add(name: "Accept", value: "text/html")
        headers.add(name: "X-Other", value: "1")
        headers.add(name: "accept", value: "application/json")
        XCTAssertEqual(headers.values(for: "ACCEPT"), ["text/html", "application/json"])
        XCTAssertEqual(headers["Accept"], "text/html, application/json")
        XCTAssertEqual(headers.count, 3)
    }

    func testCookieValuesAreJoinedWithSemicolon() {
        var headers = HTTPHeaders()
        headers.add(name: "Cookie", value: "a=1")
        headers.add(name: "cookie", value: "b=2")
        XCTAssertEqual(headers["COOKIE"], "a=1; b=2")
    }

    func testSetReplacesAllFieldsAtTheFirstPosition() {
        var headers: HTTPHeaders = ["A": "1", "B": "2"]
        headers.add(name: "a", value: "3")
        headers.set(name: "A", value: "9")
        XCTAssertEqual(headers.fields, [.init(name: "A", value: "9"), .init(name: "B", value: "2")])
    }

    func testSubscriptSetterReplacesAndNilRemoves() {
        var headers: HTTPHeaders = ["A": "1", "a": "2", "B": "3"]
        headers["A"] = "x"
        XCTAssertEqual(headers.values(for: "a"), ["x"])
        headers["b"] = nil
        XCTAssertFalse(headers.contains("B"))
        XCTAssertNil(headers["missing"])
    }

    func testRemoveDeletesEveryFieldOfTheName() {
        var headers: HTTPHeaders = ["A": "1", "B": "2", "a": "3"]
        headers.remove(name: "A")
        XCTAssertEqual(headers.fields, [.init(name: "B", value: "2")])
    }

    func testDictionaryLiteralKeepsOrderAndEqualityIsExact() {
        let headers: HTTPHeaders = ["Z": "1", "A": "2"]
        XCTAssertEqual(headers.map(\.name), ["Z", "A"])
        XCTAssertEqual(headers, ["Z": "1", "A": "2"])
        XCTAssertNotEqual(headers, ["A": "2", "Z": "1"])
        XCTAssertEqual(Set([headers, headers]).count, 1)
    }
}
