import DevSeeObserver
import DevSeeServer
import Foundation
import HTTPCore
import HTTPCoreGenAI
import HTTPCoreLoopback
import HTTPCoreObservation
import HTTPCoreURLSession
import XCTest

/// The answer a stream's log shows (`StreamAnswer`), for streams a loopback server sends
/// through `URLSessionClient` under the GenAI interpreter: its shape is read from what the
/// messages carry, plain data lines keep their place in it, and an answer that could not be
/// assembled is said in words.
final class DevSeeStreamAnswerTests: XCTestCase {
    /// The exchange's log dev-see stored for `events`, sent as one chunk each as the answer to
    /// `POST /v1/chat/completions`.
    private func streamLog(_ events: [String]) async throws -> [String: Any] {
        let server = try LoopbackHTTPServer()
        defer { server.stop() }
        server.route("POST", "/v1/chat/completions", streaming: { _, writer in
            try writer.writeHead(headers: ["Content-Type": "text/event-stream"], framing: .chunked)
            for event in events { try writer.write(event) }
        })
        let receiver = try DevSeeReceiver()
        defer { receiver.stop() }
        let harness = LoggerHarness(receiver: receiver)
        let dispatcher = HTTPEventDispatcher()
        dispatcher.subscribe(DevSeeObserver(logger: harness.logger))
        let client = URLSessionClient(dispatcher: dispatcher, policy: .debug.interpreting(.genAI))
        let request = HTTPRequest(method: .post, url: server.url("/v1/chat/completions"), body: Data(#"{"stream":true}"#.utf8))
        let read = try await client.send(request, body: nil) { _, body in try await body.collect(upTo: 1 << 20).count }
        XCTAssertEqual(read, events.joined().utf8.count)
        await dispatcher.flush()
        await harness.logger.flush()
        try await receiver.waitForLogs(count: 1)
        XCTAssertEqual(receiver.rejections.count, 0, "dev-see accepts the log")
        return try receiver.onlyLog()
    }

    /// The response body's lines from the `[stream]` line to `[events]`, both included: the
    /// note the viewer shows above the events.
    private func streamNote(_ log: [String: Any]) throws -> String {
        let body = try XCTUnwrap(log["responseBody"] as? String)
        let start = try XCTUnwrap(body.range(of: "[stream] "), body)
        let end = try XCTUnwrap(body.range(of: "[events]", range: start.upperBound..<body.endIndex), body)
        return String(body[start.lowerBound..<end.upperBound])
    }

    func testEventsNamedLikeTGIButNotInItsStructureShowTheirDataNotAnEmptyTGIAnswer() async throws {
        let events = ["data: {\"token\":\"t0\"}\n\n", "data: {\"token\":\"t1\"}\n\n"]
        let log = try await streamLog(events)
        XCTAssertEqual(log["streamAnswerShape"] as? String, StreamAnswer.dataShape)
        let data = "{\"token\":\"[REDACTED]\"}\n{\"token\":\"[REDACTED]\"}"
        XCTAssertEqual(log["streamAnswer"] as? String, data, "the debug policy masks a token key's value")
        XCTAssertEqual(try streamNote(log), "[stream] 2 messages in \(events.joined().utf8.count) bytes, their data:\n\(data)\n\n[events]")
    }

    func testAStreamFromWhichNoAnswerTextCanBeAssembledSaysSoInWords() async throws {
        // A tool call: OpenAI chat chunks that carry arguments, never content.
        let events = [
            "data: {\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":null}}]}\n\n",
            "data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"function\":{\"name\":\"weather\",\"arguments\":\"{}\"}}]}}]}\n\n",
            "data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"tool_calls\"}]}\n\n",
            "data: [DONE]\n\n",
        ]
        let log = try await streamLog(events)
        XCTAssertEqual(log["streamAnswerShape"] as? String, "OpenAI chat")
        XCTAssertEqual(log["streamAnswer"] as? String, "")
        XCTAssertEqual(
            try streamNote(log),
            "[stream] 4 messages in \(events.joined().utf8.count) bytes, no answer text could be assembled from them (OpenAI chat)\n\n[events]"
        )
    }

    func testPlainDataLinesInAnOpenAIStreamAreInTheAnswerInTheirPlace() async throws {
        let events = [
            "data: {\"choices\":[{\"delta\":{\"content\":\"Hel\"}}]}\n\n",
            "data: plain one\n\n",
            "data: {\"choices\":[{\"delta\":{\"content\":\"lo\"}}]}\n\n",
            "data: {\"choices\":[{\"delta\":{\"content\":\" there\"}}]}\n\n",
            "data: plain two\n\n",
            "data: [DONE]\n\n",
        ]
        let log = try await streamLog(events)
        XCTAssertEqual(log["streamAnswerShape"] as? String, "OpenAI chat")
        let answer = "Hel\nplain one\nlo there\nplain two"
        XCTAssertEqual(log["streamAnswer"] as? String, answer, "the end marker is OpenAI's, not a line of data")
        XCTAssertEqual(try streamNote(log), "[stream] 6 messages in \(events.joined().utf8.count) bytes, the OpenAI chat answer:\n\(answer)\n\n[events]")
    }
}
