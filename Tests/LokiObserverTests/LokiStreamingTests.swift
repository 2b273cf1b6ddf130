import Foundation
import HTTPCore
import HTTPCoreObservation
import HTTPCoreGenAI
import HTTPCoreTesting
import LokiObserver
import XCTest
import HTTPCoreTestPeers

/// A streamed exchange is one line with its real sizes, and each of its server-sent events or
/// JSON lines a line of its own in the `http_message` stream; redacted and bounded.
final class LokiStreamingTests: XCTestCase {
    private static let chatFrames = [
        "event: delta\ndata: {\"t\":\"Hel\"}\n\n",
        "event: delta\nid: 2\ndata: {\"t\":\"lo\",\"api_key\":\"sk-live-123\"}\n\n",
        ": keep-alive\n\nevent: done\ndata: end\n\n",
    ]

    /// Streams `frames` as the answer to `POST /v1/chat` through a client observed by a
    /// `LokiObserver`, and returns what the receiver got once `expectedLines` arrived, with
    /// the request's id.
    private func pushed(
        _ frames: [String] = chatFrames,
        contentType: String = "text/event-stream",
        expectedLines: Int,
        policy: HTTPCorePolicy = .debug,
        metadata: [String: String] = [:],
        configure: (inout LokiConfiguration) -> Void = { _ in }
    ) async throws -> (received: LokiReceiver.Received, requestID: String) {
        let receiver = try LokiReceiver()
        defer { receiver.stop() }
        let harness = LokiHarness(receiver: receiver) { configuration in
            // Message lines are opt-in; these tests look at them.
            configuration.maxMessageLinesPerExchange = 10
            configure(&configuration)
        }
        let dispatcher = HTTPEventDispatcher()
        dispatcher.subscribe(LokiObserver(logger: harness.logger))
        let transport = StreamingMockTransport(headers: ["Content-Type": contentType])
        let client = HTTPTransportClient(transport: transport, dispatcher: dispatcher, policy: policy)
        let request = HTTPRequest(
            method: .post, url: URL(string: "https://api.example.com/v1/chat")!, headers: ["X-Request-ID": "corr-7"],
            body: Data(#"{"prompt":"hi"}"#.utf8), metadata: metadata
        )
        async let read = client.send(request, body: nil) { _, body in try await body.collect(upTo: 1 << 20).count }
        let writer = try await transport.nextWriter()
        for frame in frames { try await writer.write(HTTPBody.ByteChunk(frame.utf8)) }
        writer.finish()
        let count = try await read
        XCTAssertEqual(count, frames.joined().utf8.count)
        await dispatcher.flush()
        await harness.logger.flush()
        let received = try await receiver.waitForEntries(expectedLines)
        XCTAssertEqual(received.rejections, [])
        XCTAssertEqual(received.lines.count, expectedLines)
        return (received, request.id.description)
    }

    /// The lines of the stream whose labels include `kind`, in time order.
    private func lines(of received: LokiReceiver.Received, kind: String) -> [String] {
        received.streams.filter { stream in
            let labels = try? JSONSerialization.jsonObject(with: Data(stream.key.utf8)) as? [String: String]
            return labels?["kind"] == kind
        }.values.flatMap { $0 }
            .sorted { (Int64($0[0]) ?? 0) < (Int64($1[0]) ?? 0) }.map { $0[1] }
    }

    func testEachServerSentEventIsALineAndTheExchangeLineHasTheRealCounts() async throws {
        let (received, id) = try await pushed(expectedLines: 4)
        let base = ["app": "checkout", "method": "POST", "status_class": "2xx", "host": "api.example.com", "level": "info"]
        XCTAssertEqual(Set(received.labelSets), [base.merging(["kind": "http"]) { $1 }, base.merging(["kind": "http_message"]) { $1 }])
        let prefix = "method=POST url=https://api.example.com/v1/chat status=200 http_request_id=\(id) attempt=1 correlation_id=corr-7"
        XCTAssertEqual(lines(of: received, kind: "http_message"), [
            prefix + #" index=0 message_kind=sse event=delta message_bytes=32 data="{\"t\":\"Hel\"}""#,
            prefix + #" index=1 message_kind=sse event=delta event_id=2 message_bytes=61 data="{\"t\":\"lo\",\"api_key\":\"[REDACTED]\"}""#,
            prefix + " index=2 message_kind=sse event=done message_bytes=23 data=end",
        ])
        let exchange = try XCTUnwrap(lines(of: received, kind: "http").first)
        XCTAssertTrue(exchange.hasSuffix(
            " http_request_id=\(id) attempt=1 correlation_id=corr-7 request_bytes=15 response_bytes=130 streamed=true stream_messages=3 unlogged_stream_messages=0"
                + #" answer_shape=data answer="{\"t\":\"Hel\"}\n{\"t\":\"lo\",\"api_key\":\"[REDACTED]\"}\nend""#
        ), exchange)
        XCTAssertFalse(received.lines.joined().contains("sk-live-123"))
    }

    func testEachMessageLineCarriesTheTraceAndSpanOfItsExchange() async throws {
        let trace = ["trace_id": "4bf92f3577b34da6a3ce929d0e0e4736", "span_id": "00f067aa0ba902b7"]
        let (received, _) = try await pushed(expectedLines: 4, metadata: trace)
        for line in lines(of: received, kind: "http_message") + lines(of: received, kind: "http") {
            XCTAssertTrue(line.hasSuffix(" span_id=00f067aa0ba902b7 trace_id=4bf92f3577b34da6a3ce929d0e0e4736"), line)
        }
    }

    func testMessageLinesAreBoundedPerExchangeAndCutByThePolicy() async throws {
        var policy = HTTPCorePolicy.debug
        policy.streamMessages = HTTPCorePolicy.StreamMessageCapture(maxCount: 1000, maxBytes: 6)
        let (received, _) = try await pushed(expectedLines: 3, policy: policy) { $0.maxMessageLinesPerExchange = 2 }
        let messages = lines(of: received, kind: "http_message")
        XCTAssertEqual(messages.map { $0.components(separatedBy: " index=").last }, [
            #"0 message_kind=sse event=delta message_bytes=32 truncated=true data="{\"t\":\"""#,
            #"1 message_kind=sse event=delta event_id=2 message_bytes=61 truncated=true data="{\"t\":\"""#,
        ])
        let exchange = try XCTUnwrap(lines(of: received, kind: "http").first)
        XCTAssertTrue(exchange.contains(" streamed=true stream_messages=3 unlogged_stream_messages=1 answer_shape=data "), exchange)
    }

    func testJSONLinesAreLinesToo() async throws {
        let frames = ["{\"n\":1}\n{\"n\":2,", "\"password\":\"pw\"}\n"]
        let (received, _) = try await pushed(frames, contentType: "application/x-ndjson", expectedLines: 3) { $0.lineFormat = .json }
        let messages = try lines(of: received, kind: "http_message").map { try XCTUnwrap(JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: String]) }
        XCTAssertEqual(messages.map { $0["data"] }, [#"{"n":1}"#, #"{"n":2,"password":"[REDACTED]"}"#])
        XCTAssertEqual(messages.map { $0["message_kind"] }, ["jsonl", "jsonl"])
        XCTAssertEqual(messages.map { $0["message_bytes"] }, ["8", "24"])
    }

    func testALoggerStricterThanThePolicyLeavesEveryFieldOfALineAsThePolicyExposedIt() async throws {
        let frames = [
            "event: delta\nid: 3f9a1c0e8b7d6a5f4e3d\ndata: {\"t\":\"Hel\",\"n\":1}\n\n",
            "event: done\ndata: end\n\n",
        ]
        let (received, id) = try await pushed(frames, expectedLines: 3) { configuration in
            configuration.redactor = Redactor(level: .standard, sensitiveHeaderNames: ["X-Request-ID"], sensitiveBodyKeys: ["t"])
        }
        // What the `.debug` policy (`.standard`) exposes: the logger's names mask none of it.
        let prefix = "method=POST url=https://api.example.com/v1/chat status=200 http_request_id=\(id) attempt=1 correlation_id=corr-7"
        XCTAssertEqual(lines(of: received, kind: "http_message"), [
            prefix + #" index=0 message_kind=sse event=delta event_id=3f9a1c0e8b7d6a5f4e3d message_bytes=63 data="{\"t\":\"Hel\",\"n\":1}""#,
            prefix + " index=1 message_kind=sse event=done message_bytes=23 data=end",
        ])
        let exchange = try XCTUnwrap(lines(of: received, kind: "http").first)
        XCTAssertTrue(exchange.contains(" correlation_id=corr-7 "), exchange)
    }

    func testAStreamedLLMCallIsOneLineWithItsAnswerAndItsTraceByDefault() async throws {
        let frames = [
            "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"The sky \"}}]}\n\n",
            "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"is blue.\"}}]}\n\ndata: [DONE]\n\n",
        ]
        let receiver = try LokiReceiver()
        defer { receiver.stop() }
        let harness = LokiHarness(receiver: receiver)
        let dispatcher = HTTPEventDispatcher()
        dispatcher.subscribe(LokiObserver(logger: harness.logger))
        let transport = StreamingMockTransport(headers: ["Content-Type": "text/event-stream"])
        let client = HTTPTransportClient(transport: transport, dispatcher: dispatcher, policy: .debug.interpreting(.genAI))
        let request = HTTPRequest(
            method: .post, url: URL(string: "https://api.openai.com/v1/chat/completions")!, metadata: ["trace_id": "4bf92f3577b34da6", "span_id": "00f067aa0ba902b7"]
        )
        let read = Task { try await client.send(request, body: nil) { _, body in try await body.collect(upTo: 1 << 20).count } }
        let writer = try await transport.nextWriter()
        for frame in frames { try await writer.write(HTTPBody.ByteChunk(frame.utf8)) }
        writer.finish()
        _ = try await read.value
        await dispatcher.flush()
        await harness.logger.flush()
        let received = try await receiver.waitForEntries(1)
        XCTAssertEqual(received.lines.count, 1, "one line per exchange: message lines are opt-in")
        let line = try XCTUnwrap(received.lines.first)
        // The call's GenAI facts (see LokiGenAITests) sit between the answer and the metadata.
        let timed = line.replacingOccurrences(of: #"time_to_first_chunk=[0-9.e-]+"#, with: "time_to_first_chunk=<t>", options: .regularExpression)
        XCTAssertTrue(timed.contains(
            #" streamed=true stream_messages=3 unlogged_stream_messages=3 answer_shape="OpenAI chat" answer="The sky is blue.""#
                + " gen_ai.provider.name=openai gen_ai.operation.name=chat gen_ai.request.stream=true gen_ai.response.time_to_first_chunk=<t>"
                + " server.address=api.openai.com server.port=443 span_id=00f067aa0ba902b7 trace_id=4bf92f3577b34da6"
        ), line)
    }
}
