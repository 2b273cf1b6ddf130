import Foundation
import HTTPCore
import HTTPCoreObservation
import HTTPCoreTestPeers
import HTTPCoreHAR
import HTTPCoreLoopback
import HTTPCoreURLSession
import XCTest

/// A HAR entry carries any interpreter's note as a member `_<name>`, as an LLM call's `_genAI`:
/// its `summary` and its `attributes`, and the file stays valid HAR 1.2.
final class HARRecorderNotesTests: XCTestCase {
    private var server: LoopbackHTTPServer!

    override func setUpWithError() throws {
        server = try LoopbackHTTPServer()
    }

    override func tearDown() {
        server.stop()
    }

    /// The file `HARRecorder` wrote for a GET of the catalog answered 200 with
    /// `X-Cache: <cache>`, `Age: 42` and `fresh`, through a `URLSessionClient` whose policy has
    /// the cache interpreter; and its only entry.
    private func recorded(cache: String) async throws -> (file: String, entry: [String: Any]) {
        server.route("/catalog") { _ in LoopbackResponse(headers: ["X-Cache": cache, "Age": "42"], body: Data("fresh".utf8)) }
        let recorder = HARRecorder()
        let dispatcher = HTTPEventDispatcher()
        dispatcher.subscribe(recorder)
        let client = URLSessionClient(dispatcher: dispatcher, policy: .debug.interpreting(CacheInterpreter()))
        _ = try await client.send(HTTPRequest(url: server.url("/catalog")))
        await dispatcher.flush()
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("har-notes-\(UUID().uuidString).har")
        defer { try? FileManager.default.removeItem(at: url) }
        try recorder.write(to: url)
        let file = String(decoding: try Data(contentsOf: url), as: UTF8.self)
        let document = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(file.utf8)) as? [String: Any])
        let entries = try XCTUnwrap((document["log"] as? [String: Any])?["entries"] as? [[String: Any]])
        XCTAssertEqual(entries.count, 1)
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

    /// The `_cache` member as written, each line without its indentation.
    private func cacheMember(_ file: String) throws -> [String] {
        let start = try XCTUnwrap(file.range(of: #""_cache": {"#), file).lowerBound
        var depth = 0
        var end = start
        for index in file[start...].indices {
            if file[index] == "{" { depth += 1 }
            if file[index] == "}" {
                depth -= 1
                if depth == 0 { end = file.index(after: index); break }
            }
        }
        return file[start..<end].split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
    }

    func testACustomInterpretersNoteIsAMemberUnderItsNameWithItsSummaryAndAttributes() async throws {
        let (file, entry) = try await recorded(cache: "HIT")
        XCTAssertEqual(try cacheMember(file), [
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
        XCTAssertEqual(try cacheMember(file), [
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
