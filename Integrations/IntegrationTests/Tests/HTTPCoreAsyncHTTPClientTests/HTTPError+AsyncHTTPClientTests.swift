import AsyncHTTPClient
import Foundation
import HTTPCore
import HTTPCoreObservation
import HTTPCoreLoopback
import XCTest

@testable import HTTPCoreAsyncHTTPClient

/// What the caller caused is `invalid_request` saying what to fix; only transport failures are `other`.
final class HTTPErrorAsyncHTTPClientTests: XCTestCase {
    private let url = URL(string: "http://127.0.0.1:8080/a?token=s3cr3t")!

    private func mapped(_ error: HTTPClientError) -> HTTPError {
        HTTPError(asyncHTTPClientError: error, url: url)
    }

    func testTheCallersMistakesAreInvalidRequestsThatSayWhatToFix() {
        let cases: [(HTTPClientError, String)] = [
            (.invalidURL, "url: AsyncHTTPClient cannot parse it"),
            (.emptyHost, "url has no host"),
            (.emptyScheme, "url has no scheme: use an absolute http or https URL"),
            (.unsupportedScheme("ftp"), "url scheme is not supported by AsyncHTTPClient: use http or https"),
            (.alreadyShutdown, "the AsyncHTTPClient HTTPClient was shut down before this request: send only while its owner keeps it running"),
            (.traceRequestWithBody, "body: a TRACE request has no body (RFC 9110, section 9.3.8)"),
            (.bodyLengthMismatch, "body: its length differs from the length it declared"),
            (.invalidHeaderFieldNames(["X Foo"]), "header name: AsyncHTTPClient refused one that is not a token"),
            (.invalidHeaderFieldValues(["s3cr3t\r\n"]), "header value: AsyncHTTPClient refused one with a control character"),
            (.invalidProxyConfiguration, "the AsyncHTTPClient configuration is invalid: The proxy configuration is not valid"),
        ]
        for (error, message) in cases {
            XCTAssertEqual(mapped(error), .transport(.invalidRequest, message: "\(message) (127.0.0.1:8080)"), "\(error)")
        }
    }

    func testATransportFailureStaysOtherWithAHCsDescription() {
        XCTAssertEqual(
            mapped(.invalidProxyResponse),
            .transport(.other, message: "AsyncHTTPClient failed: Invalid proxy response (HTTPClientError.invalidProxyResponse) (127.0.0.1:8080)")
        )
    }

    func testASendAfterTheClientShutDownIsAnInvalidRequest() async throws {
        let server = try LoopbackHTTPServer()
        defer { server.stop() }
        let ahc = AsyncHTTPClientTransport.makeHTTPClient()
        try await ahc.shutdown()
        let client = HTTPTransportClient(asyncHTTPClient: ahc, dispatcher: HTTPEventDispatcher())
        // AHC fails the task of a client shut down without telling the delegate: the start
        // check finds it, with a deadline and without one, and a deadline of 0.01 s finds it
        // first, naming the shutdown, not a timeout. Without the check the first would end as
        // a timeout after 60 s and the second would wait forever, so each runs only once the
        // one before passed.
        for timeout in [60, nil, 0.01] as [TimeInterval?] {
            do {
                _ = try await client.send(HTTPRequest(url: server.url("/"), timeout: timeout))
                XCTFail("expected an error")
            } catch let error as HTTPError {
                guard error.code == .invalidRequest else { return XCTFail("timeout \(String(describing: timeout)): \(error)") }
                XCTAssertEqual(
                    error.message,
                    "the AsyncHTTPClient HTTPClient was shut down before this request: send only while its owner keeps it running (127.0.0.1:\(server.port))"
                )
            }
        }
    }

    func testAPortOutOfRangeIsRefusedBeforeNIOSeesIt() async throws {
        // SwiftNIO's SocketAddress traps on a port over 65535: the client must not hand it over.
        let ahc = AsyncHTTPClientTransport.makeHTTPClient()
        let client = HTTPTransportClient(asyncHTTPClient: ahc, dispatcher: HTTPEventDispatcher())
        do {
            _ = try await client.send(HTTPRequest(url: URL(string: "http://127.0.0.1:99999/")!, timeout: 60))
            XCTFail("expected an error")
        } catch let error as HTTPError {
            XCTAssertEqual(error, .transport(.invalidRequest, message: "port 99999 is out of range 1…65535"))
        }
        try await ahc.shutdown()
    }

    func testADeadlineFromAnyTimeoutNeverTraps() {
        let never = AsyncHTTPClientTransport.deadline(of: HTTPRequest(url: url, timeout: nil))
        for timeout in [TimeInterval.nan, .infinity, 1e300, HTTPRequest.longestTimeout * 2] {
            XCTAssertEqual(AsyncHTTPClientTransport.deadline(of: HTTPRequest(url: url, timeout: timeout)), never, "\(timeout)")
        }
        let now = DispatchTime.now().uptimeNanoseconds
        XCTAssertLessThanOrEqual(AsyncHTTPClientTransport.deadline(of: HTTPRequest(url: url, timeout: -1)).uptimeNanoseconds, now + 1_000_000_000)
        XCTAssertGreaterThan(AsyncHTTPClientTransport.deadline(of: HTTPRequest(url: url, timeout: 60)).uptimeNanoseconds, now + 59_000_000_000)
    }
}
