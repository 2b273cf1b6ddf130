import Foundation
import HTTPCore
import HTTPCoreConcurrency
import HTTPCoreObservation
import HTTPCoreTestPeers
import HTTPCoreHAR
import XCTest

/// A HAR entry carries any interpreter's note as a member `_<name>`, as an LLM call's `_genAI`:
/// its `summary` and its `attributes`, and the file stays valid HAR 1.2.
final class HARRecorderNotesTests: XCTestCase {
    /// The document `HARRecorder` made for a GET of the catalog answered `status` with
    /// `X-Cache: <cache>`, `Age: 42` and `fresh`, through a client whose policy has the cache
    /// interpreter; and its only entry.
    private func recorded(cache: String, status: Int = 200) async throws -> (file: String, entry: [String: Any]) {
        let recorder = HARRecorder()
        let dispatcher = HTTPEventDispatcher()
        dispatcher.subscribe(recorder)
        try await CacheInterpreter.sendCatalogGET(cache: cache, status: status, through: dispatcher)
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

    func testANoteThatReportsAFailureMakesA200EntryReadAsFailedAfterItsStatus() async throws {
        // As HAR marks an exchange that failed after its status came: `_outcome`, the comment,
        // and the response's `_error` and `_errorType`, which say the note and whose it is.
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
        XCTAssertEqual(entry["_outcome"] as? String, "failed")
        XCTAssertEqual(entry["comment"] as? String, "failed after status 200: cache: ERROR, age 42")
        let response = try XCTUnwrap(entry["response"] as? [String: Any])
        XCTAssertEqual(response["status"] as? Int, 200)
        XCTAssertEqual(response["statusText"] as? String, "(failed) cache: ERROR, age 42")
        XCTAssertEqual(response["_error"] as? String, "cache: ERROR, age 42")
        XCTAssertEqual(response["_errorType"] as? String, "cache")
        try checkHAR12(file)
    }

    func testANoteUnderAnErrorStatusAddsNoFailureTheStatusShowsAlready() async throws {
        let (_, entry) = try await recorded(cache: "ERROR", status: 503)
        XCTAssertEqual((entry["response"] as? [String: Any])?["status"] as? Int, 503)
        XCTAssertEqual(entry["_outcome"] as? String, "succeeded")
        XCTAssertNil(entry["comment"])
        XCTAssertNil((entry["response"] as? [String: Any])?["_error"])
    }

    func testAnEntrysNotesAreMadeOnceHoweverManyDocumentsAreBuilt() throws {
        let made = Locked(0)
        let request = HTTPRequest(url: URL(string: "https://api.example.com/catalog")!)
        let response = HTTPResponse(requestID: request.id, statusCode: 200, headers: [:], body: Data("fresh".utf8), url: request.url)
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        let recorder = HARRecorder()
        recorder.handle(.requestSucceeded(response, to: request, startedAt: start, endedAt: start + 1, attachments: [CountedAttachment(made: made)]))
        XCTAssertEqual(made.withLock { $0 }, 0, "handle made no note")
        let first = recorder.harDocument()
        let second = recorder.harDocument()
        XCTAssertEqual(made.withLock { $0 }, 1, "the second document reused the first one's note")
        XCTAssertEqual(first, second)
        XCTAssertEqual((try XCTUnwrap(HARFile.entries(of: second).first)["_counted"] as? [String: Any])?["summary"] as? String, "note 1")
    }
}

/// An attachment that counts the notes made of it, each summarized by its number.
private struct CountedAttachment: HTTPExchangeAttachment {
    let made: Locked<Int>

    func note(redactedBy redactor: Redactor) -> HTTPExchangeNote {
        let number = made.withLock { made in
            made += 1
            return made
        }
        return HTTPExchangeNote(name: "counted", summary: "note \(number)")
    }
}
