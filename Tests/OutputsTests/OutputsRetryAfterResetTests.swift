import Foundation
import HTTPCore
import HTTPCoreLoopback
import HTTPCoreURLSession
import XCTest

/// A request retried after its connection was reset, through `URLSessionClient` and
/// `RetryMiddleware` over loopback: every request that reached the server has its own entry in
/// every output, the reset one included, numbered like any other attempt.
final class OutputsRetryAfterResetTests: XCTestCase {
    private static func response(of entry: [String: Any]) -> [String: Any] { entry["response"] as? [String: Any] ?? [:] }

    private var quick: RetryMiddleware { RetryMiddleware(backoff: Backoff(initial: 0, maximum: 0, jitter: .none)) }

    /// The server reads the first request and resets its connection, then answers the second.
    private func routeResetThenOK(_ outputs: Outputs) {
        var reset = LoopbackResponse()
        reset.fault = .reset
        outputs.api.route("/flaky", answering: [reset, .text("ok")])
    }

    func testAnAttemptResetOnAFreshConnectionHasItsOwnEntryInEveryOutput() async throws {
        let outputs = try Outputs()
        defer { outputs.stop() }
        routeResetThenOK(outputs)
        let response = try await outputs.client(middlewares: [quick]).send(HTTPRequest(url: outputs.api.url("/flaky"), timeout: 10))
        XCTAssertEqual(response.statusCode, 200)
        XCTAssertEqual(outputs.api.requests.map(\.path), ["/flaky", "/flaky"], "two requests reached the server")
        try await assertEveryOutputShowsTheResetThenTheAnswer(outputs, after: 0)
    }

    func testEveryRefusedAttemptHasItsOwnEntryInEveryOutput() async throws {
        let outputs = try Outputs()
        defer { outputs.stop() }
        let closed = try LoopbackHTTPServer()
        closed.stop()
        let url = closed.url("/refused")
        do {
            _ = try await outputs.client(middlewares: [quick]).send(HTTPRequest(url: url, timeout: 10))
            XCTFail("nothing listens there")
        } catch let error as HTTPError {
            XCTAssertEqual(error.code, .cannotConnect)
        }
        let shown = try await outputs.shown(logs: 3, lines: 3)

        let rows = shown.devSee.map { "\($0["method"] as? String ?? "") \($0["statusCode"] as? Int ?? 0)" }
        XCTAssertEqual(rows, ["GET attempt 1 failed 599", "GET attempt 2 failed 599", "GET attempt 3 failed 599"])
        XCTAssertEqual(shown.devSee.map { ($0["error"] as? String)?.hasPrefix("transport error [cannot_connect]") }, [true, true, true])
        XCTAssertEqual(shown.har.map { $0["_attempt"] as? Int }, [1, 2, 3])
        XCTAssertEqual(shown.har.map { $0["_outcome"] as? String }, ["retried", "retried", "failed"])
        XCTAssertEqual(shown.loki.count, 3)
        XCTAssertEqual(shown.console.filter { $0.hasPrefix("[REQUEST]") }.count, 3)
    }

    #if canImport(FoundationNetworking)
    /// The limit of what any observer of URLSession on Linux can see (Linux.md): when a reused
    /// keep-alive connection dies before a byte of answer, libcurl sends the request again on a
    /// new connection inside the same task, and reports nothing of it. The server sees two
    /// requests; HTTPCore, and so every output, one attempt. Pinned so that the article changes
    /// when FoundationNetworking does.
    func testLibcurlsOwnResendAfterAReusedConnectionDiedIsOneAttemptInEveryOutput() async throws {
        let outputs = try Outputs()
        defer { outputs.stop() }
        outputs.api.route("/warm") { _ in .text("warm") }
        routeResetThenOK(outputs)
        let client = outputs.client(middlewares: [quick])
        _ = try await client.send(HTTPRequest(url: outputs.api.url("/warm"), timeout: 10))
        let response = try await client.send(HTTPRequest(url: outputs.api.url("/flaky"), timeout: 10))
        XCTAssertEqual(response.statusCode, 200)
        let flaky = outputs.api.requests.filter { $0.path == "/flaky" }
        XCTAssertEqual(flaky.count, 2, "two requests reached the server")
        XCTAssertEqual(flaky.first?.connectionID, outputs.api.requests.first?.connectionID, "the first on the kept-alive connection")
        XCTAssertNotEqual(flaky.last?.connectionID, flaky.first?.connectionID, "the second on a new one")
        let shown = try await outputs.shown(logs: 2, lines: 2)
        XCTAssertEqual(shown.devSee.map { "\($0["method"] as? String ?? "") \($0["statusCode"] as? Int ?? 0)" }, ["GET 200", "GET 200"])
        XCTAssertEqual(shown.har.map { $0["_attempt"] as? Int }, [1, 1])
    }
    #endif

    /// Past the `earlier` entries of each output: attempt 1 failed with the lost connection,
    /// attempt 2 got the 200.
    private func assertEveryOutputShowsTheResetThenTheAnswer(_ outputs: Outputs, after earlier: Int, line: UInt = #line) async throws {
        let shown = try await outputs.shown(logs: earlier + 2, lines: earlier + 2)

        let logs = Array(shown.devSee.dropFirst(earlier))
        let rows = logs.map { "\($0["method"] as? String ?? "") \($0["statusCode"] as? Int ?? 0)" }
        XCTAssertEqual(rows, ["GET attempt 1 failed 599", "GET attempt 2 200"], "each request on the wire is a row", line: line)
        XCTAssertEqual(logs.map { $0["attempt"] as? Int }, [1, 2], line: line)
        let error = try XCTUnwrap(logs.first?["error"] as? String, line: line)
        XCTAssertTrue(error.hasPrefix("transport error [connection_lost]"), error, line: line)

        let entries = Array(shown.har.dropFirst(earlier))
        XCTAssertEqual(entries.map { $0["_attempt"] as? Int }, [1, 2], line: line)
        XCTAssertEqual(entries.map { $0["_outcome"] as? String }, ["retried", "succeeded"], line: line)
        XCTAssertEqual(entries.map { Self.response(of: $0)["_errorType"] as? String }, ["connection_lost", nil], line: line)
        XCTAssertEqual(entries.map { Self.response(of: $0)["status"] as? Int }, [0, 200], line: line)

        let lines = shown.loki.filter { $0.contains("/flaky") }
        XCTAssertEqual(lines.count, 2, "\(shown.loki)", line: line)
        XCTAssertEqual(lines.filter { $0.contains("outcome=retried") && $0.contains("error_type=connection_lost") }.count, 1, "\(lines)", line: line)

        let blocks = shown.console.filter { $0.hasPrefix("[REQUEST]") && $0.contains("/flaky") }
        XCTAssertEqual(blocks.count, 2, "\(shown.console)", line: line)
    }
}
