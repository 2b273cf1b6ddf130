import Foundation
@testable import HTTPCore
import XCTest

final class HTTPResponseTests: XCTestCase {
    private static let url = URL(string: "https://example.com/a")!
    private static let requestID = HTTPRequest.ID(rawValue: 7)
    private static let redirection = HTTPRedirection(method: .get, resentBody: false, statusCodes: [301])

    /// A response with every field set, none to its default.
    private static func fullResponse() -> HTTPResponse {
        var response = HTTPResponse(
            requestID: requestID, statusCode: 201, headers: ["A": "1"], body: Data("b".utf8), url: url, redirection: redirection
        )
        response.addedRequestHeaders = ["User-Agent": "u"]
        return response
    }

    /// One change to each field, by name.
    private static let changes: [(field: String, change: @Sendable (inout HTTPResponse) -> Void)] = [
        ("requestID", { $0.requestID = HTTPRequest.ID(rawValue: 8) }),
        ("statusCode", { $0.statusCode = 404 }),
        ("headers", { $0.headers.add(name: "B", value: "2") }),
        ("body", { $0.body.append(contentsOf: Data("c".utf8)) }),
        ("url", { $0.url = URL(string: "https://example.com/b")! }),
        ("redirection", { $0.redirection?.statusCodes.append(302) }),
        ("addedRequestHeaders", { $0.addedRequestHeaders.add(name: "Accept-Encoding", value: "gzip") }),
    ]

    private func assertHoldsFullResponseFields(_ response: HTTPResponse, _ field: String, line: UInt = #line) {
        XCTAssertEqual(response.requestID, Self.requestID, field, line: line)
        XCTAssertEqual(response.statusCode, 201, field, line: line)
        XCTAssertEqual(response.status.kind, .successful, field, line: line)
        XCTAssertEqual(response.headers, ["A": "1"], field, line: line)
        XCTAssertEqual(response.body, Data("b".utf8), field, line: line)
        XCTAssertEqual(response.url, Self.url, field, line: line)
        XCTAssertEqual(response.redirection, Self.redirection, field, line: line)
        XCTAssertEqual(response.addedRequestHeaders, ["User-Agent": "u"], field, line: line)
    }

    func testChangingACopyInAnyFieldLeavesTheOriginalAsItWas() {
        for (field, change) in Self.changes {
            let original = Self.fullResponse()
            var copy = original
            change(&copy)
            assertHoldsFullResponseFields(original, field)
            XCTAssertNotEqual(copy, original, field)
            XCTAssertFalse(copy.sharesStorage(with: original), field)
        }
    }

    func testChangingTheOriginalInAnyFieldLeavesACopyAsItWas() {
        for (field, change) in Self.changes {
            var original = Self.fullResponse()
            let copy = original
            change(&original)
            assertHoldsFullResponseFields(copy, field)
            XCTAssertNotEqual(copy, original, field)
        }
    }

    func testResponsesBuiltApartWithEqualFieldsAreEqualAndHashAlike() {
        let first = Self.fullResponse()
        let second = Self.fullResponse()
        XCTAssertFalse(second.sharesStorage(with: first))
        XCTAssertEqual(second, first)
        XCTAssertEqual(second.hashValue, first.hashValue)
        XCTAssertEqual(Set([first, second]).count, 1)
    }

    func testResponsesThatDifferInAnyOneFieldAreUnequal() {
        for (field, change) in Self.changes {
            let first = Self.fullResponse()
            var second = Self.fullResponse()
            change(&second)
            XCTAssertNotEqual(second, first, field)
            XCTAssertEqual(Set([first, second]).count, 2, field)
        }
    }

    func testSplittingTheBodyGivesAnEmptyBodiedHeadAndLeavesTheResponseAsItWas() async throws {
        let response = Self.fullResponse()
        let (head, body) = response.splittingBody()
        assertHoldsFullResponseFields(response, "split")
        var expectedHead = Self.fullResponse()
        expectedHead.body = Data()
        XCTAssertEqual(head, expectedHead)
        let collected = try await body.collect(upTo: 100)
        XCTAssertEqual(collected, Data("b".utf8))
    }

    func testSplittingAResponseWithoutABodyKeepsItsStorage() {
        var response = Self.fullResponse()
        response.body = Data()
        let (head, _) = response.splittingBody()
        XCTAssertTrue(head.sharesStorage(with: response))
    }

    func testAResponseDescribesItsFieldsNotItsStorage() {
        let response = HTTPResponse(requestID: Self.requestID, statusCode: 204, url: Self.url)
        XCTAssertEqual(
            String(describing: response),
            "HTTPResponse(requestID: 7, statusCode: 204, headers: , body: 0 bytes, url: https://example.com/a, "
                + "redirection: nil, addedRequestHeaders: )"
        )
    }
}
