import AsyncHTTPClient
import HTTPCore
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
}
