import Foundation
import HTTPCore
import XCTest

@testable import HTTPCoreURLSession

final class URLSessionTransportTests: XCTestCase {
    func testRedirectOriginRules() {
        let https = URL(string: "https://api.example.com/a")!
        XCTAssertTrue(URLSessionTransport.isDowngrade(from: https, to: URL(string: "http://api.example.com/a")!))
        XCTAssertFalse(URLSessionTransport.isDowngrade(from: https, to: URL(string: "https://cdn.example.com/a")!))
        XCTAssertTrue(URLSessionTransport.isSameOrigin(https, URL(string: "HTTPS://API.example.com:443/b")!))
        XCTAssertFalse(URLSessionTransport.isSameOrigin(https, URL(string: "https://api.example.com:8443/b")!))
        XCTAssertFalse(URLSessionTransport.isSameOrigin(https, URL(string: "https://evil.example.com/a")!))
    }

    func testSetCookieSplitting() {
        XCTAssertEqual(SetCookieSplitter.split("a=1; Expires=Wed, 21 Oct 2026 07:28:00 GMT, b=2; Path=/"), [
            "a=1; Expires=Wed, 21 Oct 2026 07:28:00 GMT", "b=2; Path=/",
        ])
        XCTAssertEqual(SetCookieSplitter.split("only=1"), ["only=1"])
        XCTAssertEqual(SetCookieSplitter.split(""), [])
    }

    func testTimeoutIsRoundedUpToWholeSecondsOnTheProperty() throws {
        let request = try URLSessionTransport.urlRequest(for: HTTPRequest(url: URL(string: "https://a.example")!, timeout: 0.5))
        XCTAssertEqual(request.timeoutInterval, 1)
        let longer = try URLSessionTransport.urlRequest(for: HTTPRequest(url: URL(string: "https://a.example")!, timeout: 2.2))
        XCTAssertEqual(longer.timeoutInterval, 3)
    }
}
