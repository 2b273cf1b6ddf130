import Foundation
import HTTPCore
import HTTPCoreTesting
import HTTPCoreURLSession
import XCTest

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The URLSession transport against every streaming check (download, upload, chunked, cut
/// mid-way, early stop, cancellation and deadline mid-body, server-sent events as they come).
final class URLSessionStreamingConformanceTests: XCTestCase {
    /// Every check.
    func testTheStreamingClientPassesTheStreamingChecks() async {
        let failures = await TransportConformance.run(TransportConformance.streamingChecks()) { dispatcher in
            URLSessionClient(dispatcher: dispatcher, policy: .debug)
        }
        XCTAssertEqual(failures, [])
    }

    /// A session without ``URLSessionClient/makeDefaultSession()``'s delegate buffers, and still
    /// passes the checks that do not need the body before its end.
    func testASessionOfYourOwnPassesTheChecksABufferingTransportCan() async {
        let session = URLSession(configuration: URLSessionClient.makeDefaultConfiguration())
        defer { session.invalidateAndCancel() }
        let failures = await TransportConformance.run(
            TransportConformance.streamingChecks(), only: TransportConformance.bufferingStreamingCheckNames
        ) { dispatcher in
            URLSessionClient(session: session, dispatcher: dispatcher, policy: .debug)
        }
        XCTAssertEqual(failures, [])
    }
}
