import Foundation
import HTTPCore
import HTTPCoreObservation
import HTTPCoreTesting
import XCTest

/// The conformance list catches a transport that cuts corners.
final class TransportConformanceTests: XCTestCase {
    /// Answers 200 with an empty body to everything, never touching the network.
    private struct Careless: HTTPBufferedTransport {
        func perform(_ request: HTTPRequest) async throws -> HTTPResponse {
            HTTPResponse(requestID: request.id, statusCode: 200, url: request.url)
        }
    }

    /// Fails every exchange as an invalid response, whatever went wrong.
    private struct Mislabelling: HTTPBufferedTransport {
        func perform(_ request: HTTPRequest) async throws -> HTTPResponse {
            throw HTTPError.invalidResponse
        }
    }

    func testATransportThatCallsAClosedConnectionAnInvalidResponseFails() async {
        let failures = await TransportConformance.run(only: ["a connection closed before the response is complete is connection_lost"]) { dispatcher in
            HTTPTransportClient(transport: Mislabelling(), dispatcher: dispatcher)
        }
        XCTAssertEqual(failures.map(\.description), [
            "a connection closed before the response is complete is connection_lost: a GET closed without a byte of answer: "
                + "expected connection_lost, got invalid response",
        ])
    }

    func testACarelessTransportFailsEveryCheckItSkips() async {
        let failures = await TransportConformance.run(
            only: [
                "status codes are responses", "redirects end at the final URL", "a 50 MB response arrives whole", "the deadline is a timeout",
                "a connection closed before the response is complete is connection_lost",
            ]
        ) { dispatcher in
            HTTPTransportClient(transport: Careless(), dispatcher: dispatcher)
        }
        let descriptions = failures.map(\.description)
        XCTAssertEqual(descriptions.count, 5, "\(descriptions)")
        XCTAssertEqual(descriptions[0], "status codes are responses: status: expected 201, got 200")
        XCTAssertTrue(descriptions[1].hasPrefix("redirects end at the final URL: final URL: expected http://127.0.0.1:"), descriptions[1])
        XCTAssertEqual(descriptions[2], "a 50 MB response arrives whole: body bytes: expected 52428800, got 0")
        XCTAssertEqual(descriptions[3], "the deadline is a timeout: no error")
        XCTAssertEqual(
            descriptions[4],
            "a connection closed before the response is complete is connection_lost: a GET closed without a byte of answer: no error"
        )
    }
}
