import Foundation
import HTTPCore
import HTTPCoreObservation
import HTTPCoreGenAI
import HTTPCoreHAR
import HTTPCoreTesting
import XCTest

/// A streamed exchange is one entry with its real sizes, its captured text, and its
/// server-sent events or JSON lines as Chrome DevTools keeps them; all redacted and bounded.
final class HARStreamingTests: XCTestCase {
    private static let chatFrames = [
        "event: delta\ndata: {\"t\":\"Hel\"}\n\n",
        "event: delta\nid: 2\ndata: {\"t\":\"lo\",\"api_key\":\"sk-live-123\"}\n\n",
        ": keep-alive\n\nevent: done\ndata: end\n\n",
    ]

    /// Streams `frames` as the answer to `POST /v1/chat` through a client observed by
    /// `recorder`, writes the file, has haralyzer read it, and returns its only entry as JSON
    /// and as haralyzer read it.
    private func recordedEntry(
        _ frames: [String] = chatFrames,
        contentType: String = "text/event-stream",
        recorder: HARRecorder = HARRecorder(),
        policy: HTTPCorePolicy = .debug
    ) async throws -> (json: [String: Any], consumer: HARConsumer.Entry, file: Data) {
        let dispatcher = HTTPEventDispatcher()
        dispatcher.subscribe(recorder)
        let transport = StreamingMockTransport(headers: ["Content-Type": contentType])
        let client = HTTPTransportClient(transport: transport, dispatcher: dispatcher, policy: policy)
        let request = HTTPRequest(method: .post, url: URL(string: "https://api.example.com/v1/chat")!, body: Data(#"{"prompt":"hi"}"#.utf8))
        async let read = client.send(request, body: nil) { _, body in try await body.collect(upTo: 1 << 20).count }
        let writer = try await transport.nextWriter()
        for frame in frames { try await writer.write(HTTPBody.ByteChunk(frame.utf8)) }
        writer.finish()
        let count = try await read
        XCTAssertEqual(count, frames.joined().utf8.count)
        await dispatcher.flush()

        let url = FileManager.default.temporaryDirectory.appendingPathComponent("har-stream-\(UUID().uuidString).har")
        defer { try? FileManager.default.removeItem(at: url) }
        try recorder.write(to: url)
        let consumer = try HARConsumer.check(url)
        XCTAssertEqual(consumer.errors, [], "HAR 1.2 rules")
        let file = try Data(contentsOf: url)
        let entries = try HARFile.entries(of: file)
        XCTAssertEqual(entries.count, 1)
        XCTAssertEqual(consumer.entries.count, 1)
        return (entries[0], consumer.entries[0], file)
    }

    /// The messages of an entry without their times, which are checked apart.
    private func untimed(_ messages: Any?) throws -> [NSDictionary] {
        let list = try XCTUnwrap(messages as? [[String: Any]])
        for message in list { XCTAssertGreaterThan(message["time"] as? Double ?? 0, 1_700_000_000, "seconds since 1970") }
        return list.map { $0.filter { $0.key != "time" } as NSDictionary }
    }

    func testServerSentEventsAreEventSourceMessagesBesideTheCapturedTextAndRealSize() async throws {
        let (entry, consumer, file) = try await recordedEntry()
        XCTAssertEqual(consumer.contentSize, 130, "the bytes that went through")
        XCTAssertEqual(consumer.responseBodySize, 130)
        XCTAssertEqual(consumer.text, "event: delta\ndata: {\"t\":\"Hel\"}\n\nevent: delta\nid: 2\ndata: {\"t\":\"lo\",\"api_key\":\"[REDACTED]\"}\n\n: keep-alive\n\nevent: done\ndata: end\n\n")
        XCTAssertEqual(consumer.requestBodySize, 15)
        XCTAssertEqual(entry["_streamed"] as? Bool, true)
        XCTAssertEqual(entry["_streamMessageCount"] as? Int, 3)
        XCTAssertEqual(entry["_droppedStreamMessages"] as? Int, 0)
        XCTAssertNil(entry["_jsonLines"])
        XCTAssertEqual(entry["_streamAnswer"] as? NSDictionary, ["shape": "data", "text": "{\"t\":\"Hel\"}\n{\"t\":\"lo\",\"api_key\":\"[REDACTED]\"}\nend"])
        XCTAssertEqual(try untimed(entry["_eventSourceMessages"]), [
            ["eventName": "delta", "eventId": "", "data": #"{"t":"Hel"}"#],
            ["eventName": "delta", "eventId": "2", "data": #"{"t":"lo","api_key":"[REDACTED]"}"#],
            ["eventName": "done", "eventId": "", "data": "end"],
        ])
        XCTAssertFalse(String(decoding: file, as: UTF8.self).contains("sk-live-123"))
    }

    func testTheTextIsTheCapturedBeginningAndMessagesAreBoundedPerEntry() async throws {
        var policy = HTTPCorePolicy(bodyCapture: .captured(maxBytes: 20))
        policy.streamMessages = HTTPCorePolicy.StreamMessageCapture(maxCount: 3, maxBytes: 6)
        let (entry, consumer, _) = try await recordedEntry(recorder: HARRecorder(maxStreamMessagesPerEntry: 2), policy: policy)
        XCTAssertEqual(consumer.contentSize, 130)
        XCTAssertEqual(consumer.text, "event: delta\ndata: {")
        let content = try XCTUnwrap((entry["response"] as? [String: Any])?["content"] as? [String: Any])
        XCTAssertEqual(content["comment"] as? String, "body of 130 bytes cut at the client's HTTPCorePolicy capture limit: text is its beginning")
        XCTAssertEqual(content["_truncated"] as? Bool, true)
        XCTAssertEqual(entry["_streamMessageCount"] as? Int, 3)
        XCTAssertEqual(entry["_droppedStreamMessages"] as? Int, 1, "the recorder keeps two per entry")
        XCTAssertEqual(try untimed(entry["_eventSourceMessages"]), [
            ["eventName": "delta", "eventId": "", "data": #"{"t":""#, "_truncated": true],
            ["eventName": "delta", "eventId": "2", "data": #"{"t":""#, "_truncated": true],
        ])
    }

    func testJSONLinesAreJSONLinesMessages() async throws {
        let frames = ["{\"n\":1}\n{\"n\":2,", "\"password\":\"pw\"}\n"]
        let (entry, consumer, _) = try await recordedEntry(frames, contentType: "application/x-ndjson")
        XCTAssertEqual(consumer.contentSize, 32)
        XCTAssertEqual(entry["_streamMessageCount"] as? Int, 2)
        XCTAssertNil(entry["_eventSourceMessages"])
        XCTAssertEqual(try untimed(entry["_jsonLines"]), [["data": #"{"n":1}"#], ["data": #"{"n":2,"password":"[REDACTED]"}"#]])
    }

    func testAnLLMStreamHasItsGeneratedTextAsTheAnswer() async throws {
        let frames = [
            "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"Hello\"}}\n\n",
            "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\", Ann.\"}}\n\n",
            "event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n",
        ]
        let (entry, _, _) = try await recordedEntry(frames, policy: .debug.interpreting(.genAI))
        XCTAssertEqual(entry["_streamAnswer"] as? NSDictionary, ["shape": "Anthropic", "text": "Hello, Ann."])
        let (plain, _, _) = try await recordedEntry(frames)
        XCTAssertEqual((plain["_streamAnswer"] as? NSDictionary)?["shape"] as? String, "data", "without the interpreter, the messages' data")
    }

    func testAStreamedDownloadWithoutMessagesIsMarkedStreamedOnly() async throws {
        let (entry, consumer, _) = try await recordedEntry(["abc", "defg"], contentType: "application/octet-stream")
        XCTAssertEqual(consumer.contentSize, 7)
        XCTAssertEqual(consumer.text, "abcdefg")
        XCTAssertEqual(entry["_streamed"] as? Bool, true)
        XCTAssertNil(entry["_streamMessageCount"])
        XCTAssertNil(entry["_eventSourceMessages"])
        XCTAssertNil(entry["_streamAnswer"])
    }

    func testMessagesAreKeptForAtMostCapacityOpenStreamsTheOldestForgotten() async throws {
        let dispatcher = HTTPEventDispatcher()
        let recorder = HARRecorder(capacity: 1)
        let events = RecordingObserver()
        dispatcher.subscribe(recorder)
        dispatcher.subscribe(events)
        let transport = StreamingMockTransport(headers: ["Content-Type": "text/event-stream"])
        let client = HTTPTransportClient(transport: transport, dispatcher: dispatcher, policy: .debug)
        let first = HTTPRequest(url: URL(string: "https://api.example.com/first")!)
        let second = HTTPRequest(url: URL(string: "https://api.example.com/second")!)

        async let readFirst = client.send(first, body: nil) { _, body in try await body.collect(upTo: 1 << 20).count }
        let firstWriter = try await transport.nextWriter()
        try await firstWriter.write(HTTPBody.ByteChunk("data: one\n\n".utf8))
        try await events.waitForEvents(count: 4)  // created, started, received, message
        async let readSecond = client.send(second, body: nil) { _, body in try await body.collect(upTo: 1 << 20).count }
        let secondWriter = try await transport.nextWriter()
        try await secondWriter.write(HTTPBody.ByteChunk("data: two\n\n".utf8))
        try await events.waitForEvents(count: 8)
        await dispatcher.flush()
        secondWriter.finish()
        _ = try await readSecond
        firstWriter.finish()
        _ = try await readFirst
        await dispatcher.flush()

        XCTAssertEqual(recorder.droppedCount, 1, "the second exchange's entry, which ended first")
        let entries = try HARFile.entries(of: recorder.harDocument())
        XCTAssertEqual(entries.count, 1)
        XCTAssertEqual((entries[0]["request"] as? [String: Any])?["url"] as? String, "https://api.example.com/first")
        XCTAssertEqual(entries[0]["_streamMessageCount"] as? Int, 1)
        XCTAssertEqual(entries[0]["_droppedStreamMessages"] as? Int, 1, "forgotten when the second stream opened")
        XCTAssertNil(entries[0]["_eventSourceMessages"])
    }
}
