import HTTPCore
import HTTPCoreTesting
import HTTPCoreURLSession
import XCTest
import HTTPCoreTestPeers

/// The URLSession adapter against the conformance list every transport is held to (the
/// AsyncHTTPClient adapter runs the same list in `Integrations/`).
final class URLSessionConformanceTests: XCTestCase {
    func testTheAdapterConforms() async {
        let failures = await TransportConformance.run { dispatcher in
            URLSessionClient(dispatcher: dispatcher, policy: .debug)
        }
        XCTAssertEqual(failures, [])
    }

    func testTheAdapterTalksToPythonsHTTPServer() async {
        let failures = await TransportConformance.runAgainstPythonServer { dispatcher in
            URLSessionClient(dispatcher: dispatcher, policy: .debug)
        }
        XCTAssertEqual(failures, [])
    }
}
