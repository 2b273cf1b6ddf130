import Foundation
import HTTPCore
import HTTPCoreObservation
import HTTPCoreConcurrency
import HTTPCoreConsole
import HTTPCoreTesting
import XCTest

/// A WebSocket connection, driven by hand through `observeWebSocket`, reads on the console as
/// one conversation: its 101 and its messages at `.debug`, and one summary line at its end.
final class ConsoleObserverWebSocketTests: XCTestCase {
    private let url = URL(string: "wss://realtime.example.com/graphql?token=abc")!

    /// What a console made by `observer` printed of the connection `drive` reports, once
    /// delivered; each duration written `<ms>`.
    private func printed(
        _ observer: (@escaping @Sendable (String) -> Void) -> ConsoleObserver,
        policy: HTTPCorePolicy = .debug,
        _ drive: (WebSocketObservation) -> Void
    ) async throws -> [String] {
        let lines = Locked<[String]>([])
        let dispatcher = HTTPEventDispatcher()
        dispatcher.subscribe(observer { line in lines.withLock { $0.append(line) } })
        let client = HTTPTransportClient(transport: MockTransport(), dispatcher: dispatcher, policy: policy)
        let observation = try client.observeWebSocket(HTTPRequest(url: url, headers: ["Authorization": "Bearer abc"]))
        drive(observation)
        await dispatcher.flush()
        return lines.withLock { $0 }.map { $0.replacingOccurrences(of: #"[0-9]+\.[0-9] ms"#, with: "<ms>", options: .regularExpression) }
    }

    private func open(_ observation: WebSocketObservation) {
        observation.opened(HTTPResponse.Head(
            requestID: observation.request.id, statusCode: 101, headers: ["Upgrade": "websocket"], url: observation.request.url
        ))
    }

    func testAtDebugAConnectionReadsAsOneConversationFromItsOpenToItsSummary() async throws {
        let lines = try await printed({ ConsoleObserver(minimumLevel: .debug, write: $0) }) { observation in
            open(observation)
            observation.sent(.text, Array(#"{"type":"subscribe","password":"hunter2"}"#.utf8))
            observation.received(.binary, [0x00, 0x01, 0x02])
            observation.received(.ping, [UInt8]())
            observation.closed(code: 4000, reason: "server says bye", by: .server)
        }
        XCTAssertEqual(lines, [
            "GET wss://realtime.example.com/graphql?token=[REDACTED] -> http.request.created (0 B up)",
            "GET wss://realtime.example.com/graphql?token=[REDACTED] -> http.request.started (0 B up)",
            "WS wss://realtime.example.com/graphql?token=[REDACTED] -> 101 open",
            #"WS wss://realtime.example.com/graphql?token=[REDACTED] → text 41 B: {"type":"subscribe","password":"[REDACTED]"}"#,
            "WS wss://realtime.example.com/graphql?token=[REDACTED] ← binary 3 B: AAEC",
            "WS wss://realtime.example.com/graphql?token=[REDACTED] ← ping 0 B",
            "WS wss://realtime.example.com/graphql?token=[REDACTED] ← close 15 B: server says bye",
            "WS wss://realtime.example.com/graphql?token=[REDACTED] -> closed 4000 by server: server says bye (<ms>, sent 1 message 41 B, received 3 messages 18 B)",
        ])
    }

    func testAtInfoAConnectionIsItsSummaryLineAlone() async throws {
        let lines = try await printed({ ConsoleObserver(write: $0) }) { observation in
            open(observation)
            for _ in 0..<3 { observation.sent(.text, Array(repeating: UInt8(ascii: "a"), count: 1024)) }
            observation.closed(code: 1000, reason: "", by: .client)
        }
        XCTAssertEqual(lines, [
            "WS wss://realtime.example.com/graphql?token=[REDACTED] -> closed 1000 by client (<ms>, sent 4 messages 3.0 KB, received 0 messages 0 B)",
        ])
    }

    func testAMessageIsCutAsAStreamsIsWithAnEllipsisAlsoWhenThePolicyCutIt() async throws {
        var policy = HTTPCorePolicy.debug
        policy.streamMessages = .init(maxCount: 10, maxBytes: 4)
        let long = try await printed({ ConsoleObserver(minimumLevel: .debug, write: $0) }) { observation in
            open(observation)
            observation.received(.text, Array(repeating: UInt8(ascii: "x"), count: 300))
        }
        XCTAssertEqual(long.filter { $0.contains(" ← ") }, [
            "WS wss://realtime.example.com/graphql?token=[REDACTED] ← text 300 B: " + String(repeating: "x", count: 200) + "…",
        ])
        let capped = try await printed({ ConsoleObserver(minimumLevel: .debug, write: $0) }, policy: policy) { observation in
            open(observation)
            observation.received(.text, Array("message 0".utf8))
        }
        XCTAssertEqual(capped.filter { $0.contains(" ← ") }, ["WS wss://realtime.example.com/graphql?token=[REDACTED] ← text 9 B: mess…"])
    }

    func testAConnectionCutWithoutACloseIsAnErrorLineWithTheStatusThatCame() async throws {
        let lines = try await printed({ ConsoleObserver(minimumLevel: .error, write: $0) }) { observation in
            open(observation)
            observation.received(.text, Array("tick".utf8))
            observation.failed(.transport(.connectionLost, message: "the connection closed without a close frame"))
        }
        XCTAssertEqual(lines, [
            "WS wss://realtime.example.com/graphql?token=[REDACTED] -> 101, then failed: transport error [connection_lost]: the connection closed without a close frame (<ms>, sent 0 messages 0 B, received 1 message 4 B)",
        ])
    }

    func testARefusedHandshakeAndADroppedObservationReadAsFailedAndCancelled() async throws {
        let refused = try await printed({ ConsoleObserver(write: $0) }) { observation in
            observation.failed(
                .transport(.invalidResponse, message: "the server answered the WebSocket handshake with 401, not 101"),
                response: HTTPResponse.Head(requestID: observation.request.id, statusCode: 401, url: url)
            )
        }
        XCTAssertEqual(refused, [
            "WS wss://realtime.example.com/graphql?token=[REDACTED] -> 401, then failed: transport error [invalid_response]: the server answered the WebSocket handshake with 401, not 101 (<ms>, sent 0 messages 0 B, received 0 messages 0 B)",
        ])
        let lines = Locked<[String]>([])
        let dispatcher = HTTPEventDispatcher()
        dispatcher.subscribe(ConsoleObserver(minimumLevel: .warning) { line in lines.withLock { $0.append(line) } })
        var observation: WebSocketObservation? = try HTTPTransportClient(transport: MockTransport(), dispatcher: dispatcher, policy: .debug)
            .observeWebSocket(HTTPRequest(url: url))
        open(observation!)
        observation = nil
        await dispatcher.flush()
        XCTAssertEqual(lines.withLock { $0 }.map { $0.replacingOccurrences(of: #"[0-9]+\.[0-9] ms"#, with: "<ms>", options: .regularExpression) }, [
            "WS wss://realtime.example.com/graphql?token=[REDACTED] -> 101, then cancelled (<ms>, sent 0 messages 0 B, received 0 messages 0 B)",
        ])
    }

    func testACloseWithAnErrorCodeIsAWarningAndANormalOneIsNot() async throws {
        let serverError = try await printed({ ConsoleObserver(minimumLevel: .warning, write: $0) }) { observation in
            open(observation)
            observation.closed(code: 1011, reason: "internal error", by: .server)
        }
        XCTAssertEqual(serverError, [
            "WS wss://realtime.example.com/graphql?token=[REDACTED] -> closed 1011 by server: internal error (<ms>, sent 0 messages 0 B, received 1 message 14 B)",
        ])
        for code in [1000, 1001, 1005, 4000] {
            let normal = try await printed({ ConsoleObserver(minimumLevel: .warning, write: $0) }) { observation in
                open(observation)
                observation.closed(code: code, reason: "", by: .server)
            }
            XCTAssertEqual(normal, [], "close code \(code)")
        }
    }

    func testBlocksShowTheHandshakeAndItsAnswerThenTheSummaryInsteadOfBodies() async throws {
        let lines = try await printed({ ConsoleObserver(format: .blocks, body: .text, write: $0) }) { observation in
            open(observation)
            observation.sent(.text, Array("hello".utf8))
            observation.closed(code: 1000, reason: "done", by: .client)
        }
        XCTAssertEqual(lines.map { $0.split(separator: "\n").map(String.init) }, [[
            "[REQUEST] GET wss://realtime.example.com/graphql?token=[REDACTED]",
            "  Authorization: [REDACTED]",
            "[RESPONSE] 101 wss://realtime.example.com/graphql?token=[REDACTED] (<ms>)",
            "  Upgrade: websocket",
            "[WEBSOCKET] closed 1000 by client: done; sent 2 messages 9 B, received 0 messages 0 B",
        ]])
    }
}
