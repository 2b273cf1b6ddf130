import Foundation
import XCTest

@testable import DevSeeObserver

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

final class UploaderTests: XCTestCase {
    private let server = URL(string: "http://127.0.0.1:9090/api/logs")!

    private func answer(_ status: Int, _ body: String, headers: [String: String] = [:]) -> Uploader.Outcome {
        let response = HTTPURLResponse(url: URL(string: "http://127.0.0.1:9090/api/logs")!, statusCode: status, httpVersion: "HTTP/1.1", headerFields: headers)
        return Uploader.classify(data: Data(body.utf8), response: response, error: nil, url: server)
    }

    func testAnswersAreClassifiedAsTheContractSays() {
        XCTAssertEqual(answer(201, #" {"id":"x"} "#), .delivered)
        XCTAssertEqual(answer(200, "<html>proxy</html>"), .rejected(status: 200, reason: "the answer is not a dev-see server's"))
        XCTAssertEqual(answer(400, #"{"error":"Validation failed"}"#), .rejected(status: 400, reason: #"{"error":"Validation failed"}"#))
        XCTAssertEqual(answer(413, ""), .rejected(status: 413, reason: ""))
        XCTAssertEqual(answer(408, ""), .serverError(status: 408))
        XCTAssertEqual(answer(503, "{not json"), .serverError(status: 503))
        XCTAssertEqual(answer(429, "", headers: ["Retry-After": "7"]), .tooManyRequests(retryAfter: 7))
        XCTAssertEqual(answer(429, ""), .tooManyRequests(retryAfter: nil))
        XCTAssertEqual(Uploader.classify(data: nil, response: nil, error: URLError(.timedOut), url: server), .unreachable(reason: "timed out"))
        XCTAssertEqual(Uploader.classify(data: nil, response: nil, error: URLError(.cannotConnectToHost), url: server), .unreachable(reason: "URLError -1004"))
        XCTAssertEqual(Uploader.classify(data: nil, response: nil, error: URLError(.cannotParseResponse), url: server), .serverError(status: 0), "not HTTP: an error answer, retried a bounded number of times")
    }
}
