import Foundation
@_spi(Transports) import HTTPCore
import XCTest

/// What `HTTPClient`'s conveniences do for a client that implements its one method alone.
final class HTTPClientTests: XCTestCase {
    private let url = URL(string: "https://api.example.com/items")!

    /// A client of its one method: answers every request with `body`.
    private struct StreamingOnly: HTTPClient {
        let body: @Sendable () -> HTTPBody

        func send(_ request: HTTPRequest, body: HTTPBody?) async throws -> (HTTPResponse.Head, HTTPBody) {
            (HTTPResponse.Head(requestID: request.id, statusCode: 200, url: request.url), self.body())
        }
    }

    func testSendCollectsTheStreamedBodyIntoTheResponse() async throws {
        let chunks = AsyncStream<HTTPBody.ByteChunk> { continuation in
            continuation.yield(ArraySlice("he".utf8))
            continuation.yield(ArraySlice("llo".utf8))
            continuation.finish()
        }
        let client = StreamingOnly { HTTPBody(chunks, length: .unknown) }
        let response = try await client.send(HTTPRequest(url: url))
        XCTAssertEqual(response.statusCode, 200)
        XCTAssertEqual(response.body, Data("hello".utf8))
    }

    func testSendRefusesABodyOver64MiBAsABufferedClientDoes() async throws {
        let tooLong = Int64(64 << 20) + 1
        let client = StreamingOnly { HTTPBody(length: .known(tooLong)) { AsyncStream<HTTPBody.ByteChunk> { $0.finish() } } }
        do {
            _ = try await client.send(HTTPRequest(url: url))
            XCTFail("expected responseTooLarge")
        } catch let error as HTTPError {
            XCTAssertEqual(error, HTTPBody.bufferedCallTooLarge(64 << 20))
        }
    }

    func testTheScopedSendHandsTheBodyToReceiveAndReturnsWhatItReturns() async throws {
        let client = StreamingOnly { HTTPBody("streamed") }
        let text = try await client.send(HTTPRequest(url: url)) { response, body in
            "\(response.statusCode) " + String(decoding: try await body.collect(upTo: 100), as: UTF8.self)
        }
        XCTAssertEqual(text, "200 streamed")
    }
}
