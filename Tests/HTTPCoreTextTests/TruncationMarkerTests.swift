import XCTest
import HTTPCoreText

/// The one mark of a text cut short.
final class TruncationMarkerTests: XCTestCase {
    func testACutThatKnowsWhatItLeftOutSaysHowMuch() {
        XCTAssertEqual(TruncationMarker.omitting(120), "…[truncated, 120 more bytes]")
    }

    func testACutWithoutACountEndsInTheEllipsisThatTextCutsUseByDefault() {
        XCTAssertEqual(TruncationMarker.ellipsis, "…")
        XCTAssertEqual(UTF8Text.cut("abcdef", toBytes: 3), "abc" + TruncationMarker.ellipsis)
    }
}
