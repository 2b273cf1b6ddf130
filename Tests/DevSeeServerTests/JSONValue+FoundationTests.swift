import Foundation
import HTTPCoreText
import XCTest

@testable import DevSeeServer

/// The receiver hands out stored logs as the Foundation objects `JSONSerialization` makes.
final class JSONValueFoundationTests: XCTestCase {
    func testValuesBecomeTheObjectsJSONSerializationMakes() throws {
        let text = #"{"status":200,"ratio":0.5,"big":1e3,"ok":true,"none":null,"tags":["a"],"nested":{"k":"v"},"k":1,"k":2}"#
        let value = try JSONValue.parse(Data(text.utf8))
        let object = try XCTUnwrap(value.foundationObject as? [String: Any])
        XCTAssertEqual(object["status"] as? Int, 200)
        XCTAssertEqual(object["ratio"] as? Double, 0.5)
        XCTAssertEqual(object["big"] as? Double, 1000)
        XCTAssertEqual((object["ok"] as? NSNumber)?.intValue, 1)
        XCTAssertTrue(object["none"] is NSNull)
        XCTAssertEqual(object["tags"] as? [String], ["a"])
        XCTAssertEqual(object["nested"] as? [String: String], ["k": "v"])
        XCTAssertEqual(object["k"] as? Int, 2)
        XCTAssertEqual(object.keys.sorted(), ["big", "k", "nested", "none", "ok", "ratio", "status", "tags"])
    }
}
