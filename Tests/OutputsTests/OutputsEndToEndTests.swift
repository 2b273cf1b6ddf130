import DevSeeObserver
import DevSeeServer
import Foundation
import HTTPCore
import HTTPCoreObservation
import HTTPCoreGenAI
import HTTPCoreConcurrency
import HTTPCoreHAR
import HTTPCoreLoopback
import HTTPCoreTestEnd
import HTTPCoreTestPeers
import HTTPCoreURLSession
import LokiObserver
import XCTest

/// Each class of exchange, made for real over loopback through `URLSessionClient`, as every
/// output shows it at once: the dev-see viewer's log, the HAR entry, the Loki line and the
/// console. What a person debugging an incident from these outputs alone would read.
final class OutputsEndToEndTests: XCTestCase {
    private static func response(of entry: [String: Any]) -> [String: Any] { entry["response"] as? [String: Any] ?? [:] }

    func testAStreamedLLMCallReadsAsOneEntryWithItsAnswerInEveryOutput() async throws {
        let outputs = try Outputs()
        defer { outputs.stop() }
        let chunks = ["Hel", "lo, ", "world"].map { #"data: {"choices":[{"index":0,"delta":{"content":"\#($0)"}}]}"# + "\n\n" }
        outputs.api.route("POST", "/v1/chat/completions", streaming: { _, writer in
            try writer.writeHead(headers: ["Content-Type": "text/event-stream"], framing: .chunked)
            for chunk in chunks + ["data: [DONE]\n\n"] { try writer.write(chunk) }
        })
        let request = HTTPRequest(
            method: .post, url: outputs.api.url("/v1/chat/completions"), headers: ["Content-Type": "application/json"],
            body: Data(#"{"model":"gpt-4o","stream":true}"#.utf8)
        )
        let policy = HTTPCorePolicy.debug.interpreting(.genAI)
        let read = try await outputs.client(policy: policy).send(request, body: nil) { _, body in try await body.collect(upTo: 1 << 20).count }
        let shown = try await outputs.shown(logs: 1, lines: 1)

        XCTAssertEqual(shown.devSee.count, 1, "one log for the exchange, none per message")
        let body = try XCTUnwrap(shown.devSee.first?["responseBody"] as? String)
        XCTAssertTrue(body.hasPrefix("[stream] 4 messages in \(read) bytes, the OpenAI chat answer:\nHello, world\n\n[events]"), body)
        let answer = try XCTUnwrap(shown.har.first?["_streamAnswer"] as? [String: Any])
        XCTAssertEqual(answer["shape"] as? String, "OpenAI chat")
        XCTAssertEqual(answer["text"] as? String, "Hello, world")
        XCTAssertEqual(shown.loki.count, 1)
        XCTAssertTrue(shown.loki[0].contains(#" answer_shape="OpenAI chat" answer="Hello, world""#), shown.loki[0])
        let printed = shown.console.joined(separator: "\n")
        XCTAssertTrue(printed.contains("  answer (OpenAI chat, 4 messages):\n    Hello, world"), printed)
    }

    func testABodyCutAfterA200LooksLikeAFailureInEveryOutput() async throws {
        let outputs = try Outputs()
        defer { outputs.stop() }
        outputs.api.route("/export") { _ in
            var response = LoopbackResponse.text(String(repeating: "x", count: 1000))
            response.fault = .closeAfterBodyBytes(10)
            return response
        }
        let result = try? await outputs.client().send(HTTPRequest(url: outputs.api.url("/export")), body: nil) { _, body in
            try await body.collect(upTo: 1 << 20).count
        }
        XCTAssertNil(result, "the body broke: the call failed")
        let shown = try await outputs.shown(logs: 1, lines: 1)

        XCTAssertEqual(shown.devSee.first?["method"] as? String, "GET failed after 200")
        XCTAssertEqual(shown.devSee.first?["statusCode"] as? Int, 599)
        let entry = try XCTUnwrap(shown.har.first)
        XCTAssertEqual(Self.response(of: entry)["status"] as? Int, 200)
        XCTAssertEqual(Self.response(of: entry)["_errorType"] as? String, "connection_lost")
        XCTAssertEqual(entry["_outcome"] as? String, "failed")
        XCTAssertTrue(shown.loki[0].contains(" status=200 outcome=failed "), shown.loki[0])
        let labels = try await outputs.loki.waitForEntries(1).labelSets
        XCTAssertEqual(labels.first?["level"], "error")
        XCTAssertEqual(labels.first?["status_class"], "failed")
        let block = try XCTUnwrap(shown.console.last)
        XCTAssertTrue(block.contains("[RESPONSE] 200 "), block)
        XCTAssertTrue(block.split(separator: "\n").last?.hasPrefix("[FAILED] after status 200: transport error [connection_lost]: ") ?? false, block)
    }

    func testEachAttemptOfARetriedRequestSaysWhichItWas() async throws {
        let outputs = try Outputs()
        defer { outputs.stop() }
        outputs.api.route("/flaky", answering: [.text("busy", status: 503), .text("ok")])
        let retry = RetryMiddleware(backoff: Backoff(initial: 0, maximum: 0, jitter: .none))
        _ = try await outputs.client(middlewares: [retry]).send(HTTPRequest(url: outputs.api.url("/flaky")))
        let shown = try await outputs.shown(logs: 2, lines: 2)

        let rows = shown.devSee.map { "\($0["method"] as? String ?? "") \($0["statusCode"] as? Int ?? 0)" }
        XCTAssertEqual(rows, ["GET attempt 1 503", "GET attempt 2 200"], "in order, each saying which attempt it was")
        let last = try XCTUnwrap(shown.devSee.last?["responseBody"] as? String)
        XCTAssertTrue(last.hasPrefix("[attempt 2, the last: the exchange took "), last)
        XCTAssertEqual(shown.har.map { $0["_attempt"] as? Int }, [1, 2])
        XCTAssertEqual(shown.har.map { Self.response(of: $0)["status"] as? Int }, [503, 200])
        let outcomes = shown.loki.map { line in line.split(separator: " ").first { $0.hasPrefix("outcome=") }.map(String.init) }
        XCTAssertEqual(Set(outcomes), ["outcome=retried", "outcome=succeeded"])
        let blocks = shown.console.filter { $0.hasPrefix("[REQUEST]") }
        XCTAssertEqual(blocks.map { $0.split(separator: "\n").last.map(String.init) }, ["[RETRIED] attempt 1, another followed", "[ATTEMPT 2] the last"])
    }
}
