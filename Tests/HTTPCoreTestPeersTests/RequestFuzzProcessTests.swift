import Foundation
import HTTPCoreTestPeers
import XCTest

/// The fuzz harness catches what it exists for: a case that kills its process, and one that
/// hangs it, each named, with the run going on after them.
final class RequestFuzzProcessTests: XCTestCase {
    #if os(Linux)  // the children are started with posix_spawn (RequestFuzzProcess)
    func testACrashAndAHangAreEachNamedAndTheRunGoesOn() throws {
        let report = try RequestFuzzProcess.run(
            cases: 8, entryPoint: "HTTPCoreTestPeersTests.RequestFuzzProcessTests/testChildProcessEntryPoint", hangLimit: 5
        )
        XCTAssertEqual(report.completed, 8, "\(report)")
        XCTAssertEqual(report.children, 3, "\(report)")
        XCTAssertEqual(report.findings.count, 3, "\(report)")
        // A trap is a signal, or status 66 where the thread sanitizer reports it.
        XCTAssertTrue(report.findings[0].hasPrefix("crashed ("), report.findings[0])
        XCTAssertTrue(report.findings[0].contains("the crash the harness must name"), report.findings[0])
        XCTAssertTrue(report.findings[0].contains("case #2 "), report.findings[0])
        XCTAssertTrue(report.findings[1].hasPrefix("hung: case #4 "), report.findings[1])
        XCTAssertTrue(report.findings[2].hasPrefix("broke a rule: "), report.findings[2])
        XCTAssertTrue(report.findings[2].contains("case 6 broke it"), report.findings[2])
    }

    /// Not a specification: the child of the test above, whose case 2 traps, case 4 never
    /// ends and case 6 breaks a rule. Without its environment it does nothing.
    func testChildProcessEntryPoint() async {
        struct Broken: Error, CustomStringConvertible {
            var description: String { "case 6 broke it" }
        }
        await RequestFuzzProcess.runCases(port: 1) { fuzzCase in
            switch fuzzCase.index {
            case 2: fatalError("the crash the harness must name")
            case 4: while true { try await Task.sleep(nanoseconds: 1_000_000_000) }
            case 6: throw Broken()
            default: return "fine"
            }
        }
    }
    #endif
}
