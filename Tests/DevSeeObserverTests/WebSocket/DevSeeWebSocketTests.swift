import DevSeeObserver
import DevSeeServer
import Foundation
import HTTPCore
import HTTPCoreObservation
import HTTPCoreTesting
import XCTest

/// A WebSocket connection reaches dev-see as one readable exchange: a row when it opens and
/// one when it ends, with its close, counts and messages; checked against the repo's receiver,
/// which enforces the server's validation rules.
final class DevSeeWebSocketTests: XCTestCase {
    private let url = URL(string: "wss://realtime.example.com/graphql?channel=7")!

    /// A client observed by a logger pointed at `receiver`.
    private func client(
        _ receiver: DevSeeReceiver, policy: HTTPCorePolicy = .debug, configure: (inout DevSeeLoggerConfiguration) -> Void = { _ in }
    ) -> (HTTPTransportClient<MockTransport>, HTTPEventDispatcher, DevSeeLogger) {
        let harness = LoggerHarness(receiver: receiver, configure)
        let dispatcher = HTTPEventDispatcher()
        dispatcher.subscribe(DevSeeObserver(logger: harness.logger))
        return (HTTPTransportClient(transport: MockTransport(), dispatcher: dispatcher, policy: policy), dispatcher, harness.logger)
    }

    private func head(for observation: WebSocketObservation) -> HTTPResponse.Head {
        HTTPResponse.Head(
            requestID: observation.request.id, statusCode: 101, headers: ["Upgrade": "websocket", "Connection": "Upgrade"],
            url: observation.request.url
        )
    }

    /// Waits for `count` logs and returns them, none rejected.
    private func logs(_ receiver: DevSeeReceiver, count: Int, dispatcher: HTTPEventDispatcher, logger: DevSeeLogger) async throws -> [[String: Any]] {
        await dispatcher.flush()
        await logger.flush()
        try await receiver.waitForLogs(count: count)
        XCTAssertEqual(receiver.rejections.count, 0)
        let logs = receiver.storedObjects()
        XCTAssertEqual(logs.count, count)
        return logs
    }

    private func note(_ log: [String: Any]) -> String? {
        (log["responseHeaders"] as? [String: String])?["x-devsee-note-websocket"]
    }

    /// The body with each message's time offset, which varies, as `+T`.
    private func timeless(_ body: Any?) -> [String] {
        let text = (body as? String) ?? ""
        return text.split(separator: "\n").map {
            $0.replacingOccurrences(of: #"\+[0-9.,]+ (µs|ms|s|min)"#, with: "+T", options: .regularExpression)
        }
    }

    func testAConnectionIsARowWhenItOpensAndARowWhenItClosesListingItsMessages() async throws {
        let receiver = try DevSeeReceiver()
        defer { receiver.stop() }
        let (client, dispatcher, logger) = client(receiver)
        let observation = try client.observeWebSocket(HTTPRequest(url: url))
        observation.opened(head(for: observation))
        observation.sent(.text, Array(#"{"type":"subscribe","id":"1"}"#.utf8))
        observation.received(.binary, [0x00, 0x01, 0x02])
        observation.received(.ping, [UInt8]())
        observation.closed(code: 4000, reason: "server says bye", by: .server)

        let logs = try await logs(receiver, count: 2, dispatcher: dispatcher, logger: logger)
        let opening = try XCTUnwrap(logs.first { ($0["websocket"] as? [String: Any])?["state"] as? String == "open" })
        XCTAssertEqual(opening["method"] as? String, "WS")
        XCTAssertEqual(opening["url"] as? String, "wss://realtime.example.com/graphql?channel=7")
        XCTAssertEqual(opening["statusCode"] as? Int, 101)
        XCTAssertEqual(note(opening), "[websocket] open: messages flow; a closing row with its messages follows when the connection ends")
        XCTAssertEqual(opening["responseBody"] as? String, note(opening))
        XCTAssertEqual((opening["responseHeaders"] as? [String: String])?["Upgrade"], "websocket")

        let closing = try XCTUnwrap(logs.first { ($0["websocket"] as? [String: Any])?["state"] as? String == "closed" })
        XCTAssertEqual(closing["method"] as? String, "WS")
        XCTAssertEqual(closing["url"] as? String, "wss://realtime.example.com/graphql?channel=7")
        XCTAssertEqual(closing["statusCode"] as? Int, 101)
        XCTAssertEqual(closing["requestId"] as? String, opening["requestId"] as? String)
        XCTAssertGreaterThanOrEqual(closing["duration"] as? Double ?? -1, opening["duration"] as? Double ?? 0, "the connection's lifetime")
        let closeNote = try XCTUnwrap(note(closing))
        XCTAssertEqual(
            closeNote.replacingOccurrences(of: #"after [0-9.,]+ (µs|ms|s)"#, with: "after T", options: .regularExpression),
            #"[websocket] closed 4000 "server says bye" by the server after T · ↑ 1 message, 29 bytes · ↓ 3 messages, 18 bytes"#
        )
        XCTAssertEqual(timeless(closing["responseBody"]), [
            closeNote.replacingOccurrences(of: #"\+[0-9.,]+ (µs|ms|s|min)"#, with: "+T", options: .regularExpression),
            "[messages] 4 of 4: ↑ sent, ↓ received, time since the connection opened",
            #"↑ +T text {"type":"subscribe","id":"1"}"#,
            "↓ +T binary base64:AAEC",
            "↓ +T ping",
            "↓ +T close server says bye",
        ])
        XCTAssertNil(closing["requestBody"])
        let summary = try XCTUnwrap(closing["websocket"] as? [String: Any])
        XCTAssertEqual(summary["sentMessages"] as? Int, 1)
        XCTAssertEqual(summary["sentBytes"] as? Int, 29)
        XCTAssertEqual(summary["receivedMessages"] as? Int, 3)
        XCTAssertEqual(summary["receivedBytes"] as? Int, 18)
        XCTAssertEqual(summary["closeCode"] as? Int, 4000)
        XCTAssertEqual(summary["closeReason"] as? String, "server says bye")
        XCTAssertEqual(summary["closedBy"] as? String, "server")
        XCTAssertEqual(summary["unlistedMessages"] as? Int, 0)
    }

    func testAConnectionCutWithoutACloseReadsAsAFailureAfterItsOneOhOne() async throws {
        let receiver = try DevSeeReceiver()
        defer { receiver.stop() }
        let (client, dispatcher, logger) = client(receiver)
        let observation = try client.observeWebSocket(HTTPRequest(url: url))
        observation.opened(head(for: observation))
        observation.received(.text, Array("tick".utf8))
        observation.failed(.transport(.connectionLost, message: "the connection closed without a close frame"))

        let logs = try await logs(receiver, count: 2, dispatcher: dispatcher, logger: logger)
        let closing = try XCTUnwrap(logs.first { ($0["websocket"] as? [String: Any])?["state"] as? String == "failed" })
        XCTAssertEqual(closing["method"] as? String, "WS failed after 101")
        XCTAssertEqual(closing["statusCode"] as? Int, 599)
        XCTAssertEqual(closing["reportedStatusCode"] as? Int, 101)
        XCTAssertTrue(note(closing)?.hasPrefix("[websocket] ended without a close handshake after ") == true, "\(note(closing) ?? "")")
        XCTAssertTrue(note(closing)?.hasSuffix(" · ↑ 0 messages, 0 bytes · ↓ 1 message, 4 bytes") == true, "\(note(closing) ?? "")")
        XCTAssertNotNil((closing["responseHeaders"] as? [String: String])?["x-devsee-note-error"])
        XCTAssertEqual(timeless(closing["responseBody"]).suffix(2), [
            "[messages] 1 of 1: ↑ sent, ↓ received, time since the connection opened", "↓ +T text tick",
        ])
    }

    func testARefusedHandshakeIsOneFailedRowWithTheServersStatus() async throws {
        let receiver = try DevSeeReceiver()
        defer { receiver.stop() }
        let (client, dispatcher, logger) = client(receiver)
        let observation = try client.observeWebSocket(HTTPRequest(url: url))
        let refusal = HTTPResponse.Head(requestID: observation.request.id, statusCode: 401, url: url)
        observation.failed(.transport(.invalidResponse, message: "the server answered the WebSocket handshake with 401, not 101"), response: refusal)

        let stored = try await logs(receiver, count: 1, dispatcher: dispatcher, logger: logger)
        let log = try XCTUnwrap(stored.first)
        XCTAssertEqual(log["method"] as? String, "WS failed after 401")
        XCTAssertEqual(log["statusCode"] as? Int, 599)
        XCTAssertEqual(note(log), "[websocket] never opened · ↑ 0 messages, 0 bytes · ↓ 0 messages, 0 bytes")
    }

    func testAGraphQLWSConnectionInitTokenNeverReachesTheServerUnmasked() async throws {
        let receiver = try DevSeeReceiver()
        defer { receiver.stop() }
        let jwt = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiI0MiJ9.c2lnbmF0dXJl"
        let (client, dispatcher, logger) = client(receiver) { $0.maxMessageLogsPerExchange = 10 }
        let observation = try client.observeWebSocket(HTTPRequest(url: url))
        observation.opened(head(for: observation))
        observation.sent(.text, Array(#"{"type":"connection_init","payload":{"authToken":"\#(jwt)"}}"#.utf8))
        observation.closed(code: 1000, reason: "", by: .client)

        // Its opening and closing rows, and a row for each message: the init and the close.
        let logs = try await logs(receiver, count: 4, dispatcher: dispatcher, logger: logger)
        let stored = try String(decoding: JSONSerialization.data(withJSONObject: logs), as: UTF8.self)
        XCTAssertFalse(stored.contains(jwt))
        XCTAssertFalse(stored.contains("c2lnbmF0dXJl"))
        let closing = try XCTUnwrap(logs.first { ($0["websocket"] as? [String: Any])?["state"] as? String == "closed" })
        XCTAssertTrue(timeless(closing["responseBody"]).contains(#"↑ +T text {"type":"connection_init","payload":{"authToken":"[REDACTED]"}}"#))
        let row = try XCTUnwrap(logs.first { $0["method"] as? String == "WS ↑ #0" })
        XCTAssertEqual(row["requestBody"] as? String, #"{"type":"connection_init","payload":{"authToken":"[REDACTED]"}}"#)
    }

    func testEachMessageGetsARowOfItsOwnOnlyWhenAskedSentAsRequestBodyReceivedAsResponseBody() async throws {
        let receiver = try DevSeeReceiver()
        defer { receiver.stop() }
        let (client, dispatcher, logger) = client(receiver) { $0.maxMessageLogsPerExchange = 2 }
        let observation = try client.observeWebSocket(HTTPRequest(url: url))
        observation.opened(head(for: observation))
        observation.sent(.text, Array("hello".utf8))
        observation.received(.text, Array("world".utf8))
        observation.received(.text, Array("again".utf8))
        observation.closed(code: 1000, reason: "", by: .client)

        let logs = try await logs(receiver, count: 4, dispatcher: dispatcher, logger: logger)
        func index(_ log: [String: Any]) -> Int { (log["streamMessage"] as? [String: Any])?["index"] as? Int ?? -1 }
        let rows = logs.filter { $0["streamMessage"] != nil }.sorted { index($0) < index($1) }
        XCTAssertEqual(rows.map { $0["method"] as? String }, ["WS ↑ #0", "WS ↓ #1"])
        XCTAssertEqual(rows.map { $0["url"] as? String }, [
            "wss://realtime.example.com/graphql?channel=7#message-0", "wss://realtime.example.com/graphql?channel=7#message-1",
        ])
        XCTAssertEqual(rows.map { $0["statusCode"] as? Int }, [101, 101])
        XCTAssertEqual(rows.map { $0["requestBody"] as? String }, ["hello", nil])
        XCTAssertEqual(rows.map { $0["responseBody"] as? String }, [nil, "world"])
        let message = try XCTUnwrap(rows[0]["streamMessage"] as? [String: Any])
        XCTAssertEqual(message["kind"] as? String, "websocket")
        XCTAssertEqual(message["direction"] as? String, "sent")
        XCTAssertEqual(message["opcode"] as? String, "text")
    }

    func testALongConnectionListsItsFirstAndLatestMessagesAndSaysHowManyItLeftOut() async throws {
        let receiver = try DevSeeReceiver()
        defer { receiver.stop() }
        let (client, dispatcher, logger) = client(receiver)
        let observation = try client.observeWebSocket(HTTPRequest(url: url))
        observation.opened(head(for: observation))
        for index in 0..<300 { observation.received(.text, Array("m\(index)".utf8)) }
        observation.closed(code: 1000, reason: "", by: .client)

        let logs = try await logs(receiver, count: 2, dispatcher: dispatcher, logger: logger)
        let closing = try XCTUnwrap(logs.first { ($0["websocket"] as? [String: Any])?["state"] as? String == "closed" })
        XCTAssertTrue(note(closing)?.hasSuffix(" · ↑ 1 message, 0 bytes · ↓ 300 messages, 1090 bytes · 201 messages not listed") == true, "\(note(closing) ?? "")")
        let lines = timeless(closing["responseBody"])
        XCTAssertEqual(lines[1], "[messages] 100 of 301: ↑ sent, ↓ received, time since the connection opened")
        XCTAssertEqual(lines[2], "↓ +T text m0")
        XCTAssertEqual(lines[51], "↓ +T text m49")
        XCTAssertEqual(lines[52], "… 201 messages not kept …")
        XCTAssertEqual(lines[53], "↓ +T text m251")
        XCTAssertEqual(lines.last, "↑ +T close")
        XCTAssertEqual(lines.count, 2 + 100 + 1)
    }
}
