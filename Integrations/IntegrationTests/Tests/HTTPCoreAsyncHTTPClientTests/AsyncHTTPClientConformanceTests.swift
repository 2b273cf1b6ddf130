import AsyncHTTPClient
import HTTPCore
import HTTPCoreObservation
import HTTPCoreAsyncHTTPClient
import HTTPCoreTesting
import XCTest
import HTTPCoreTestPeers

/// The AsyncHTTPClient adapter against the conformance list the URLSession adapter passes.
final class AsyncHTTPClientConformanceTests: XCTestCase {
    func testTheAdapterConforms() async throws {
        let ahc = AsyncHTTPClientTransport.makeHTTPClient()
        let failures = await TransportConformance.run { dispatcher in
            HTTPTransportClient(asyncHTTPClient: ahc, dispatcher: dispatcher, policy: .debug)
        }
        try await ahc.shutdown()
        XCTAssertEqual(failures, [])
    }

    func testTheAdapterTalksToPythonsHTTPServer() async throws {
        let ahc = AsyncHTTPClientTransport.makeHTTPClient()
        let failures = await TransportConformance.runAgainstPythonServer { dispatcher in
            HTTPTransportClient(asyncHTTPClient: ahc, dispatcher: dispatcher, policy: .debug)
        }
        try await ahc.shutdown()
        XCTAssertEqual(failures, [])
    }

    /// Every streaming check. Of a body cut mid-way AHC hands over a prefix of the bytes sent
    /// (1,471,473 of 3,145,728 in one run), then `connection_lost`, which the check accepts.
    func testTheAdapterPassesTheStreamingChecks() async throws {
        let ahc = AsyncHTTPClientTransport.makeHTTPClient()
        let failures = await TransportConformance.run(TransportConformance.streamingChecks()) { dispatcher in
            HTTPTransportClient(asyncHTTPClient: ahc, dispatcher: dispatcher, policy: .debug)
        }
        try await ahc.shutdown()
        XCTAssertEqual(failures, [])
    }
}
