import AsyncHTTPClient
import Foundation
import HTTPCore
import HTTPCoreObservation
import HTTPCoreAsyncHTTPClient
import HTTPCoreTestPeers
import XCTest

/// Random and adversarial requests through AsyncHTTPClient, both send APIs, over loopback: no
/// crash (SwiftNIO traps on a port over 65535), no hang, every error an `HTTPError` that says
/// what happened. Each case runs in a child process, so a crash is caught and named
/// (`RequestFuzzProcess`).
final class AsyncHTTPClientRequestFuzzTests: XCTestCase {
    #if os(Linux)  // the children are started with posix_spawn (RequestFuzzProcess)
    func testRandomRequestsNeverCrashHangOrThrowAnythingButAnHTTPError() throws {
        let report = try RequestFuzzProcess.run(
            cases: 150, entryPoint: "HTTPCoreAsyncHTTPClientTests.AsyncHTTPClientRequestFuzzTests/testChildProcessEntryPoint"
        )
        XCTAssertEqual(report.findings, [], "\(report)")
        XCTAssertGreaterThanOrEqual(report.completed, 150)
        XCTAssertEqual(report.children, 1, "\(report)")
    }

    /// Not a specification: the body of the child processes of the test above. Without their
    /// environment it does nothing.
    func testChildProcessEntryPoint() async throws {
        guard ProcessInfo.processInfo.environment["HTTPCORE_FUZZ_CHILD_START"] != nil else { return }
        let ahc = AsyncHTTPClientTransport.makeHTTPClient()
        let fuzzer = try RequestFuzzer { dispatcher in
            HTTPTransportClient(asyncHTTPClient: ahc, dispatcher: dispatcher, policy: .debug)
        }
        await RequestFuzzProcess.runCases(fuzzer: fuzzer)
        fuzzer.stop()
        try await ahc.shutdown()
    }
    #endif
}
