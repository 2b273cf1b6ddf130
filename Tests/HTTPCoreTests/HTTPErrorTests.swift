import HTTPCore
import XCTest

final class HTTPErrorTests: XCTestCase {
    func testTypeNamesAreStableAndNeverTheMessage() {
        XCTAssertEqual(HTTPError.cancelled.typeName, "cancelled")
        XCTAssertEqual(HTTPError.timeout.typeName, "timeout")
        XCTAssertEqual(HTTPError.invalidResponse.typeName, "invalid_response")
        XCTAssertEqual(HTTPError.transport(code: .cannotConnect, message: "refused token=S3CR3T").typeName, "cannot_connect")
        XCTAssertEqual(HTTPError.transport(code: .init("response_too_large"), message: "x").typeName, "response_too_large")
    }
}
