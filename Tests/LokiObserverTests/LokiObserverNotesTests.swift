import Foundation
import HTTPCore
import HTTPCoreObservation
import HTTPCoreTestPeers
@testable import LokiObserver
import XCTest

/// Loki writes any interpreter's note as fields on the exchange's line, under the attributes'
/// own names, and the note's name in front of one the line already has; a note that reports a
/// failure makes the line a warning, as it does for an LLM call's.
final class LokiObserverNotesTests: XCTestCase {
    /// What the receiver got for a GET of the catalog answered 200 with `X-Cache: <cache>` and
    /// `Age: 42`, through a client whose policy has the cache interpreter: its only line, the
    /// duration shown as `<t>`, its labels, and the request's id.
    private func pushed(cache: String) async throws -> (line: String, labels: [[String: String]], requestID: String) {
        try await LokiHarness.onlyLine { try await CacheInterpreter.sendCatalogGET(cache: cache, through: $0, policy: .default) }
    }

    private static func labels(level: String, statusClass: String = "2xx") -> [[String: String]] {
        [["app": "checkout", "method": "GET", "status_class": statusClass, "host": "api.example.com", "level": level, "kind": "http"]]
    }

    func testACustomInterpretersAttributesAreFieldsAndTheOneTheLineAlreadyHasIsPrefixedByTheNotesName() async throws {
        let (line, labels, id) = try await pushed(cache: "HIT")
        XCTAssertEqual(line, "method=GET url=https://api.example.com/catalog status=200 outcome=succeeded duration_ms=<t>"
            + " http_request_id=\(id) attempt=1 request_bytes=0 response_bytes=5 cache.status=HIT cache.age=42")
        XCTAssertEqual(labels, Self.labels(level: "info"), "no label per attribute")
    }

    func testANoteThatReportsAFailureMakesA200LineAFailureAfterItsStatus() async throws {
        let (line, labels, id) = try await pushed(cache: "ERROR")
        XCTAssertEqual(line, "method=GET url=https://api.example.com/catalog status=200 outcome=failed duration_ms=<t>"
            + " http_request_id=\(id) attempt=1 request_bytes=0 response_bytes=5 cache.status=ERROR cache.age=42")
        XCTAssertEqual(labels, Self.labels(level: "error", statusClass: "failed"), "as a body cut short after its 200")
    }

    func testTheNameOfACollidingAttributeIsPrefixedByTheNotesNameInSnakeCase() {
        let note = HTTPExchangeNote(name: "edgeCache", summary: "HIT", attributes: [.init("status", .string("HIT")), .init("age", .int(42))])
        let fields = LokiLineBuilder.noteFields(note, besides: ["status", "url"])
        XCTAssertEqual(fields.map { "\($0.key)=\($0.value)" }, ["edge_cache.status=HIT", "age=42"])
    }
}
