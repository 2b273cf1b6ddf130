import Foundation
import HTTPCore
import XCTest

final class HTTPRequestTests: XCTestCase {
    func testDefaults() {
        let url = URL(string: "https://example.com/a")!
        let request = HTTPRequest(url: url)
        XCTAssertEqual(request.method, .get)
        XCTAssertEqual(request.url, url)
        XCTAssertEqual(request.headers, [:])
        XCTAssertNil(request.body)
        XCTAssertNil(request.timeout)
    }

    func testIDsAreUniqueAcrossThreadsAndCopiesKeepTheirs() async {
        let url = URL(string: "https://example.com")!
        let ids = await withTaskGroup(of: [HTTPRequest.ID].self) { group in
            for _ in 0..<8 {
                group.addTask { (0..<1000).map { _ in HTTPRequest(url: url).id } }
            }
            return await group.reduce(into: []) { $0 += $1 }
        }
        XCTAssertEqual(Set(ids).count, 8000)
        let request = HTTPRequest(url: url)
        var copy = request
        copy.headers.add(name: "A", value: "1")
        XCTAssertEqual(copy.id, request.id)
    }

    func testResponseStatusKinds() {
        let kinds = [100, 204, 301, 404, 503, 600].map { HTTPResponse.Status(code: $0).kind }
        XCTAssertEqual(kinds, [.informational, .successful, .redirection, .clientError, .serverError, .invalid])
    }

    func testStatusKindsAreTheOneClassificationWithTheirLabels() {
        let codes = [0, 99, 100, 199, 200, 299, 300, 399, 400, 499, 500, 599, 600, -1]
        let kinds = codes.map(HTTPResponse.Status.Kind.init(code:))
        XCTAssertEqual(kinds.map(\.label), [
            "invalid", "invalid", "1xx", "1xx", "2xx", "2xx", "3xx", "3xx", "4xx", "4xx", "5xx", "5xx", "invalid", "invalid",
        ])
        XCTAssertEqual(codes.filter { HTTPResponse.Status.Kind(code: $0).isError }, [400, 499, 500, 599])
        XCTAssertEqual(codes.map { HTTPResponse.Status(code: $0).kind }, kinds)
    }

    func testErrorDescriptions() {
        XCTAssertEqual(HTTPError.timeout.description, "timed out")
        XCTAssertEqual(
            HTTPError.transport(.cannotConnect, message: "refused").description,
            "transport error [cannot_connect]: refused"
        )
    }
}
