import XCTest

@testable import devsee_tail

final class TailOptionsTests: XCTestCase {
    func testArguments() throws {
        let options = try TailOptions.parse(["--port", "9191", "-v", "--json", "--filter", "status=5xx", "--filter", "orders"], colorByDefault: true)
        XCTAssertEqual(options, TailOptions(
            port: 9191, isVerbose: true, isJSON: true, usesColor: true, filters: [.statusClass(.serverError), .urlContains("orders")]
        ))
        XCTAssertEqual(try TailOptions.parse([], colorByDefault: false), TailOptions(usesColor: false))
        XCTAssertFalse(try TailOptions.parse(["--no-color"], colorByDefault: true).usesColor)
        XCTAssertTrue(try TailOptions.parse(["--help"], colorByDefault: true).showsHelp)
    }

    func testBadArgumentsSayWhat() {
        let cases: [([String], String)] = [
            (["--port"], "--port needs a value"),
            (["--port", "70000"], "--port must be 0-65535, not 70000"),
            (["--filter", "status=7xx"], "cannot read the filter status=7xx"),
            (["--filter", "correlation="], "cannot read the filter correlation="),
            (["--colour"], "unknown argument --colour"),
        ]
        for (arguments, message) in cases {
            XCTAssertThrowsError(try TailOptions.parse(arguments, colorByDefault: false), "\(arguments)") { error in
                XCTAssertEqual((error as? TailOptions.UsageError)?.description, message)
            }
        }
    }
}
