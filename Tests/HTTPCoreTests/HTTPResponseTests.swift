import Foundation
import HTTPCore
import XCTest

/// A response is a head and a body; the head alone is what a stream hands over.
final class HTTPResponseTests: XCTestCase {
    private let url = URL(string: "https://api.example.com/items/7")!

    private func head() -> HTTPResponse.Head {
        var head = HTTPResponse.Head(
            requestID: HTTPRequest.ID(rawValue: 42), statusCode: 201, headers: ["Content-Type": "application/json", "X-Tag": "a"],
            url: url, redirection: HTTPRedirection(method: .get, resentBody: false, statusCodes: [303])
        )
        head.addedRequestHeaders = ["User-Agent": "test"]
        return head
    }

    func testAResponseMadeFromAHeadAndABodyHoldsBothUnchanged() {
        let head = head()
        let response = HTTPResponse(head: head, body: Data("{}".utf8))
        XCTAssertEqual(response.head, head)
        XCTAssertEqual(response.body, Data("{}".utf8))
        XCTAssertEqual(response.requestID, HTTPRequest.ID(rawValue: 42))
        XCTAssertEqual(response.statusCode, 201)
        XCTAssertEqual(response.status, HTTPResponse.Status(code: 201))
        XCTAssertEqual(response.headers, ["Content-Type": "application/json", "X-Tag": "a"])
        XCTAssertEqual(response.url, url)
        XCTAssertEqual(response.redirection, HTTPRedirection(method: .get, resentBody: false, statusCodes: [303]))
        XCTAssertEqual(response.addedRequestHeaders, ["User-Agent": "test"])
        XCTAssertEqual(HTTPResponse(head: head).body, Data(), "no body by default")
    }

    func testTheFieldInitializerMakesTheSameResponseAsAHeadAndABody() {
        let fields = HTTPResponse(
            requestID: HTTPRequest.ID(rawValue: 42), statusCode: 404, headers: ["X-Tag": "a"], body: Data("gone".utf8), url: url
        )
        let parts = HTTPResponse(
            head: HTTPResponse.Head(requestID: HTTPRequest.ID(rawValue: 42), statusCode: 404, headers: ["X-Tag": "a"], url: url),
            body: Data("gone".utf8)
        )
        XCTAssertEqual(fields, parts)
        XCTAssertEqual(fields.head.status.kind, .clientError)
    }

    func testSettingAResponsesFieldsChangesItsHead() {
        var response = HTTPResponse(head: head(), body: Data("{}".utf8))
        response.statusCode = 503
        response.headers.add(name: "Retry-After", value: "3")
        response.addedRequestHeaders.add(name: "Accept-Encoding", value: "gzip")
        response.url = URL(string: "https://api.example.com/elsewhere")!
        response.redirection = nil
        XCTAssertEqual(response.head.statusCode, 503)
        XCTAssertEqual(response.head.headers.values(for: "Retry-After"), ["3"])
        XCTAssertEqual(response.head.headers.count, 3)
        XCTAssertEqual(response.head.addedRequestHeaders, ["User-Agent": "test", "Accept-Encoding": "gzip"])
        XCTAssertEqual(response.head.url, URL(string: "https://api.example.com/elsewhere")!)
        XCTAssertNil(response.head.redirection)
        XCTAssertEqual(response.body, Data("{}".utf8), "the body is left as it was")
    }

    func testResponsesDifferingOnlyInTheirBodyAreNotEqual() {
        XCTAssertNotEqual(HTTPResponse(head: head(), body: Data("a".utf8)), HTTPResponse(head: head(), body: Data("b".utf8)))
        XCTAssertEqual(HTTPResponse(head: head(), body: Data("a".utf8)).head, HTTPResponse(head: head(), body: Data("b".utf8)).head)
    }
}
