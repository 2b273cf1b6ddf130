import DevSeeObserver
import DevSeeServer
import Foundation
import HTTPCore
import HTTPCoreObservation
import HTTPCoreTestPeers
import HTTPCoreLoopback
import HTTPCoreURLSession
import XCTest

/// dev-see shows any interpreter's note as it shows an LLM call's: its `[name] summary` line
/// leads the response body (the viewer shows no other field), and its attributes are stored
/// under its name, an object of their names to their values.
final class DevSeeObserverNotesTests: XCTestCase {
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

    /// The log dev-see stored for a GET of the catalog answered 200 with `X-Cache: <cache>`,
    /// `Age: 42` and `fresh`, through a `URLSessionClient` whose debug policy has the cache
    /// interpreter: as sent, and decoded.
    private func logged(cache: String) async throws -> (sent: String, log: [String: Any]) {
        api.route("/catalog") { _ in LoopbackResponse(headers: ["X-Cache": cache, "Age": "42"], body: Data("fresh".utf8)) }
        let harness = LoggerHarness(receiver: receiver)
        let dispatcher = HTTPEventDispatcher()
        dispatcher.subscribe(DevSeeObserver(logger: harness.logger))
        let client = URLSessionClient(dispatcher: dispatcher, policy: .debug.interpreting(CacheInterpreter()))
        _ = try await client.send(HTTPRequest(url: api.url("/catalog")))
        await dispatcher.flush()
        await harness.logger.flush()
        try await receiver.waitForLogs(count: 1)
        XCTAssertEqual(receiver.rejections.count, 0, "dev-see accepts the log")
        return (String(decoding: try XCTUnwrap(receiver.storedLogs.first), as: UTF8.self), try receiver.onlyLog())
    }

    func testACustomInterpretersNoteLeadsTheBodyAndItsAttributesAreStoredUnderItsName() async throws {
        let (sent, log) = try await logged(cache: "HIT")
        XCTAssertEqual(log["responseBody"] as? String, "[cache] HIT, age 42\nfresh")
        XCTAssertTrue(sent.contains(#","cache":{"status":"HIT","cache.age":42},"#), sent)
        XCTAssertEqual(log["statusCode"] as? Int, 200)
    }

    func testANoteThatReportsAFailureIsShownByItsLineAloneAsAnLLMCallsIs() async throws {
        // dev-see shows no note's failure in its list (nor an LLM call's provider error under a
        // 200): the row keeps its status and method, and the body's first line tells.
        let (sent, log) = try await logged(cache: "ERROR")
        XCTAssertEqual(log["responseBody"] as? String, "[cache] ERROR, age 42\nfresh")
        XCTAssertTrue(sent.contains(#","cache":{"status":"ERROR","cache.age":42},"#), sent)
        XCTAssertEqual(log["statusCode"] as? Int, 200)
        XCTAssertEqual(log["method"] as? String, "GET")
        XCTAssertNil(log["error"])
    }
}
