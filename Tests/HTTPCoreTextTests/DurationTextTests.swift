import XCTest
import HTTPCoreText

/// Durations in log lines and failure messages, in the unit that shows them.
final class DurationTextTests: XCTestCase {
    func testEachRangeHasItsUnit() {
        let cases: [(milliseconds: Double, text: String)] = [
            (0, "0 µs"), (-3, "0 µs"), (.nan, "0 µs"), (.infinity, "0 µs"),
            (0.0004, "0 µs"), (0.045, "45 µs"), (0.0996, "0.1 ms"), (0.1, "0.1 ms"), (0.9, "0.9 ms"),
            (9.94, "9.9 ms"), (9.95, "10 ms"), (124.4, "124 ms"), (999.4, "999 ms"), (999.5, "1.0 s"),
            (2000, "2.0 s"), (65_432, "65.4 s"),
        ]
        for item in cases {
            XCTAssertEqual(DurationText.format(milliseconds: item.milliseconds), item.text, "\(item.milliseconds)")
        }
    }
}
