import Foundation
import HTTPCore
import HTTPCoreLoopback
import HTTPCoreURLSession
import XCTest

/// Exchanges that failed before a response, made for real through `URLSessionClient` over
/// loopback: the request every output shows carries the header fields URLSession added on its
/// way out, as it does for an exchange that got a response.
final class OutputsFailedRequestHeadersTests: XCTestCase {
    /// Fields FoundationNetworking and libcurl add to a request that sets none of them.
    private static let transportAdded = ["User-Agent", "Accept", "Accept-Encoding", "Accept-Language"]

    /// The transport-added fields of the first request that reached `path`, as the server
    /// received them.
    private func received(_ outputs: Outputs, _ path: String) throws -> [String: String] {
        let request = try XCTUnwrap(outputs.api.requests.first { $0.path == path }, "the request reached the server")
        var fields: [String: String] = [:]
        for name in Self.transportAdded { fields[name] = request.headers[name] }
        return fields
    }

    /// The transport-added fields of a dev-see log's `requestHeaders`.
    private func devSeeHeaders(_ log: [String: Any]) -> [String: String] {
        let headers = log["requestHeaders"] as? [String: String] ?? [:]
        var fields: [String: String] = [:]
        for name in Self.transportAdded { fields[name] = headers.first { $0.key.lowercased() == name.lowercased() }?.value }
        return fields
    }

    /// The transport-added fields of a HAR entry's request headers.
    private func harHeaders(_ entry: [String: Any]) -> [String: String] {
        let headers = (entry["request"] as? [String: Any])?["headers"] as? [[String: Any]] ?? []
        var fields: [String: String] = [:]
        for name in Self.transportAdded {
            fields[name] = headers.first { ($0["name"] as? String)?.lowercased() == name.lowercased() }?["value"] as? String
        }
        return fields
    }

    func testATimedOutAndAResetExchangeShowTheHeadersTheTransportAdded() async throws {
        let outputs = try Outputs()
        defer { outputs.stop() }
        outputs.api.route("/slow") { _ in
            var late = LoopbackResponse.text("late")
            late.delay = 30
            return late
        }
        outputs.api.route("/reset") { _ in
            var reset = LoopbackResponse()
            reset.fault = .reset
            return reset
        }
        let client = outputs.client()
        do {
            _ = try await client.send(HTTPRequest(url: outputs.api.url("/slow"), timeout: 1))
            XCTFail("expected a timeout")
        } catch let error as HTTPError {
            XCTAssertEqual(error, .timeout)
        }
        do {
            _ = try await client.send(HTTPRequest(url: outputs.api.url("/reset"), timeout: 10), body: nil) { _, body in
                try await body.collect(upTo: 1 << 20)
            }
            XCTFail("expected the reset")
        } catch let error as HTTPError {
            XCTAssertEqual(error.code, .connectionLost)
        }
        let shown = try await outputs.shown(logs: 2, lines: 2)

        XCTAssertEqual(shown.devSee.map { $0["error"] as? String }.map { $0?.prefix(26) }, ["timed out", "transport error [connectio"])
        for (index, path) in ["/slow", "/reset"].enumerated() {
            let sent = try received(outputs, path)
            XCTAssertEqual(sent.count, Self.transportAdded.count, "URLSession added them all: \(sent)")
            XCTAssertTrue(sent["User-Agent"]?.contains(" curl/") ?? false, "\(sent)")
            XCTAssertEqual(devSeeHeaders(shown.devSee[index]), sent, "the dev-see log of \(path) shows what went out")
            XCTAssertEqual(harHeaders(shown.har[index]), sent, "the HAR entry of \(path) shows what went out")
            let block = try XCTUnwrap(shown.console.first { $0.hasPrefix("[REQUEST]") && $0.contains(path) })
            XCTAssertTrue(block.contains(try XCTUnwrap(sent["User-Agent"])), block)
        }
    }

    func testAResetAttemptThatIsRetriedShowsTheHeadersTheTransportAdded() async throws {
        let outputs = try Outputs()
        defer { outputs.stop() }
        var reset = LoopbackResponse()
        reset.fault = .reset
        outputs.api.route("/flaky", answering: [reset, .text("ok")])
        let retry = RetryMiddleware(backoff: Backoff(initial: 0, maximum: 0, jitter: .none))
        _ = try await outputs.client(middlewares: [retry]).send(HTTPRequest(url: outputs.api.url("/flaky"), timeout: 10))
        let shown = try await outputs.shown(logs: 2, lines: 2)

        let sent = try received(outputs, "/flaky")
        XCTAssertEqual(shown.devSee.map { $0["attempt"] as? Int }, [1, 2])
        XCTAssertEqual(shown.devSee.map { devSeeHeaders($0) }, [sent, sent], "the reset attempt's log shows them as the answered one's does")
        XCTAssertEqual(shown.har.map { harHeaders($0) }, [sent, sent])
    }

    func testARedirectLoopAndAGarbageAnswerShowTheHeadersTheTransportAdded() async throws {
        let outputs = try Outputs()
        defer { outputs.stop() }
        outputs.api.route("/loop") { _ in .redirect(to: "/loop") }
        outputs.api.route("/garbage") { _ in
            var garbage = LoopbackResponse()
            garbage.fault = .raw(Data("not http at all\r\n\r\n".utf8))
            return garbage
        }
        let client = outputs.client()
        for path in ["/loop", "/garbage"] {
            do {
                _ = try await client.send(HTTPRequest(url: outputs.api.url(path), timeout: 10))
                XCTFail("expected \(path) to fail")
            } catch is HTTPError {}
        }
        let shown = try await outputs.shown(logs: 2, lines: 2)

        XCTAssertEqual(shown.devSee.map { $0["statusCode"] as? Int }, [599, 599], "both failed before a response")
        for (index, path) in ["/loop", "/garbage"].enumerated() {
            let sent = try received(outputs, path)
            XCTAssertEqual(sent.count, Self.transportAdded.count, "URLSession added them all: \(sent)")
            XCTAssertEqual(devSeeHeaders(shown.devSee[index]), sent, "the dev-see log of \(path) shows what went out")
            XCTAssertEqual(harHeaders(shown.har[index]), sent, "the HAR entry of \(path) shows what went out")
        }
    }
}
