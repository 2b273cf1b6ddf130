import DevSeeObserver
import DevSeeServer
import Foundation
import HTTPCore
import HTTPCoreObservation
import HTTPCoreGenAI
import HTTPCoreTesting
import HTTPCoreURLSession
import XCTest

/// Three server-sent events of an LLM-like answer, the second with a secret in its JSON.
let chatFrames = [
    "event: delta\ndata: {\"t\":\"Hel\"}\n\n",
    "event: delta\nid: 2\ndata: {\"t\":\"lo\",\"api_key\":\"sk-live-123\"}\n\n",
    ": keep-alive\n\nevent: done\ndata: end\n\n",
]

/// Sends `request` through `client` with the streaming `send` while `transport` streams
/// `frames` as its response body, one chunk each; returns the bytes read.
func stream(_ frames: [String], through transport: StreamingMockTransport, client: some HTTPClient, request: HTTPRequest) async throws -> Int {
    async let read = client.send(request, body: nil) { _, body in try await body.collect(upTo: 1 << 20).count }
    let writer = try await transport.nextWriter()
    for frame in frames { try await writer.write(HTTPBody.ByteChunk(frame.utf8)) }
    writer.finish()
    return try await read
}

/// A streamed exchange reaches dev-see as one log per server-sent event, as it arrives, and
/// the exchange's own log with what really went through; all redacted and bounded.
final class DevSeeStreamingTests: XCTestCase {
    /// Streams `transport`'s answer to `POST /v1/chat` through a client observed by a logger
    /// pointed at a fresh receiver, and returns the stored logs once `expectedLogs` arrived:
    /// the message logs sorted by index, then the exchange's.
    private func streamedLogs(
        _ frames: [String] = chatFrames,
        contentType: String = "text/event-stream",
        expectedLogs: Int,
        policy: HTTPCorePolicy = .debug,
        configure: (inout DevSeeLoggerConfiguration) -> Void = { _ in }
    ) async throws -> (messages: [[String: Any]], exchange: [String: Any], requestID: String) {
        let receiver = try DevSeeReceiver()
        defer { receiver.stop() }
        let harness = LoggerHarness(receiver: receiver) { configuration in
            configuration.maxMessageLogsPerExchange = 10
            configure(&configuration)
        }
        let dispatcher = HTTPEventDispatcher()
        dispatcher.subscribe(DevSeeObserver(logger: harness.logger))
        let transport = StreamingMockTransport(headers: ["Content-Type": contentType])
        let client = HTTPTransportClient(transport: transport, dispatcher: dispatcher, policy: policy)
        let request = HTTPRequest(
            method: .post, url: URL(string: "https://api.example.com/v1/chat?key=S3CR3T")!, headers: ["X-Request-ID": "corr-7"],
            body: Data(#"{"prompt":"hi"}"#.utf8)
        )
        let read = try await stream(frames, through: transport, client: client, request: request)
        XCTAssertEqual(read, frames.joined().utf8.count)
        await dispatcher.flush()
        await harness.logger.flush()
        try await receiver.waitForLogs(count: expectedLogs)
        XCTAssertEqual(receiver.rejections.count, 0)
        let logs = receiver.storedObjects()
        XCTAssertEqual(logs.count, expectedLogs)
        let messages = logs.filter { $0["streamMessage"] != nil }
            .sorted { (($0["streamMessage"] as? [String: Any])?["index"] as? Int ?? 0) < (($1["streamMessage"] as? [String: Any])?["index"] as? Int ?? 0) }
        let exchange = try XCTUnwrap(logs.first { $0["streamMessage"] == nil })
        return (messages, exchange, request.id.description)
    }

    /// A message row's duration is the time since the message before it arrived (0 for one
    /// that came in the same read); the first's is the time since the request started.
    func testAMessageRowsDurationIsTheGapSinceTheMessageBeforeIt() async throws {
        let frames = ["data: one\n\ndata: two\n\n", "data: three\n\n"]
        let (messages, _, _) = try await streamedLogs(frames, expectedLogs: 4)
        let durations = messages.map { $0["duration"] as? Double }
        XCTAssertEqual(durations.count, 3)
        XCTAssertGreaterThan(durations[0] ?? 0, 0, "from the request's start to the first message")
        XCTAssertEqual(durations[1], 0, "two came in the same read as one")
    }

    func testEachServerSentEventIsALogOfItsOwnTiedToItsRequest() async throws {
        let (messages, exchange, requestID) = try await streamedLogs(expectedLogs: 4)
        XCTAssertEqual(messages.count, 3)
        let url = "https://api.example.com/v1/chat?key=[REDACTED]"
        XCTAssertEqual(messages.map { $0["url"] as? String }, (0..<3).map { "\(url)#message-\($0)" })
        XCTAssertEqual(messages.map { $0["responseBody"] as? String }, [
            #"{"t":"Hel"}"#, #"{"t":"lo","api_key":"[REDACTED]"}"#, "end",
        ])
        XCTAssertEqual(messages.map { $0["streamMessage"] as? NSDictionary }, [
            ["index": 0, "kind": "sse", "event": "delta", "byteCount": 32],
            ["index": 1, "kind": "sse", "event": "delta", "eventId": "2", "byteCount": 61],
            ["index": 2, "kind": "sse", "event": "done", "byteCount": 23],
        ])
        for message in messages {
            XCTAssertEqual(message["type"] as? String, "api_log")
            XCTAssertEqual(message["method"] as? String, "POST #\((message["streamMessage"] as? [String: Any])?["index"] as? Int ?? -1)", "the list tells it from the exchange's row")
            XCTAssertEqual(message["statusCode"] as? Int, 200)
            XCTAssertEqual(message["requestId"] as? String, requestID)
            XCTAssertEqual(message["correlationId"] as? String, "corr-7")
            // Timed from the attempt's start, which came with the `received` event, to the
            // message's arrival, its `timestamp`.
            let duration = try XCTUnwrap(message["duration"] as? Double)
            XCTAssertGreaterThan(duration, 0)
            let arrival = try XCTUnwrap(message["timestamp"] as? Double)
            XCTAssertGreaterThanOrEqual(arrival - duration, (exchange["timestamp"] as? Double ?? .infinity) - 1)
            XCTAssertNil(message["requestBody"], "the exchange's log carries the request")
            XCTAssertNil(message["streamed"])
        }

        XCTAssertEqual(exchange["url"] as? String, url)
        XCTAssertEqual(exchange["requestId"] as? String, requestID)
        XCTAssertEqual(exchange["streamed"] as? Bool, true)
        XCTAssertEqual(exchange["requestBodyBytes"] as? Int, 15)
        XCTAssertEqual(exchange["responseBodyBytes"] as? Int, 130)
        XCTAssertEqual(exchange["streamMessageCount"] as? Int, 3)
        XCTAssertEqual(exchange["unloggedStreamMessageCount"] as? Int, 0)
        let body = try XCTUnwrap(exchange["responseBody"] as? String)
        // The answer first (no known LLM shape: the messages' data), then the events.
        XCTAssertTrue(body.hasPrefix(
            "[stream] 3 messages in 130 bytes, their data:\n{\"t\":\"Hel\"}\n{\"t\":\"lo\",\"api_key\":\"[REDACTED]\"}\nend\n\n[events]\nevent: delta\ndata: {\"t\":\"Hel\"}\n\n"
        ), body)
        XCTAssertFalse(messages.description.contains("sk-live-123"))
        XCTAssertFalse(body.contains("sk-live-123"), body)
    }

    func testMessageLogsStopAtTheConfiguredCountAndTheExchangeLogCountsTheRest() async throws {
        let (messages, exchange, _) = try await streamedLogs(expectedLogs: 2) { $0.maxMessageLogsPerExchange = 1 }
        XCTAssertEqual(messages.map { $0["responseBody"] as? String }, [#"{"t":"Hel"}"#])
        XCTAssertEqual(exchange["streamMessageCount"] as? Int, 3)
        XCTAssertEqual(exchange["unloggedStreamMessageCount"] as? Int, 2)
        XCTAssertTrue((exchange["responseBody"] as? String)?.hasPrefix("[stream] 3 messages in 130 bytes, 2 without a log of their own, their data:\n") == true)
    }

    func testMessagesAreCutAtThePolicyAndTheLoggerCaps() async throws {
        var policy = HTTPCorePolicy.debug
        policy.streamMessages = HTTPCorePolicy.StreamMessageCapture(maxCount: 2, maxBytes: 8)
        let (messages, exchange, _) = try await streamedLogs(expectedLogs: 3, policy: policy)
        XCTAssertEqual(messages.map { $0["responseBody"] as? String }, [
            #"{"t":"He…[truncated: 32 bytes in all]"#, #"{"t":"lo…[truncated: 61 bytes in all]"#,
        ])
        XCTAssertEqual(exchange["streamMessageCount"] as? Int, 3)
        XCTAssertEqual(exchange["unloggedStreamMessageCount"] as? Int, 1, "the policy emitted two of three")

        let (small, _, _) = try await streamedLogs(expectedLogs: 4) { $0.maxBodyBytes = 4 }
        XCTAssertEqual(small.map { $0["responseBody"] as? String }, [
            #"{"t"…[truncated: 32 bytes in all]"#, #"{"t"…[truncated: 61 bytes in all]"#, "end",
        ])
    }

    func testJSONLinesAreMessagesToo() async throws {
        let frames = ["{\"n\":1}\n{\"n\":2,", "\"password\":\"pw\"}\n"]
        let (messages, exchange, _) = try await streamedLogs(frames, contentType: "application/x-ndjson", expectedLogs: 3)
        XCTAssertEqual(messages.map { $0["responseBody"] as? String }, [#"{"n":1}"#, #"{"n":2,"password":"[REDACTED]"}"#])
        XCTAssertEqual(messages.map { $0["streamMessage"] as? NSDictionary }, [
            ["index": 0, "kind": "jsonl", "byteCount": 8], ["index": 1, "kind": "jsonl", "byteCount": 24],
        ])
        XCTAssertEqual(exchange["streamMessageCount"] as? Int, 2)
    }

    func testALoggerStricterThanThePolicyLeavesEveryFieldOfAMessageLogAsThePolicyExposedIt() async throws {
        let frames = [
            "event: delta\nid: 3f9a1c0e8b7d6a5f4e3d\ndata: {\"t\":\"Hel\",\"n\":1}\n\n",
            "event: done\ndata: end\n\n",
        ]
        let (messages, exchange, _) = try await streamedLogs(frames, expectedLogs: 3) { configuration in
            configuration.redactor = Redactor(level: .strict)
        }
        // What the `.debug` policy (`.standard`) exposes; `.strict` would mask each of them.
        XCTAssertEqual(messages.map { ($0["streamMessage"] as? [String: Any])?["eventId"] as? String }, ["3f9a1c0e8b7d6a5f4e3d", nil])
        XCTAssertEqual(messages.map { ($0["streamMessage"] as? [String: Any])?["event"] as? String }, ["delta", "done"])
        XCTAssertEqual(messages.map { $0["responseBody"] as? String }, [#"{"t":"Hel","n":1}"#, "end"])
        for log in messages + [exchange] {
            XCTAssertEqual(log["correlationId"] as? String, "corr-7")
        }
        let url = "https://api.example.com/v1/chat?key=[REDACTED]"
        XCTAssertEqual(messages.map { $0["url"] as? String }, [url + "#message-0", url + "#message-1"])
        XCTAssertEqual(exchange["url"] as? String, url)
    }

    /// dev-see's buffer arithmetic: it keeps the last 1,000 logs. By default a 1,000-event
    /// stream is one log, so the 50 rows before it stay in the viewer.
    func testALongStreamLeavesTheRowsBeforeItInTheViewersLastThousand() async throws {
        let receiver = try DevSeeReceiver()
        defer { receiver.stop() }
        let harness = LoggerHarness(receiver: receiver)
        let dispatcher = HTTPEventDispatcher()
        dispatcher.subscribe(DevSeeObserver(logger: harness.logger))
        let earlier = HTTPTransportClient(transport: MockTransport(), dispatcher: dispatcher, policy: .debug)
        for index in 0..<50 { _ = try await earlier.send(HTTPRequest(url: URL(string: "https://api.example.com/rows/\(index)")!)) }
        let transport = StreamingMockTransport(headers: ["Content-Type": "text/event-stream"])
        let streaming = HTTPTransportClient(transport: transport, dispatcher: dispatcher, policy: .debug.interpreting(.genAI))
        let read = Task { try await streaming.send(HTTPRequest(url: URL(string: "https://api.example.com/v1/chat")!), body: nil) { _, body in try await body.collect(upTo: 1 << 24).count } }
        let writer = try await transport.nextWriter()
        for index in 0..<1_000 { try await writer.write(HTTPBody.ByteChunk("data: {\"choices\":[{\"delta\":{\"content\":\"\(index) \"}}]}\n\n".utf8)) }
        writer.finish()
        _ = try await read.value
        await dispatcher.flush()
        await harness.logger.flush()
        try await receiver.waitForLogs(count: 51)

        // What the viewer loads: the server's last 1,000 entries.
        let data = try await URLSessionClient().send(HTTPRequest(url: receiver.baseURL.appendingPathComponent("api/logs"))).body
        let shown = try XCTUnwrap((JSONSerialization.jsonObject(with: data) as? [String: Any])?["logs"] as? [[String: Any]])
        XCTAssertEqual(shown.count, 51)
        let urls = Set(shown.compactMap { $0["url"] as? String })
        XCTAssertTrue((0..<50).allSatisfy { urls.contains("https://api.example.com/rows/\($0)") }, "the 50 rows before the stream are still shown")
        let stream = try XCTUnwrap(shown.first { ($0["url"] as? String)?.hasSuffix("/v1/chat") ?? false })
        XCTAssertEqual(stream["streamMessageCount"] as? Int, 1_000)
        XCTAssertTrue((stream["responseBody"] as? String)?.hasPrefix("[stream] 1000 messages in ") ?? false)
        XCTAssertEqual((stream["streamAnswer"] as? String)?.hasPrefix("0 1 2 3 "), true)
    }
}
