import XCTest

@testable import HTTPCoreHAR

final class URLEncodedPairsTests: XCTestCase {
    func testTheQueryOfARedactedURLIsDecodedWithoutItsFragment() {
        let pairs = URLEncodedPairs.query(of: "https://api.example.com/a?token=[REDACTED]&q=caf%C3%A9+au+lait&flag#top?x=1")
        XCTAssertEqual(pairs.map(\.name), ["token", "q", "flag"])
        XCTAssertEqual(pairs.map(\.value), ["[REDACTED]", "café+au+lait", ""])
        XCTAssertTrue(URLEncodedPairs.query(of: "https://api.example.com/a#b?c=d").isEmpty)
    }

    func testFormPairsReadPlusAsSpaceAndKeepUndecodableText() {
        let pairs = URLEncodedPairs.decode("team=AFC+Richmond&bad=100%&e=a=b", plusIsSpace: true)
        XCTAssertEqual(pairs.map(\.name), ["team", "bad", "e"])
        XCTAssertEqual(pairs.map(\.value), ["AFC Richmond", "100%", "a=b"])
    }
}
