import Foundation
import HTTPCore
import HTTPCoreObservation
import HTTPCoreLoopback
import HTTPCoreTestPeers
import HTTPCoreURLSession
@testable import LokiObserver
import XCTest

/// Loki writes any interpreter's note as fields on the exchange's line, under the attributes'
/// own names, and the note's name in front of one the line already has; a note that reports a
/// failure makes the line a warning, as it does for an LLM call's.
final class LokiObserverNotesTests: XCTestCase {
    /// What the receiver got for a GET of the catalog, answered 200 by a loopback server with
    /// `X-Cache: <cache>` and `Age: 42`, through a `URLSessionClient` whose policy has the
    /// cache interpreter: its only line, the duration shown as `<t>`, its labels, and the request's id.
    private func pushed(cache: String) async throws -> (line: String, labels: [[String: String]], requestID: String, port: UInt16) {
        let receiver = try LokiReceiver()
        defer { receiver.stop() }
        let server = try LoopbackHTTPServer()
        defer { server.stop() }
        server.route("/catalog") { _ in LoopbackResponse(headers: ["X-Cache": cache, "Age": "42"], body: Data("fresh".utf8)) }
        let harness = LokiHarness(receiver: receiver)
        let dispatcher = HTTPEventDispatcher()
        dispatcher.subscribe(LokiObserver(logger: harness.logger))
        let request = HTTPRequest(url: server.url("/catalog"))
        _ = try await URLSessionClient(dispatcher: dispatcher, policy: .default.interpreting(CacheInterpreter())).send(request)
        await dispatcher.flush()
        await harness.logger.flush()
        let received = try await receiver.waitForEntries(1)
        XCTAssertEqual(received.rejections, [])
        let line = try XCTUnwrap(received.lines.first)
            .replacingOccurrences(of: #"duration_ms=[0-9.]+"#, with: "duration_ms=<t>", options: .regularExpression)
        return (line, received.labelSets, request.id.description, server.port)
    }

    private static func labels(level: String) -> [[String: String]] {
        [["app": "checkout", "method": "GET", "status_class": "2xx", "host": "127.0.0.1", "level": level, "kind": "http"]]
    }

    func testACustomInterpretersAttributesAreFieldsAndTheOneTheLineAlreadyHasIsPrefixedByTheNotesName() async throws {
        let (line, labels, id, port) = try await pushed(cache: "HIT")
        XCTAssertEqual(line, "method=GET url=http://127.0.0.1:\(port)/catalog status=200 outcome=succeeded duration_ms=<t>"
            + " request_id=\(id) attempt=1 request_bytes=0 response_bytes=5 cache.status=HIT cache.age=42")
        XCTAssertEqual(labels, Self.labels(level: "info"), "no label per attribute")
    }

    func testANoteThatReportsAFailureMakesA200LineAWarningWhoseStatusClassStays2xx() async throws {
        let (line, labels, id, port) = try await pushed(cache: "ERROR")
        XCTAssertEqual(line, "method=GET url=http://127.0.0.1:\(port)/catalog status=200 outcome=succeeded duration_ms=<t>"
            + " request_id=\(id) attempt=1 request_bytes=0 response_bytes=5 cache.status=ERROR cache.age=42")
        XCTAssertEqual(labels, Self.labels(level: "warning"))
    }

    func testTheNameOfACollidingAttributeIsPrefixedByTheNotesNameInSnakeCase() {
        let note = HTTPExchangeNote(name: "edgeCache", summary: "HIT", attributes: [.init("status", .string("HIT")), .init("age", .int(42))])
        let fields = LokiLineBuilder.noteFields(note, besides: ["status", "url"])
        XCTAssertEqual(fields.map { "\($0.key)=\($0.value)" }, ["edge_cache.status=HIT", "age=42"])
    }
}
