import Foundation
import HTTPCore
import XCTest

final class HTTPResponseRetryAfterTests: XCTestCase {
    private let now = Date(timeIntervalSince1970: 784_111_717)  // Sun, 06 Nov 1994 08:48:37 GMT

    func testDelaySecondsAreDigitsOnly() {
        XCTAssertEqual(HTTPResponse.retryAfterSeconds(from: " 120 "), 120)
        XCTAssertEqual(HTTPResponse.retryAfterSeconds(from: "0"), 0)
        XCTAssertEqual(HTTPResponse.retryAfterSeconds(from: String(repeating: "9", count: 400)), .infinity, "a huge ask stays huge")
        for refused in ["-3", "+3", "1.5", "1e3", "0x10", "inf", "soon", ""] {
            XCTAssertNil(HTTPResponse.retryAfterSeconds(from: refused), refused)
        }
    }

    func testTheThreeHTTPDateFormsAreRead() {
        for value in ["Sun, 06 Nov 1994 08:49:37 GMT", "Sunday, 06-Nov-94 08:49:37 GMT", "Sun Nov  6 08:49:37 1994"] {
            XCTAssertEqual(HTTPResponse.retryAfterSeconds(from: value, relativeTo: now), 60, value)
        }
        XCTAssertEqual(HTTPResponse.retryAfterSeconds(from: "Sun, 06 Nov 1994 08:47:37 GMT", relativeTo: now), 0, "a past date: no wait")
    }

    func testTheResponseReadsItsHeader() {
        let url = URL(string: "https://api.example.com")!
        let response = HTTPResponse(requestID: .next(), statusCode: 429, headers: ["retry-after": "7"], url: url)
        XCTAssertEqual(response.retryAfter(), 7)
        XCTAssertNil(HTTPResponse(requestID: .next(), statusCode: 429, url: url).retryAfter())
    }

    func testTheHeadReadsItsHeaderAndTheResponseAnswersAsItsHead() {
        let url = URL(string: "https://api.example.com")!
        let head = HTTPResponse.Head(requestID: .next(), statusCode: 503, headers: ["Retry-After": "Sun, 06 Nov 1994 08:49:37 GMT"], url: url)
        XCTAssertEqual(head.retryAfter(relativeTo: now), 60)
        XCTAssertEqual(HTTPResponse(head: head, body: Data("busy".utf8)).retryAfter(relativeTo: now), 60)
        XCTAssertNil(HTTPResponse.Head(requestID: .next(), statusCode: 503, url: url).retryAfter())
    }
}
