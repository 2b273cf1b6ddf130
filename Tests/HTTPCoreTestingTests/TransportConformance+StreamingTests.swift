import Foundation
import HTTPCore
import HTTPCoreObservation
import HTTPCoreLoopback
import HTTPCoreTesting
import XCTest

/// The streaming checks catch a transport that does not deliver what the server sent.
final class TransportConformanceStreamingTests: XCTestCase {
    /// Answers 200 with an empty body to everything, never touching the network.
    private struct Careless: HTTPBufferedTransport {
        func perform(_ request: HTTPRequest) async throws -> HTTPResponse {
            HTTPResponse(requestID: request.id, statusCode: 200, url: request.url)
        }
    }

    func testACarelessTransportFailsTheDownloadTheCutAndTheDeadline() async {
        let failures = await TransportConformance.run(
            TransportConformance.streamingChecks(),
            only: [
                "a streamed download arrives in order", "a body cut mid-way fails with connection_lost and the bytes received",
                "the deadline mid-body is a timeout",
            ]
        ) { dispatcher in
            HTTPTransportClient(transport: Careless(), dispatcher: dispatcher)
        }

        XCTAssertEqual(failures.map(\.description), [
            "a streamed download arrives in order: body received: expected \(LoopbackBodyPattern.digest(byteCount: 32 << 20)), "
                + "got 0 bytes, fnv1a64 0xcbf29ce484222325",
            "a body cut mid-way fails with connection_lost and the bytes received: no error after 0 bytes",
            "the deadline mid-body is a timeout: no error",
        ])
    }

    /// Ignores the request's timeout: answers after 3 s, whatever the deadline.
    private struct Deaf: HTTPTransport {
        func perform(_ request: HTTPRequest, body: HTTPBody?) async throws -> (HTTPResponse.Head, HTTPBody) {
            try await Task.sleep(nanoseconds: 3_000_000_000)
            return (HTTPResponse.Head(requestID: request.id, statusCode: 200, url: request.url), HTTPBody())
        }
    }

    func testATransportThatIgnoresItsDeadlineFailsTheHeadDeadlineCheck() async {
        let name = "the deadline before the head is a timeout, from the transport"
        let deaf = await TransportConformance.run(only: [name], transport: { Deaf() })
        XCTAssertEqual(deaf.map(\.description), ["\(name): no error"])
        // The buffered adapter bounds the call with a timer, so a buffered transport passes.
        let buffered = await TransportConformance.run(only: [name], transport: { MockTransport(default: .status(200, after: 3)) })
        XCTAssertEqual(buffered, [])
    }

    func testTheSizesAreSmallForSwiftTestAndAsTheIssueAsksInFull() {
        XCTAssertEqual(TransportConformance.StreamingSizes.quick, .init(downloadBytes: 33_554_432, uploadBytes: 16_777_216))
        XCTAssertEqual(TransportConformance.StreamingSizes.full, .init(downloadBytes: 1_073_741_824, uploadBytes: 268_435_456))
    }
}
