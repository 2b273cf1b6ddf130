import LokiObserver
import XCTest

final class LokiLabelsTests: XCTestCase {
    func testCreates() { _ = LokiLabels() }
}
