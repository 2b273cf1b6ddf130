import DevSeeObserver
import DevSeeServer
import Foundation
import HTTPCore
import HTTPCoreLoopback
import HTTPCoreObservation
import HTTPCoreURLSession
import XCTest

/// What the dev-see viewer's own rules make of the logs of real exchanges over loopback: it
/// pretty-prints a body only when the whole of it parses as JSON, its search matches the URL or
/// the method (a case-insensitive substring), and its row shows method, status, duration, URL.
final class DevSeeViewerRulesTests: XCTestCase {
    private var api: LoopbackHTTPServer!
    private var receiver: DevSeeReceiver!

    override func setUpWithError() throws {
        api = try LoopbackHTTPServer()
        receiver = try DevSeeReceiver()
    }

    override func tearDown() {
        api.stop()
        receiver.stop()
    }

    /// The logs dev-see stored for `send` through a `URLSessionClient` with `policy` and
    /// `middlewares`, once `count` are delivered, all accepted.
    private func logs(
        count: Int, policy: HTTPCorePolicy = .debug, middlewares: [any HTTPMiddleware] = [],
        _ send: (URLSessionClient) async throws -> Void
    ) async throws -> [[String: Any]] {
        let harness = LoggerHarness(receiver: receiver)
        let dispatcher = HTTPEventDispatcher()
        dispatcher.subscribe(DevSeeObserver(logger: harness.logger))
        try await send(URLSessionClient(middlewares: middlewares, dispatcher: dispatcher, policy: policy))
        await dispatcher.flush()
        await harness.logger.flush()
        try await receiver.waitForLogs(count: count)
        XCTAssertEqual(receiver.rejections.count, 0, "dev-see accepts every log: \(receiver.rejections)")
        return receiver.storedObjects()
    }

    /// The viewer's search: the logs whose URL or method holds `query`, ignoring case.
    private func searched(_ logs: [[String: Any]], for query: String) -> [[String: Any]] {
        logs.filter { log in
            [log["url"] as? String ?? "", log["method"] as? String ?? ""].contains { $0.localizedCaseInsensitiveContains(query) }
        }
    }

    /// Whether the viewer pretty-prints `body`: it parses as JSON as a whole.
    private func parsesAsJSON(_ body: Any?) -> Bool {
        guard let text = body as? String else { return false }
        return (try? JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed])) != nil
    }

    func testAnAttemptsNoteIsAHeaderAndItsJSONBodyStillParsesWhole() async throws {
        api.route("/flaky", answering: [.text("busy", status: 503), .json(#"{"ok":true}"#)])
        let retry = RetryMiddleware(backoff: Backoff(initial: 0.01, maximum: 0.01, jitter: .none))
        let stored = try await logs(count: 2, middlewares: [retry]) { client in
            _ = try await client.send(HTTPRequest(url: api.url("/flaky")))
        }
        let logs = stored.sorted { ($0["attempt"] as? Int ?? 0) < ($1["attempt"] as? Int ?? 0) }
        let last = try XCTUnwrap(logs.last)
        XCTAssertEqual(last["responseBody"] as? String, #"{"ok":true}"#, "the body as the server sent it")
        XCTAssertTrue(parsesAsJSON(last["responseBody"]), "pretty-printed by the viewer")
        let headers = try XCTUnwrap(last["responseHeaders"] as? [String: String])
        let note = try XCTUnwrap(headers["x-devsee-note-attempt"], "\(headers)")
        XCTAssertTrue(note.hasPrefix("[attempt 2, the last: the exchange took "), note)
        XCTAssertTrue(note.hasSuffix(" in all]"), note)
        XCTAssertEqual(headers["Content-Type"], "application/json", "the server's headers follow the notes")
        // A text body is no JSON to spoil: it keeps its line, and the header says it too.
        let first = try XCTUnwrap(logs.first)
        XCTAssertEqual(first["responseBody"] as? String, "[attempt 1, retried]\nbusy")
        XCTAssertEqual((first["responseHeaders"] as? [String: String])?["x-devsee-note-attempt"], "[attempt 1, retried]")
    }

    func testARedirectedExchangeIsFoundByTheURLAndMethodCalledAndByTheFinalOnes() async throws {
        api.route("/submit") { _ in .redirect(to: "/done", status: 303) }
        api.route("/done") { _ in .text("thanks") }
        let submit = api.url("/submit").absoluteString, done = api.url("/done").absoluteString
        let logs = try await logs(count: 1) { client in
            let request = HTTPRequest(method: .post, url: api.url("/submit"), headers: ["Content-Type": "text/plain"], body: Data("name=Roy".utf8))
            _ = try await client.send(request)
        }
        let log = try XCTUnwrap(logs.first)
        XCTAssertEqual(log["method"] as? String, "POST → GET")
        XCTAssertEqual(log["url"] as? String, "\(submit) → \(done)", "what the code called leads the row")
        XCTAssertEqual(log["statusCode"] as? Int, 200)
        for query in ["/submit", submit, "/done", done, "post", "GET"] {
            XCTAssertEqual(searched(logs, for: query).count, 1, "a search for \(query)")
        }
        let route = "[redirected: POST \(submit) → 303 → GET \(done)]"
        XCTAssertEqual((log["responseHeaders"] as? [String: String])?["x-devsee-note-redirect"], route)
        XCTAssertEqual(log["requestBody"] as? String, route, "the final GET has no body of its own")
    }

    func testAStatusOutsideTheViewersRangeIsReadInTheRow() async throws {
        api.route("/odd") { _ in .text("odd", status: 999) }
        let logs = try await logs(count: 1) { client in
            _ = try await client.send(HTTPRequest(url: api.url("/odd")))
        }
        let log = try XCTUnwrap(logs.first)
        XCTAssertEqual(log["statusCode"] as? Int, 599, "the server accepts 100-599 only")
        XCTAssertEqual(log["method"] as? String, "GET status 999")
        XCTAssertEqual(log["reportedStatusCode"] as? Int, 999, "for tools")
        XCTAssertEqual(searched(logs, for: "999").count, 1, "the row says it")
    }

    func testALongTextBodyWithoutWhitespaceIsShownUpToTheCaptureCapCutOnACharacter() async throws {
        // 7 bytes a unit: the 64 KiB capture ends 2 bytes into a `€`.
        let body = String(repeating: "€€x", count: 192_857) + "x"
        XCTAssertEqual(body.utf8.count, 1_350_000)
        api.route("/bundle.txt") { _ in .text(body) }
        let policy = HTTPCorePolicy(bodyCapture: .captured(maxBytes: 2 * 1024 * 1024))
        let logs = try await logs(count: 1, policy: policy) { client in
            _ = try await client.send(HTTPRequest(url: api.url("/bundle.txt")))
        }
        let shown = try XCTUnwrap(logs.first?["responseBody"] as? String)
        XCTAssertEqual(shown, String(repeating: "€€x", count: 9_362) + "…[truncated: 1350000 bytes in all]")
        XCTAssertFalse(shown.contains("REDACTED"), "a run is masked only when it is a secret")
    }
}
