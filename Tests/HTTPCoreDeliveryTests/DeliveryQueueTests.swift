import HTTPCoreDelivery
import XCTest

final class DeliveryQueueTests: XCTestCase {
    func testOutcome() { XCTAssertEqual(DeliveryOutcome.delivered, .delivered) }
}
