import Foundation
import XCTest
import HTTPCoreTestPeers
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `Peers/loki_receiver.py` in a child process: a receiver enforcing Loki's push contract.
final class LokiReceiver: Sendable {
    /// What the receiver stored and saw.
    struct Received {
        /// Stream labels (JSON, keys sorted) to their `[timestamp, line]` values.
        let streams: [String: [[String]]]
        let pushes: Int
        /// The answer to every push attempt: a status, or "reset".
        let answers: [String]
        let attemptTimes: [Double]
        let rejections: [String]
        let headers: [[String: String]]
        let gzipPushes: Int

        var lines: [String] { streams.values.flatMap { $0.map { $0[1] } } }

        /// The labels of each stream, decoded.
        var labelSets: [[String: String]] {
            streams.keys.compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: String] }
        }

        init(_ data: Data) throws {
            let object = try XCTUnwrap(JSONSerialization.jsonObject(with: data) as? [String: Any])
            streams = object["streams"] as? [String: [[String]]] ?? [:]
            pushes = object["pushes"] as? Int ?? 0
            let attempts = object["attempts"] as? [[String: Any]] ?? []
            answers = attempts.map { "\($0["answer"] ?? "none")" }
            attemptTimes = attempts.compactMap { $0["time"] as? Double }
            rejections = object["rejections"] as? [String] ?? []
            headers = object["headers"] as? [[String: String]] ?? []
            gzipPushes = object["gzip_pushes"] as? Int ?? 0
        }
    }

    let port: Int
    private let peer: PythonPeer

    /// Starts the receiver on `port` (0 for any free port).
    init(port: Int = 0) throws {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Peers/loki_receiver.py")
        peer = try PythonPeer(arguments: [script.path, String(port)])
        guard let port = peer.lastInteger else {
            peer.stop()
            throw TestFailure("the Loki receiver did not say its port: \(peer.firstLine)")
        }
        self.port = port
    }

    var url: URL { URL(string: "http://127.0.0.1:\(port)")! }

    /// Answers for the next pushes, in order: `["status": 429, "retry_after": "1"]`,
    /// `["reset": true]`, `["delay": 5]`...
    func script(_ answers: [[String: Any]]) async throws {
        try await post("/_script", answers)
    }

    /// Requires a tenant and an `Authorization` value from now on.
    func require(tenant: String? = nil, authorization: String? = nil) async throws {
        try await post("/_config", ["tenant": tenant as Any? ?? NSNull(), "authorization": authorization as Any? ?? NSNull()])
    }

    func received() async throws -> Received {
        try Received(try await get("/_received"))
    }

    /// What was received once `entries` entries are stored; fails after `timeout` seconds.
    func waitForEntries(_ entries: Int, timeout: TimeInterval = 60) async throws -> Received {
        let received = try Received(try await get("/_wait?entries=\(entries)&timeout=\(timeout)", timeout: timeout + 5))
        let count = received.streams.values.reduce(0) { $0 + $1.count }
        guard count >= entries else { throw TestFailure("expected \(entries) entries within \(timeout) s, got \(count)") }
        return received
    }

    func stop() {
        peer.stop()
    }

    private func get(_ path: String, timeout: TimeInterval = 10) async throws -> Data {
        var request = URLRequest(url: URL(string: "http://127.0.0.1:\(port)\(path)")!)
        request.timeoutInterval = timeout
        return try await URLSession.shared.data(for: request).0
    }

    private func post(_ path: String, _ body: Any) async throws {
        var request = URLRequest(url: URL(string: "http://127.0.0.1:\(port)\(path)")!)
        request.httpMethod = "POST"
        request.httpBody = try JSONSerialization.data(withJSONObject: body)
        _ = try await URLSession.shared.data(for: request)
    }
}

struct TestFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
