import Foundation
import HTTPCoreTestPeers
import XCTest

/// `Peers/websocket_server.py` (PyPI's websockets 17) in a child process, on loopback.
final class WebSocketPeer: Sendable {
    struct PeerError: Error, CustomStringConvertible {
        let description: String
    }

    let port: Int
    private let peer: PythonPeer

    init() throws {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Peers/websocket_server.py")
        let reason = "the WebSocket peer did not start (pip install websockets; .ci/run does)"
        do {
            peer = try PythonPeer(arguments: [script.path, "600"])
        } catch {
            if ProcessInfo.processInfo.environment["HTTPCORE_REQUIRE_PEERS"] != nil { throw PeerError(description: "\(reason): \(error)") }
            throw XCTSkip("\(reason): \(error)")
        }
        guard peer.firstLine.hasPrefix("listening on "), let port = peer.lastInteger else {
            peer.stop()
            if ProcessInfo.processInfo.environment["HTTPCORE_REQUIRE_PEERS"] != nil { throw PeerError(description: "\(reason): \(peer.firstLine)") }
            throw XCTSkip("\(reason): \(peer.firstLine)")
        }
        self.port = port
    }

    /// The peer's URL for `path`, with the `ws` scheme.
    func url(_ path: String = "/echo") -> URL {
        URL(string: "ws://127.0.0.1:\(port)\(path)")!
    }

    func stop() {
        peer.stop()
    }
}
