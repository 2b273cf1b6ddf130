import HTTPCoreHAR
import XCTest

final class HARRecorderTests: XCTestCase {
    func testCreates() {
        _ = HARRecorder()
    }
}
