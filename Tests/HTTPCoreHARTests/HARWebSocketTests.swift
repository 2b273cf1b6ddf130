import Foundation
import HTTPCore
import HTTPCoreObservation
@testable import HTTPCoreHAR
import HTTPCoreTesting
import XCTest

/// A WebSocket connection, driven by hand through `observeWebSocket`, is one entry as Chrome
/// DevTools exports one: the handshake and its 101, `_resourceType` `websocket` and its
/// messages in `_webSocketMessages`; read back by haralyzer and by DevTools' importer rules.
final class HARWebSocketTests: XCTestCase {
    private let url = URL(string: "wss://realtime.example.com/graphql?channel=7")!

    /// A client observed by `recorder`, and the connection it observes to `url`.
    private func connection(
        recorder: HARRecorder = HARRecorder(), policy: HTTPCorePolicy = .debug
    ) throws -> (observation: WebSocketObservation, dispatcher: HTTPEventDispatcher) {
        let dispatcher = HTTPEventDispatcher()
        dispatcher.subscribe(recorder)
        let client = HTTPTransportClient(transport: MockTransport(), dispatcher: dispatcher, policy: policy)
        let request = HTTPRequest(url: url, headers: ["Authorization": "Bearer s3cr3t-token", "Sec-WebSocket-Protocol": "graphql-transport-ws"])
        return (try client.observeWebSocket(request), dispatcher)
    }

    private func opened(_ observation: WebSocketObservation) {
        observation.opened(HTTPResponse.Head(
            requestID: observation.request.id, statusCode: 101,
            headers: ["Upgrade": "websocket", "Connection": "Upgrade", "Sec-WebSocket-Protocol": "graphql-transport-ws"],
            url: observation.request.url
        ))
    }

    /// The file `recorder` writes once `dispatcher` delivered everything: its text with each
    /// message's `time` written `T` (checked to be seconds since 1970 first), its only entry
    /// as JSON, and what haralyzer and the HAR 1.2 rules made of it.
    private func written(
        _ recorder: HARRecorder, after dispatcher: HTTPEventDispatcher
    ) async throws -> (text: String, entry: [String: Any], consumer: HARConsumer.Entry) {
        await dispatcher.flush()
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("har-websocket-\(UUID().uuidString).har")
        defer { try? FileManager.default.removeItem(at: url) }
        try recorder.write(to: url)
        let file = try Data(contentsOf: url)
        let entries = try HARFile.entries(of: file)
        XCTAssertEqual(entries.count, 1)
        for row in entries.first?["_webSocketMessages"] as? [[String: Any]] ?? [] {
            XCTAssertGreaterThan(row["time"] as? Double ?? 0, 1_700_000_000, "seconds since 1970")
        }
        let text = String(decoding: file, as: UTF8.self)
            .replacingOccurrences(of: #""time": [0-9]+\.[0-9]+,\n(\s*)"opcode""#, with: "\"time\": T,\n$1\"opcode\"", options: .regularExpression)
        let consumer = try HARConsumer.check(url)
        XCTAssertEqual(consumer.errors, [], "HAR 1.2 and DevTools' importer rules")
        return (text, entries[0], try XCTUnwrap(consumer.entries.first))
    }

    /// The lines of the member `name`, an array, as written in `text`, without indentation.
    private func array(_ name: String, in text: String) throws -> [String] {
        let start = try XCTUnwrap(text.range(of: "\"\(name)\": ["), text).lowerBound
        var lines: [String] = []
        for line in text[start...].split(separator: "\n") {
            lines.append(line.trimmingCharacters(in: .whitespaces))
            if lines.last == "]" || lines.last == "]," { break }
        }
        return lines
    }

    func testAConnectionIsOneEntryWithItsMessagesAsChromeDevToolsWritesThem() async throws {
        let recorder = HARRecorder()
        let (observation, dispatcher) = try connection(recorder: recorder)
        opened(observation)
        observation.sent(.text, Array(#"{"type":"connection_init","payload":{"authToken":"s3cr3t-token"}}"#.utf8))
        observation.received(.binary, [0x00, 0x01, 0x02])
        observation.received(.ping, Array("hb".utf8))
        observation.sent(.pong, Array("hb".utf8))
        observation.closed(code: 4000, reason: "server says bye", by: .server)

        let (text, entry, consumer) = try await written(recorder, after: dispatcher)
        XCTAssertEqual(try array("_webSocketMessages", in: text), [
            #""_webSocketMessages": ["#,
            "{", #""type": "send","#, #""time": T,"#, #""opcode": 1,"#,
            #""data": "{\"type\":\"connection_init\",\"payload\":{\"authToken\":\"[REDACTED]\"}}""#, "},",
            "{", #""type": "receive","#, #""time": T,"#, #""opcode": 2,"#, #""data": "AAEC""#, "},",
            "{", #""type": "receive","#, #""time": T,"#, #""opcode": 9,"#, #""data": "aGI=""#, "},",
            "{", #""type": "send","#, #""time": T,"#, #""opcode": 10,"#, #""data": "aGI=""#, "},",
            "{", #""type": "receive","#, #""time": T,"#, #""opcode": 8,"#, #""data": "D6BzZXJ2ZXIgc2F5cyBieWU=""#, "}",
            "],",
        ])
        XCTAssertEqual(Data(base64Encoded: "D6BzZXJ2ZXIgc2F5cyBieWU="), Data([0x0F, 0xA0] + Array("server says bye".utf8)), "4000, then the reason")
        XCTAssertEqual(entry["_resourceType"] as? String, "websocket")
        XCTAssertEqual(entry["_webSocket"] as? NSDictionary, [
            "sent": ["messages": 2, "bytes": 67], "received": ["messages": 3, "bytes": 20],
            "close": ["code": 4000, "reason": "server says bye", "initiator": "server"],
        ])
        XCTAssertEqual(entry["_streamMessageCount"] as? Int, 5)
        XCTAssertEqual(entry["_droppedStreamMessages"] as? Int, 0)
        XCTAssertEqual(entry["_outcome"] as? String, "succeeded")
        XCTAssertNil(entry["_eventSourceMessages"])
        XCTAssertNil(entry["_jsonLines"])
        XCTAssertNil(entry["_streamed"])
        XCTAssertNil(entry["comment"])
        XCTAssertFalse(text.contains("s3cr3t"))

        XCTAssertEqual(consumer.method, "GET")
        XCTAssertEqual(consumer.url, "wss://realtime.example.com/graphql?channel=7")
        XCTAssertEqual(consumer.queryString, [HARConsumer.NameValue(name: "channel", value: "7")])
        XCTAssertEqual(consumer.requestHeader("Authorization"), "[REDACTED]")
        XCTAssertEqual(consumer.requestHeader("Sec-WebSocket-Protocol"), "graphql-transport-ws")
        XCTAssertEqual(consumer.requestBodySize, 0, "the messages are no body")
        XCTAssertNil(consumer.requestText)
        XCTAssertEqual(consumer.status, 101)
        XCTAssertEqual(consumer.statusText, "")
        XCTAssertEqual(consumer.responseHeader("Upgrade"), "websocket")
        XCTAssertEqual(consumer.contentSize, 0)
        XCTAssertEqual(consumer.responseBodySize, 0)
        XCTAssertEqual(consumer.resourceType, "websocket")
        XCTAssertEqual(consumer.webSocketMessages?.map(\.type), ["send", "receive", "receive", "send", "receive"])
        XCTAssertEqual(consumer.webSocketMessages?.map(\.opcode), [1, 2, 9, 10, 8])
        XCTAssertEqual(consumer.webSocketMessages?.map(\.mask), [true, false, false, true, false])
    }

    func testAConnectionCutWithoutACloseReadsAsFailedAfterItsStatusWithDevToolsErrorRow() async throws {
        let recorder = HARRecorder()
        let (observation, dispatcher) = try connection(recorder: recorder)
        opened(observation)
        observation.received(.text, Array("tick".utf8))
        observation.failed(.transport(.connectionLost, message: "the connection closed without a close frame"))

        let (text, entry, consumer) = try await written(recorder, after: dispatcher)
        XCTAssertEqual(try array("_webSocketMessages", in: text), [
            #""_webSocketMessages": ["#,
            "{", #""type": "receive","#, #""time": T,"#, #""opcode": 1,"#, #""data": "tick""#, "},",
            "{", #""type": "error","#, #""time": T,"#, #""opcode": -1,"#,
            #""data": "transport error [connection_lost]: the connection closed without a close frame""#, "}",
            "],",
        ])
        XCTAssertEqual(entry["_webSocket"] as? NSDictionary, ["sent": ["messages": 0, "bytes": 0], "received": ["messages": 1, "bytes": 4]])
        XCTAssertEqual(consumer.outcome, "failed")
        XCTAssertEqual(consumer.status, 101)
        XCTAssertEqual(consumer.statusText, "(failed) transport error [connection_lost]: the connection closed without a close frame")
        XCTAssertEqual(consumer.error, "transport error [connection_lost]: the connection closed without a close frame")
        XCTAssertEqual(consumer.errorType, "connection_lost")
        XCTAssertEqual(consumer.comment, "failed after status 101: transport error [connection_lost]: the connection closed without a close frame")
        XCTAssertEqual(consumer.webSocketMessages?.map(\.type), ["receive", "error"])
    }

    func testARefusedHandshakeIsAFailedEntryWithTheServersAnswerAndOnlyTheErrorRow() async throws {
        let recorder = HARRecorder()
        let (observation, dispatcher) = try connection(recorder: recorder)
        observation.failed(
            .transport(.invalidResponse, message: "the server answered the WebSocket handshake with 401, not 101"),
            response: HTTPResponse.Head(requestID: observation.request.id, statusCode: 401, url: url)
        )

        let (_, entry, consumer) = try await written(recorder, after: dispatcher)
        XCTAssertEqual(consumer.status, 401)
        XCTAssertEqual(consumer.outcome, "failed")
        XCTAssertEqual(consumer.resourceType, "websocket")
        XCTAssertEqual(consumer.webSocketMessages, [HARConsumer.WebSocketMessage(
            type: "error", opcode: -1, data: "transport error [invalid_response]: the server answered the WebSocket handshake with 401, not 101", mask: false
        )])
        XCTAssertNil(entry["_streamMessageCount"], "no message came")
    }

    func testMessagesPastThePolicysAndTheRecordersCapsAreCountedAsDroppedAndACutOneIsMarked() async throws {
        var policy = HTTPCorePolicy.debug
        policy.streamMessages = .init(maxCount: 3, maxBytes: 4)
        let recorder = HARRecorder(maxStreamMessagesPerEntry: 2)
        let (observation, dispatcher) = try connection(recorder: recorder, policy: policy)
        opened(observation)
        for index in 0..<10 { observation.received(.text, Array("message \(index)".utf8)) }
        observation.closed(code: 1000, reason: "", by: .client)

        let (text, entry, _) = try await written(recorder, after: dispatcher)
        XCTAssertEqual(entry["_streamMessageCount"] as? Int, 11, "the ten and the close")
        XCTAssertEqual(entry["_droppedStreamMessages"] as? Int, 9, "8 past the policy's 3, 1 past the recorder's 2")
        XCTAssertEqual(try array("_webSocketMessages", in: text), [
            #""_webSocketMessages": ["#,
            "{", #""type": "receive","#, #""time": T,"#, #""opcode": 1,"#, #""data": "mess","#, #""_truncated": true"#, "},",
            "{", #""type": "receive","#, #""time": T,"#, #""opcode": 1,"#, #""data": "mess","#, #""_truncated": true"#, "}",
            "],",
        ])
        XCTAssertEqual((entry["_webSocket"] as? NSDictionary)?["received"] as? NSDictionary, ["messages": 10, "bytes": 90])
        XCTAssertEqual((entry["_webSocket"] as? NSDictionary)?["close"] as? NSDictionary, ["code": 1000, "reason": "", "initiator": "client"])
    }

    func testAConnectionHoldsNoRawBodyHoweverManyBytesItsMessagesCarried() throws {
        let dispatcher = HTTPEventDispatcher()
        let events = RecordingObserver()
        dispatcher.subscribe(events)
        let observation = try HTTPTransportClient(transport: MockTransport(), dispatcher: dispatcher, policy: .debug)
            .observeWebSocket(HTTPRequest(url: url))
        opened(observation)
        for _ in 0..<3 { observation.sent(.binary, [UInt8](repeating: 7, count: 200 * 1024)) }
        observation.closed(code: 1000, reason: "", by: .client)

        let end = try XCTUnwrap(events.events.last)
        XCTAssertEqual(end.webSocket?.sentByteCount, 600 * 1024)
        XCTAssertEqual(HARRecorder.rawBodyByteCount(of: end), 0, "kept for later, weighed by its message events")
    }
}
