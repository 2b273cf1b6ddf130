import Foundation
import HTTPCore
import XCTest

@testable import HTTPCoreURLSession

final class URLSessionTransportTests: XCTestCase {
    func testRedirectOriginRules() {
        let https = URL(string: "https://api.example.com/a")!
        XCTAssertTrue(URLSessionTransport.isDowngrade(from: https, to: URL(string: "http://api.example.com/a")!))
        XCTAssertFalse(URLSessionTransport.isDowngrade(from: https, to: URL(string: "https://cdn.example.com/a")!))
        XCTAssertTrue(URLSessionTransport.isSameOrigin(https, URL(string: "HTTPS://API.example.com:443/b")!))
        XCTAssertFalse(URLSessionTransport.isSameOrigin(https, URL(string: "https://api.example.com:8443/b")!))
        XCTAssertFalse(URLSessionTransport.isSameOrigin(https, URL(string: "https://evil.example.com/a")!))
    }

    func testSetCookieSplitting() {
        XCTAssertEqual(SetCookieSplitter.split("a=1; Expires=Wed, 21 Oct 2026 07:28:00 GMT, b=2; Path=/"), [
            "a=1; Expires=Wed, 21 Oct 2026 07:28:00 GMT", "b=2; Path=/",
        ])
        XCTAssertEqual(SetCookieSplitter.split("only=1"), ["only=1"])
        XCTAssertEqual(SetCookieSplitter.split(""), [])
    }

    func testTimeoutIsRoundedUpToWholeSecondsOnTheProperty() throws {
        let request = try URLSessionTransport.urlRequest(for: HTTPRequest(url: URL(string: "https://a.example")!, timeout: 0.5))
        XCTAssertEqual(request.timeoutInterval, 1)
        let longer = try URLSessionTransport.urlRequest(for: HTTPRequest(url: URL(string: "https://a.example")!, timeout: 2.2))
        XCTAssertEqual(longer.timeoutInterval, 3)
    }

    func testURLErrorMapping() {
        let url = URL(string: "http://bob:pw@api.example.com:8080/a?token=secret")!
        func mapped(_ code: URLError.Code, _ target: URL = url) -> HTTPError { HTTPError(urlSessionError: URLError(code), url: target) }
        XCTAssertEqual(mapped(.timedOut), .timeout)
        XCTAssertEqual(mapped(.cancelled), .cancelled)
        XCTAssertEqual(mapped(.unsupportedURL, URL(string: "ftp://api.example.com/a")!),
                       .transport(.invalidRequest, message: "url: URLSession does not support it (api.example.com, URLError -1002)"))
        #if canImport(FoundationNetworking)
        XCTAssertEqual(mapped(.unsupportedURL), .invalidResponse, "curl could not read the answer as HTTP")
        XCTAssertEqual(mapped(.badServerResponse), .transport(
            .connectionLost, message: "the server closed the connection without answering (api.example.com:8080, URLError -1011)"
        ), "curl's empty reply: closed before a complete status line")
        XCTAssertEqual(mapped(.unknown), .transport(
            .connectionLost, message: "the connection closed before the response was complete (api.example.com:8080, URLError -1)"
        ))
        #else
        XCTAssertEqual(mapped(.unsupportedURL), .transport(
            .invalidRequest, message: "url: URLSession does not support it (api.example.com:8080, URLError -1002)"
        ))
        XCTAssertEqual(mapped(.badServerResponse), .invalidResponse)
        XCTAssertEqual(mapped(.unknown), .transport(.other, message: "URLSession failed (api.example.com:8080, URLError -1)"))
        #endif
        XCTAssertEqual(mapped(.networkConnectionLost), .transport(
            .connectionLost, message: "the connection was lost (api.example.com:8080, URLError -1005)"
        ))
        XCTAssertEqual(mapped(.cannotConnectToHost), .transport(
            .cannotConnect, message: "could not connect to the host (api.example.com:8080, URLError -1004)"
        ))
        XCTAssertEqual(mapped(.cannotFindHost), .transport(
            .cannotResolveHost, message: "could not resolve the host (api.example.com:8080, URLError -1003)"
        ))
    }
}
