import Foundation
import HTTPCore
import XCTest

@testable import HTTPCoreHAR

final class HARCookiesTests: XCTestCase {
    private let dates = Date.ISO8601FormatStyle(includingFractionalSeconds: true)

    func testCookieHeadersAreSplitIntoPairsAndAMaskedOneIsOneValue() {
        let headers: HTTPHeaders = ["Cookie": "a=1; b=x=y;  ;c", "cookie": "[REDACTED]"]
        XCTAssertEqual(HARCookies.requestCookies(in: headers), [
            .nameValue("a", "1"), .nameValue("b", "x=y"), .nameValue("", "c"), .nameValue("", "[REDACTED]"),
        ])
    }

    func testSetCookieAttributesAreKeptAndAnUnreadableExpiryIsLeftOut() {
        let headers: HTTPHeaders = ["Set-Cookie": "id=7; expires=soon; path=/api; SameSite=Lax; secure"]
        XCTAssertEqual(HARCookies.responseCookies(in: headers, dates: dates), [
            ["name": "id", "value": "7", "path": "/api", "secure": true],
        ])
    }
}
