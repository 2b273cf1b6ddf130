import Foundation
import HTTPCore
import HTTPCoreTestPeers
import HTTPCoreURLSession
import XCTest

/// Random and adversarial requests through URLSession, both send APIs, over loopback: no
/// crash, no hang, every error an `HTTPError` that says what happened. Each case runs in a
/// child process, so a crash is caught and named (`RequestFuzzProcess`).
final class URLSessionRequestFuzzTests: XCTestCase {
    #if os(Linux)  // the children are started with posix_spawn (RequestFuzzProcess)
    func testRandomRequestsNeverCrashHangOrThrowAnythingButAnHTTPError() throws {
        let report = try RequestFuzzProcess.run(
            cases: 150, entryPoint: "HTTPCoreURLSessionTests.URLSessionRequestFuzzTests/testChildProcessEntryPoint"
        )
        XCTAssertEqual(report.findings, [], "\(report)")
        XCTAssertGreaterThanOrEqual(report.completed, 150)
        XCTAssertEqual(report.children, 1, "\(report)")
    }

    /// Not a specification: the body of the child processes of the test above. Without their
    /// environment it does nothing.
    func testChildProcessEntryPoint() async throws {
        guard ProcessInfo.processInfo.environment["HTTPCORE_FUZZ_CHILD_START"] != nil else { return }
        let session = URLSessionClient.makeDefaultSession()
        let fuzzer = try RequestFuzzer { dispatcher in
            URLSessionClient(session: session, dispatcher: dispatcher, policy: .debug)
        }
        await RequestFuzzProcess.runCases(fuzzer: fuzzer)
        fuzzer.stop()
    }
    #endif
}
