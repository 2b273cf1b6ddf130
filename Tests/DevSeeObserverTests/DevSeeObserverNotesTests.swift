import DevSeeObserver
import DevSeeServer
import Foundation
import HTTPCore
import HTTPCoreObservation
import HTTPCoreTestPeers
import XCTest

/// dev-see shows any interpreter's note as it shows an LLM call's: its `[name] summary` line
/// leads the response body (the viewer shows no other field), and its attributes are stored
/// under its name, an object of their names to their values.
final class DevSeeObserverNotesTests: XCTestCase {
    private var receiver: DevSeeReceiver!

    override func setUpWithError() throws {
        receiver = try DevSeeReceiver()
    }

    override func tearDown() {
        receiver.stop()
    }

    /// The log dev-see stored for a GET of the catalog answered `status` with
    /// `X-Cache: <cache>`, `Age: 42` and `fresh`, through a client whose debug policy has the
    /// cache interpreter: as sent, and decoded.
    private func logged(cache: String, status: Int = 200) async throws -> (sent: String, log: [String: Any]) {
        let harness = LoggerHarness(receiver: receiver)
        let dispatcher = HTTPEventDispatcher()
        dispatcher.subscribe(DevSeeObserver(logger: harness.logger))
        try await CacheInterpreter.sendCatalogGET(cache: cache, status: status, through: dispatcher)
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

    func testANoteThatReportsAFailureMakesTheRowReadAsFailedAsAFailureAfterAStatusDoes() async throws {
        // The console and Loki make it a warning; the viewer's list has a red chip for it: 599,
        // the method saying it failed after the status that came, and the note's line first.
        let (sent, log) = try await logged(cache: "ERROR")
        XCTAssertEqual(log["statusCode"] as? Int, 599)
        XCTAssertEqual(log["reportedStatusCode"] as? Int, 200)
        XCTAssertEqual(log["method"] as? String, "GET failed after 200")
        XCTAssertEqual(log["responseBody"] as? String, "[cache] ERROR, age 42\nfresh")
        XCTAssertTrue(sent.contains(#","cache":{"status":"ERROR","cache.age":42},"#), sent)
        XCTAssertNil(log["error"], "no error came: the note tells what failed")
    }

    func testANoteThatReportsAFailureLeavesA4xxRowAsItIs() async throws {
        let (_, log) = try await logged(cache: "ERROR", status: 404)
        XCTAssertEqual(log["statusCode"] as? Int, 404, "red already")
        XCTAssertNil(log["reportedStatusCode"])
        XCTAssertEqual(log["method"] as? String, "GET")
        XCTAssertEqual(log["responseBody"] as? String, "[cache] ERROR, age 42\nfresh")
    }
}
