import Foundation
import HTTPCore
import HTTPCoreObservation
import HTTPCoreTesting
import LokiObserver
import XCTest
import HTTPCoreTestPeers

/// A WebSocket connection is one line at its end, marked `websocket=true`, and its messages
/// lines of their own only when asked; checked against the repo's Loki receiver.
final class LokiWebSocketTests: XCTestCase {
    private let url = URL(string: "wss://realtime.example.com/graphql?channel=7")!

    /// Drives a connection by hand through a client observed by a `LokiObserver` and returns
    /// what the receiver got once `expectedLines` arrived, with the request's id.
    private func pushed(
        expectedLines: Int,
        configure: (inout LokiConfiguration) -> Void = { _ in },
        drive: (WebSocketObservation) -> Void
    ) async throws -> (received: LokiReceiver.Received, requestID: String) {
        let receiver = try LokiReceiver()
        defer { receiver.stop() }
        let harness = LokiHarness(receiver: receiver, configure: configure)
        let dispatcher = HTTPEventDispatcher()
        dispatcher.subscribe(LokiObserver(logger: harness.logger))
        let client = HTTPTransportClient(transport: MockTransport(), dispatcher: dispatcher, policy: .debug)
        let observation = try client.observeWebSocket(HTTPRequest(url: url))
        drive(observation)
        await dispatcher.flush()
        await harness.logger.flush()
        let received = try await receiver.waitForEntries(expectedLines)
        XCTAssertEqual(received.rejections, [])
        XCTAssertEqual(received.lines.count, expectedLines)
        return (received, observation.request.id.description)
    }

    private func opened(_ observation: WebSocketObservation) {
        observation.opened(HTTPResponse.Head(requestID: observation.request.id, statusCode: 101, headers: ["Upgrade": "websocket"], url: url))
    }

    private func timeless(_ line: String) -> String {
        line.replacingOccurrences(of: #"duration_ms=[0-9.]+"#, with: "duration_ms=<t>", options: .regularExpression)
    }

    func testAConnectionIsOneLineAtItsEndWithItsCloseAndWhatWentEachWay() async throws {
        let (received, id) = try await pushed(expectedLines: 1) { observation in
            opened(observation)
            observation.sent(.text, Array(#"{"type":"subscribe","id":"1"}"#.utf8))
            observation.received(.binary, [0x00, 0x01, 0x02])
            observation.closed(code: 1000, reason: "done", by: .client)
        }
        XCTAssertEqual(received.labelSets, [
            ["app": "checkout", "kind": "http", "level": "info", "method": "GET", "status_class": "1xx", "host": "realtime.example.com"],
        ])
        XCTAssertEqual(timeless(try XCTUnwrap(received.lines.first)), #"method=GET url="wss://realtime.example.com/graphql?channel=7" status=101 "# + "outcome=succeeded duration_ms=<t> http_request_id=\(id) attempt=1 request_bytes=33 response_bytes=3 websocket=true close_code=1000 close_reason=done close_initiator=client sent_messages=2 sent_bytes=33 received_messages=1 received_bytes=3 unlogged_messages=3")
    }

    func testAnAbnormalCloseIsAWarningAndACutConnectionAFailureWithoutAClose() async throws {
        let (closed, _) = try await pushed(expectedLines: 1) { observation in
            opened(observation)
            observation.closed(code: 1011, reason: "internal error", by: .server)
        }
        XCTAssertEqual(closed.labelSets.first?["level"], "warning")
        XCTAssertTrue(closed.lines.first?.contains(#"close_code=1011 close_reason="internal error" close_initiator=server"#) == true, closed.lines.first ?? "")

        let (cut, _) = try await pushed(expectedLines: 1) { observation in
            opened(observation)
            observation.failed(.transport(.connectionLost, message: "the connection closed without a close frame"))
        }
        XCTAssertEqual(cut.labelSets.first?["level"], "error")
        XCTAssertEqual(cut.labelSets.first?["status_class"], "failed")
        let line = try XCTUnwrap(cut.lines.first)
        XCTAssertTrue(line.contains(" outcome=failed "), line)
        XCTAssertTrue(line.contains(" websocket=true sent_messages=0 "), line)
        XCTAssertFalse(line.contains("close_code"), line)
    }

    func testEachMessageIsALineOfItsOwnOnlyWhenAskedWithItsDirectionAndOpcode() async throws {
        let (received, id) = try await pushed(expectedLines: 4, configure: { $0.maxMessageLinesPerExchange = 10 }) { observation in
            opened(observation)
            observation.sent(.text, Array(#"{"type":"connection_init","payload":{"authToken":"eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiI0MiJ9.c2lnbmF0dXJl"}}"#.utf8))
            observation.received(.binary, [0x00, 0x01, 0x02])
            observation.closed(code: 1000, reason: "", by: .client)
        }
        let messages = received.streams.filter { stream in
            (try? JSONSerialization.jsonObject(with: Data(stream.key.utf8)) as? [String: String])?["kind"] == "http_message"
        }.values.flatMap { $0 }
            .sorted { (Int64($0[0]) ?? 0) < (Int64($1[0]) ?? 0) }.map { $0[1] }
        let prefix = #"method=GET url="wss://realtime.example.com/graphql?channel=7" status=101 http_request_id="# + "\(id) attempt=1"
        XCTAssertEqual(messages, [
            prefix + #" index=0 message_kind=websocket direction=sent opcode=text message_bytes=103 data="{\"type\":\"connection_init\",\"payload\":{\"authToken\":\"[REDACTED]\"}}""#,
            prefix + " index=1 message_kind=websocket direction=received opcode=binary message_bytes=3 data=AAEC",
            prefix + #" index=2 message_kind=websocket direction=sent opcode=close message_bytes=0 data="""#,
        ])
        XCTAssertFalse(received.lines.joined().contains("c2lnbmF0dXJl"))
    }
}
