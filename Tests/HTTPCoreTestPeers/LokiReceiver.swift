import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `Tests/LokiObserverTests/Peers/loki_receiver.py` in a child process: a receiver enforcing
/// Loki's push contract, for the Loki tests and the integrations' tests.
public final class LokiReceiver: Sendable {
    /// What the receiver stored and saw.
    public struct Received: Sendable {
        /// Stream labels (JSON, keys sorted) to their `[timestamp, line]` values.
        public let streams: [String: [[String]]]
        /// The pushes accepted.
        public let pushes: Int
        /// The answer to every push attempt: a status, or "reset".
        public let answers: [String]
        /// When each push attempt arrived (seconds since 1970).
        public let attemptTimes: [Double]
        /// Why each refused push was refused.
        public let rejections: [String]
        /// The headers of each push.
        public let headers: [[String: String]]
        /// The pushes whose body was gzip.
        public let gzipPushes: Int

        /// Every stored line.
        public var lines: [String] { streams.values.flatMap { $0.map { $0[1] } } }

        /// The labels of each stream, decoded.
        public var labelSets: [[String: String]] {
            streams.keys.compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: String] }
        }

        init(_ data: Data) throws {
            guard let object = try JSONSerialization.jsonObject(with: data) as? [String: Any] else {
                throw TestFailure("the Loki receiver's report is not a JSON object")
            }
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

    /// The port it listens on, on 127.0.0.1.
    public let port: Int
    private let peer: PythonPeer

    /// Starts the receiver on `port` (0 for any free port).
    public init(port: Int = 0) throws {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("LokiObserverTests/Peers/loki_receiver.py")
        peer = try PythonPeer(arguments: [script.path, String(port)])
        guard let port = peer.lastInteger else {
            peer.stop()
            throw TestFailure("the Loki receiver did not say its port: \(peer.firstLine)")
        }
        self.port = port
    }

    /// Its base URL; Loki's push path is `/loki/api/v1/push`.
    public var url: URL { URL(string: "http://127.0.0.1:\(port)")! }

    /// Answers for the next pushes, in order: `["status": 429, "retry_after": "1"]`,
    /// `["reset": true]`, `["delay": 5]`...
    public func script(_ answers: [[String: Any]]) async throws {
        try await post("/_script", answers)
    }

    /// Requires a tenant and an `Authorization` value from now on.
    public func require(tenant: String? = nil, authorization: String? = nil) async throws {
        try await post("/_config", ["tenant": tenant as Any? ?? NSNull(), "authorization": authorization as Any? ?? NSNull()])
    }

    /// What it received so far.
    public func received() async throws -> Received {
        try Received(try await get("/_received"))
    }

    /// What was received once `entries` entries are stored; fails after `timeout` seconds.
    public func waitForEntries(_ entries: Int, timeout: TimeInterval = 60) async throws -> Received {
        let received = try Received(try await get("/_wait?entries=\(entries)&timeout=\(timeout)", timeout: timeout + 5))
        let count = received.streams.values.reduce(0) { $0 + $1.count }
        guard count >= entries else { throw TestFailure("expected \(entries) entries within \(timeout) s, got \(count)") }
        return received
    }

    /// Stops the child process.
    public func stop() {
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

/// A peer that did not answer as a test expects.
public struct TestFailure: Error, CustomStringConvertible {
    /// What went wrong.
    public let description: String
    /// A failure saying `description`.
    public init(_ description: String) { self.description = description }
}
