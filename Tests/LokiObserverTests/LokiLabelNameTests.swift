import LokiObserver
import XCTest

final class LokiLabelNameTests: XCTestCase {
    func testValidNamesFollowLokisRule() {
        XCTAssertEqual(["app", "_x", "status_class", "A9"].map(LokiLabelName.isValid), [true, true, true, true])
        XCTAssertEqual(["", "9lives", "http.method", "café", "a-b"].map(LokiLabelName.isValid), [false, false, false, false, false])
    }

    func testInvalidNamesAreRewritten() {
        XCTAssertEqual(LokiLabelName.sanitized("http.method"), "http_method")
        XCTAssertEqual(LokiLabelName.sanitized("9lives"), "_9lives")
        XCTAssertEqual(LokiLabelName.sanitized(""), "_")
        XCTAssertEqual(LokiLabelName.sanitized("café"), "caf__", "each byte of a non-ASCII character")
    }
}
