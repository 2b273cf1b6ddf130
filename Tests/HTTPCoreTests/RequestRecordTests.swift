@testable import HTTPCore
import Foundation
import XCTest

/// A request record reads its URL's host once per exchange, without keeping earlier records.
final class RequestRecordTests: XCTestCase {
    private let request = HTTPRequest(method: .post, url: URL(string: "https://api.example.com/v1/items")!, body: Data(count: 1 << 20))

    func testALaterRecordOfTheSameURLDoesNotKeepTheEarlierOneAlive() {
        var earlier: RequestRecord? = RequestRecord(request: request, policy: .debug, correlation: nil)
        weak let weakEarlier = earlier
        XCTAssertEqual(earlier?.host, "api.example.com")
        let later = RequestRecord(request: request, policy: .debug, correlation: nil, earlier: earlier)
        earlier = nil
        XCTAssertNil(weakEarlier, "the earlier record, and its body, are freed")
        XCTAssertEqual(later.host, "api.example.com")
    }

    func testRecordsOfTheSameURLShareOneHost() {
        let first = RequestRecord(request: request, policy: .debug, correlation: nil)
        let second = RequestRecord(request: request, policy: .debug, correlation: nil, earlier: first)
        let third = RequestRecord(request: request, policy: .debug, correlation: nil, earlier: second)
        XCTAssertEqual([first.host, second.host, third.host], ["api.example.com", "api.example.com", "api.example.com"])
        var moved = request
        moved.url = URL(string: "https://other.example.com/v1/items")!
        XCTAssertEqual(RequestRecord(request: moved, policy: .debug, correlation: nil, earlier: third).host, "other.example.com")
    }
}
