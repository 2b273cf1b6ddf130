import Foundation
import HTTPCore
import HTTPCoreLoopback
import HTTPCoreURLSession
import XCTest
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The headers URLSession adds on its way out, as the transport reports them, against what a
/// loopback server received.
final class URLSessionAddedHeadersTests: XCTestCase {
    private var server: LoopbackHTTPServer!

    override func setUpWithError() throws {
        server = try LoopbackHTTPServer()
        server.route("/echo") { _ in .text("ok") }
    }

    override func tearDown() {
        server.stop()
    }

    /// Framing and connection fields the transport leaves to the wire, not reported.
    private static let framing: Set<String> = ["host", "content-length", "transfer-encoding", "connection", "expect"]

    /// What the server received, framing aside, by lowercased name.
    private func received(_ index: Int) -> [String: String] {
        Dictionary(
            server.requests[index].headers.filter { !Self.framing.contains($0.name.lowercased()) }.map { ($0.name.lowercased(), $0.value) },
            uniquingKeysWith: { first, second in "\(first), \(second)" }
        )
    }

    private func expected(_ request: HTTPRequest, _ added: HTTPHeaders) -> [String: String] {
        Dictionary((Array(request.headers) + Array(added)).map { ($0.name.lowercased(), $0.value) }, uniquingKeysWith: { first, _ in first })
    }

    func testTheReportedHeadersAreTheOnesTheServerReceivedBesideTheRequestsOwn() async throws {
        let configuration = URLSessionClient.makeDefaultConfiguration()
        configuration.httpAdditionalHeaders = ["X-Session-Tag": "blue", "Accept": "application/json"]
        let transport = URLSessionTransport(session: URLSession(configuration: configuration, delegate: nil, delegateQueue: nil))
        let get = HTTPRequest(url: server.url("/echo"), headers: ["Accept": "text/plain", "X-Own": "1"])
        let post = HTTPRequest(method: .post, url: server.url("/echo"), body: Data("a=1".utf8))
        let streamed = HTTPRequest(method: .post, url: server.url("/echo"), headers: ["Content-Type": "text/plain"])

        let got = try await transport.perform(get)
        let posted = try await transport.perform(post)
        let (upload, writer) = HTTPBody.makeStream()
        let writing = Task {
            try await writer.write(HTTPBody.ByteChunk("streamed".utf8))
            writer.finish()
        }
        let (streamedHead, body) = try await transport.perform(streamed, body: upload)
        _ = try await body.collect(upTo: 100)
        try await writing.value

        XCTAssertEqual(received(0), expected(get, got.addedRequestHeaders))
        XCTAssertEqual(received(1), expected(post, posted.addedRequestHeaders))
        XCTAssertEqual(received(2), expected(streamed, streamedHead.addedRequestHeaders))
        XCTAssertEqual(got.addedRequestHeaders["X-Session-Tag"], "blue", "the session's additional headers are reported")
        XCTAssertNil(got.addedRequestHeaders["Accept"], "the request's own Accept won")
        #if canImport(FoundationNetworking)
        XCTAssertEqual(posted.addedRequestHeaders["Content-Type"], "application/x-www-form-urlencoded")
        XCTAssertTrue(got.addedRequestHeaders["User-Agent"]?.contains(" curl/") ?? false, "\(got.addedRequestHeaders)")
        XCTAssertNotNil(got.addedRequestHeaders["Accept-Encoding"])
        #endif
    }

    func testAFailureBeforeAResponseCarriesTheHeadersTheServerReceivedBesideTheRequestsOwn() async throws {
        server.route("/reset") { _ in
            var reset = LoopbackResponse()
            reset.fault = .reset
            return reset
        }
        server.route("/slow") { _ in
            var late = LoopbackResponse.text("late")
            late.delay = 30
            return late
        }
        let transport = URLSessionTransport(session: URLSessionClient.makeDefaultSession())
        let reset = HTTPRequest(url: server.url("/reset"), headers: ["X-Own": "1"], timeout: 10)
        let slow = HTTPRequest(url: server.url("/slow"), timeout: 1)
        let streamed = HTTPRequest(url: server.url("/reset"), timeout: 10)

        let buffered = await failure { _ = try await transport.perform(reset) }
        let timedOut = await failure { _ = try await transport.perform(slow) }
        let streamedFailure = await failure { _ = try await transport.perform(streamed, body: nil) }

        XCTAssertEqual(buffered?.code, .connectionLost)
        XCTAssertEqual(timedOut, .timeout)
        XCTAssertEqual(streamedFailure?.code, .connectionLost)
        XCTAssertEqual(received(0), expected(reset, buffered?.addedRequestHeaders ?? [:]))
        XCTAssertEqual(received(1), expected(slow, timedOut?.addedRequestHeaders ?? [:]))
        XCTAssertEqual(received(2), expected(streamed, streamedFailure?.addedRequestHeaders ?? [:]))
        #if canImport(FoundationNetworking)
        XCTAssertTrue(buffered?.addedRequestHeaders["User-Agent"]?.contains(" curl/") ?? false, "\(String(describing: buffered))")
        #endif
    }

    func testARequestURLSessionRefusesCarriesNoAddedHeaders() async throws {
        let transport = URLSessionTransport(session: URLSessionClient.makeDefaultSession())
        let refused = await failure { _ = try await transport.perform(HTTPRequest(url: server.url("/echo"), body: Data("x".utf8))) }
        XCTAssertEqual(refused?.code, .invalidRequest)
        XCTAssertEqual(refused?.addedRequestHeaders, [:], "nothing went out")
        XCTAssertTrue(server.requests.isEmpty)
    }

    private func failure(_ call: () async throws -> Void) async -> HTTPError? {
        do {
            try await call()
            XCTFail("expected a failure")
            return nil
        } catch {
            return error as? HTTPError
        }
    }
}
