import Foundation
import HTTPCore
import HTTPCoreTestPeers
import HTTPCoreHAR
import XCTest

/// A HAR entry carries any interpreter's note as a member `_<name>`, as an LLM call's `_genAI`:
/// its `summary` and its `attributes`, and the file stays valid HAR 1.2.
final class HARRecorderNotesTests: XCTestCase {
    /// The document `HARRecorder` made for a GET of the catalog answered 200 with
    /// `X-Cache: <cache>`, `Age: 42` and `fresh`, through a client whose policy has the cache
    /// interpreter; and its only entry.
    private func recorded(cache: String) async throws -> (file: String, entry: [String: Any]) {
        let recorder = HARRecorder()
        let dispatcher = HTTPEventDispatcher()
        dispatcher.subscribe(recorder)
        try await CacheInterpreter.sendCatalogGET(cache: cache, through: dispatcher)
        let document = recorder.harDocument()
        let entries = try HARFile.entries(of: document)
        XCTAssertEqual(entries.count, 1)
        let file = String(decoding: document, as: UTF8.self)
        return (file, entries[0])
    }

    /// Checks `file` with the HAR 1.2 checker; called last, since without haralyzer it skips
    /// the test (what the test asserted before still counts).
    private func checkHAR12(_ file: String) throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("har-notes-\(UUID().uuidString).har")
        defer { try? FileManager.default.removeItem(at: url) }
        try Data(file.utf8).write(to: url)
        // Read first: a skip (haralyzer missing) thrown inside the assertion would be a failure.
        let report = try HARConsumer.check(url)
        XCTAssertEqual(report.errors, [], "HAR 1.2 rules")
    }

    func testACustomInterpretersNoteIsAMemberUnderItsNameWithItsSummaryAndAttributes() async throws {
        let (file, entry) = try await recorded(cache: "HIT")
        XCTAssertEqual(try HARFile.member("_cache", in: file), [
            #""_cache": {"#,
            #""summary": "HIT, age 42","#,
            #""attributes": {"#,
            #""status": "HIT","#,
            #""cache.age": 42"#,
            #"}"#,
            #"}"#,
        ])
        XCTAssertEqual((entry["response"] as? [String: Any])?["status"] as? Int, 200)
        try checkHAR12(file)
    }

    func testANoteThatReportsAFailureIsShownByItsMemberAloneAsAnLLMCallsIs() async throws {
        // HAR shows no note's failure in the entry's outcome (nor an LLM call's provider error
        // under a 200): the entry says it succeeded, and `_cache` tells.
        let (file, entry) = try await recorded(cache: "ERROR")
        XCTAssertEqual(try HARFile.member("_cache", in: file), [
            #""_cache": {"#,
            #""summary": "ERROR, age 42","#,
            #""attributes": {"#,
            #""status": "ERROR","#,
            #""cache.age": 42"#,
            #"}"#,
            #"}"#,
        ])
        XCTAssertEqual(entry["_outcome"] as? String, "succeeded")
        XCTAssertNil(entry["comment"])
        try checkHAR12(file)
    }
}
