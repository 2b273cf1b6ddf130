import Foundation
import HTTPCore
import HTTPCoreObservation
import HTTPCoreTesting
import HTTPCoreURLSession
import XCTest
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

final class URLSessionWebSocketTests: XCTestCase {
    private func client() -> (URLSessionClient, RecordingObserver) {
        let dispatcher = HTTPEventDispatcher()
        let recorder = RecordingObserver()
        dispatcher.subscribe(recorder)
        return (URLSessionClient(session: URLSessionClient.makeDefaultSession(), dispatcher: dispatcher, policy: .debug), recorder)
    }

    #if canImport(FoundationNetworking)
    /// Whether this machine's libcurl opens WebSockets, which FoundationNetworking needs:
    /// ws and wss among `curl -V`'s protocols.
    private static var libcurlHasWebSockets: Bool {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["curl", "-V"]
        let output = Pipe()
        process.standardOutput = output
        guard (try? process.run()) != nil else { return false }
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        let protocols = text.split(separator: "\n").first { $0.hasPrefix("Protocols:") }?.split(separator: " ") ?? []
        return protocols.contains("ws")
    }

    func testOnLinuxALibcurlWithoutWebSocketsFailsTheConnectionSayingSoAndObserversSeeTheFailure() async throws {
        guard !Self.libcurlHasWebSockets else {
            throw XCTSkip("this machine's libcurl opens WebSockets: the failure this test pins cannot happen here")
        }
        let (client, recorder) = client()
        let socket = try client.webSocket(HTTPRequest(url: URL(string: "ws://127.0.0.1:9/live")!))

        do {
            _ = try await socket.receive()
            XCTFail("received a message over a libcurl without WebSockets")
        } catch {
            XCTAssertEqual(error.code, .invalidRequest)
            XCTAssertEqual(
                error.message,
                "url: FoundationNetworking opens WebSockets only over a libcurl built with them (ws and wss among `curl -V`'s protocols), "
                    + "and this one has none; use HTTPCoreWebSocket from the integrations (127.0.0.1:9, URLError -1002)"
            )
        }
        let events = try await recorder.waitForTerminalEvents(count: 1)
        XCTAssertEqual(events.map(\.name), [.requestCreated, .requestStarted, .requestFailed])
        guard case .failed(let failure, let response, let exchange) = events.last?.step else { return XCTFail("no failure") }
        XCTAssertEqual(failure.code, .invalidRequest)
        XCTAssertNil(response)
        XCTAssertEqual(exchange.webSocket?.sentMessageCount, 0)
    }
    #endif

    func testARequestThatIsNoHandshakeIsRefusedBeforeAnyTaskNamingTheRule() {
        let (client, recorder) = client()
        XCTAssertThrowsError(try client.webSocket(HTTPRequest(method: .post, url: URL(string: "wss://example.com/live")!))) { error in
            XCTAssertEqual((error as? HTTPError)?.message, "method: a WebSocket handshake is a GET (RFC 6455, section 4.1), not POST")
        }
        XCTAssertTrue(recorder.events.isEmpty)
    }

    func testAnInvalidatedSessionRefusesTheConnectionInsteadOfTrapping() {
        let dispatcher = HTTPEventDispatcher()
        let session = URLSessionClient.makeDefaultSession()
        let client = URLSessionClient(session: session, dispatcher: dispatcher)
        session.invalidateAndCancel()
        XCTAssertThrowsError(try client.webSocket(HTTPRequest(url: URL(string: "wss://example.com/live")!))) { error in
            XCTAssertEqual((error as? HTTPError)?.code, .sessionInvalidated)
        }
    }
}
