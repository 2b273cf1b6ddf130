import Foundation
import HTTPCore
import HTTPCoreObservation
import HTTPCoreTesting
import HTTPCoreURLSession
import XCTest
import HTTPCoreLoopback

final class DefaultHeadersMiddlewareTests: XCTestCase {
    func testDefaultsAreAddedWithoutOverwritingWhatTheRequestSet() async throws {
        let server = try LoopbackHTTPServer()
        defer { server.stop() }
        server.route("/echo") { _ in .text("ok") }
        let defaults = DefaultHeadersMiddleware(["User-Agent": "MyApp/2.1", "Accept": "application/json"])
        let client = URLSessionClient(middlewares: [defaults], dispatcher: HTTPEventDispatcher())

        _ = try await client.send(HTTPRequest(url: server.url("/echo"), headers: ["accept": "text/csv"]))

        let received = try XCTUnwrap(server.requests.first).headers
        XCTAssertEqual(received.values(for: "User-Agent"), ["MyApp/2.1"])
        XCTAssertEqual(received.values(for: "Accept"), ["text/csv"], "the request's own value wins, compared without case")
    }

    func testEveryDefaultFieldOfAMissingNameIsAddedInOrder() async throws {
        // Over a mock transport: URLSession joins repeated fields into one line on the wire.
        let transport = MockTransport()
        let defaults = DefaultHeadersMiddleware(["X-Tag": "a", "x-tag": "b", "X-Kept": "default"])
        let client = HTTPTransportClient(transport: transport, middlewares: [defaults], dispatcher: HTTPEventDispatcher())
        _ = try await client.send(HTTPRequest(url: URL(string: "https://api.example.com")!, headers: ["X-Kept": "mine"]))
        let sent = try XCTUnwrap(transport.requests.first).headers
        XCTAssertEqual(sent.fields.map(\.name), ["X-Kept", "X-Tag", "x-tag"])
        XCTAssertEqual(sent.values(for: "x-tag"), ["a", "b"])
        XCTAssertEqual(sent.values(for: "X-Kept"), ["mine"])
    }
}
