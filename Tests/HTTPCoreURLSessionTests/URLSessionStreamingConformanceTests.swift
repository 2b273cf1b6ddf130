import HTTPCore
import HTTPCoreTesting
import HTTPCoreURLSession
import XCTest

/// The URLSession transport, which buffers, against the streaming checks it passes through
/// `HTTPTransportClient`'s buffering default; once it streams, it is to pass them all.
final class URLSessionStreamingConformanceTests: XCTestCase {
    func testTheBufferingTransportPassesTheStreamingChecksItCan() async {
        let failures = await TransportConformance.run(
            TransportConformance.streamingChecks(), only: TransportConformance.bufferingStreamingCheckNames
        ) { dispatcher in
            HTTPTransportClient(transport: URLSessionTransport(session: URLSessionClient.defaultSession), dispatcher: dispatcher, policy: .debug)
        }
        XCTAssertEqual(failures, [])
    }
}
