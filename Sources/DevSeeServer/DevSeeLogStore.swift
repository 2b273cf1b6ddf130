import Foundation
import HTTPCoreConcurrency
import HTTPCoreLoopback
import HTTPCoreText

/// What a ``DevSeeReceiver`` has received and answered, and the tasks waiting for logs.
///
/// Route handlers (on connection threads) and test code (on any thread or task) share it
/// through one lock.
final class DevSeeLogStore: Sendable {
    /// How many entries `GET /api/logs` can return, as dev-see's ring buffer.
    static let ringCapacity = 1_000

    /// Counters that waiting tests watch.
    struct Progress: Sendable {
        var posts = 0
        var stored = 0
    }

    private struct State {
        var storedLogs: [Data] = []
        /// The entries `GET /api/logs` serves: the newest `ringCapacity`, oldest first.
        var entries: [JSONValue] = []
        var rejections: [DevSeeReceiver.Rejection] = []
        var script: [DevSeeReceiver.ScriptedAnswer] = []
    }

    private let state = Locked(State())
    private let progress = AsyncCondition(Progress())
    /// Whether every stored log and rejection is kept (for tests), or only the ring (for a
    /// long-running receiver).
    private let keepsHistory: Bool
    /// Called with each stored entry, serialized, after it is stored.
    private let onLog: (@Sendable (Data) -> Void)?

    init(keepsHistory: Bool = true, onLog: (@Sendable (Data) -> Void)? = nil) {
        self.keepsHistory = keepsHistory
        self.onLog = onLog
    }

    var storedLogs: [Data] {
        state.withLock { $0.storedLogs }
    }

    var rejections: [DevSeeReceiver.Rejection] {
        state.withLock { $0.rejections }
    }

    var postCount: Int {
        progress.state.posts
    }

    func script(_ answers: [DevSeeReceiver.ScriptedAnswer]) {
        state.withLock { $0.script.append(contentsOf: answers) }
    }

    // MARK: - Endpoints

    /// `POST /api/logs`: a scripted answer if one is queued, else dev-see's validation.
    func post(_ request: LoopbackRequest, lifecycle: LoopbackServerLifecycle) -> LoopbackResponse {
        let scripted = state.withLock { state -> DevSeeReceiver.ScriptedAnswer? in
            state.script.isEmpty ? nil : state.script.removeFirst()
        }
        progress.update { $0.posts += 1 }
        switch scripted {
        case .status(let status):
            let message = "scripted status \(status)"
            let body = Self.errorBody(status: status, message: message)
            return reject(request, status: status, reason: message, response: .json(body, status: status))
        case .tooManyRequests(let retryAfter):
            let message = "Rate limit exceeded, retry in \(retryAfter) seconds"
            var response = LoopbackResponse.json(Self.errorBody(status: 429, message: message), status: 429)
            response.headers.add(name: "Retry-After", value: String(retryAfter))
            return reject(request, status: 429, reason: "scripted 429, Retry-After: \(retryAfter)", response: response)
        case .reset:
            var response = LoopbackResponse()
            response.fault = .reset
            return reject(request, status: 0, reason: "scripted connection reset", response: response)
        case .body(let status, let contentType, let text):
            let response = LoopbackResponse(status: status, headers: ["Content-Type": contentType], body: Data(text.utf8))
            return reject(request, status: status, reason: "scripted body with status \(status)", response: response)
        case .held(let gate):
            guard gate.wait() else {
                var response = LoopbackResponse()
                response.fault = .reset
                return response
            }
        case .delay(let seconds):
            guard lifecycle.pause(seconds) else {
                var response = LoopbackResponse()
                response.fault = .reset
                return response
            }
        case nil:
            break
        }

        let verdict = DevSeeLogValidator.validate(
            contentType: request.headers["Content-Type"],
            body: request.body,
            declaresLength: request.headers["Content-Length"] != nil
        )
        switch verdict {
        case .rejected(let status, let reason, let body):
            return reject(request, status: status, reason: reason, response: .json(body, status: status))
        case .accepted(let log):
            var entry = JSONValue.object([
                ("id", .string(UUID().uuidString.lowercased())),
                ("timestamp", .string(Self.isoTimestamp())),
            ])
            // Node keeps `Infinity` in the stored entry and `JSON.stringify` serves it as
            // `null`, in the 201, `GET /api/logs` and the UI's feed alike: stored as `null` here.
            if case .object(let members) = log.nonFiniteNumbersAsNull {
                for member in members { entry.set(member.key, member.value) }
            }
            store(request.body, entry: entry)
            return .json(entry.serialized, status: 201)
        }
    }

    /// `GET /api/logs?limit=N`: the newest `N` entries (all when no limit), oldest first.
    ///
    /// `limit` is read as dev-see reads it: an empty one is no limit, and otherwise
    /// JavaScript's `parseInt` must find a positive number at its start (`10abc` is 10).
    func list(_ request: LoopbackRequest) -> LoopbackResponse {
        let values = (request.query ?? "").split(separator: "&").compactMap { item -> String? in
            let pair = item.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard pair.first == "limit" else { return nil }
            let value = pair.count == 2 ? String(pair[1]) : ""
            return value.replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? value
        }
        // A repeated parameter is an array, which parseInt reads joined with commas.
        let text = values.joined(separator: ",")
        var limit = Int.max
        if !text.isEmpty {
            guard let value = Self.parseInt(text), value > 0 else {
                let body = JSONValue.object([
                    ("error", .string("Invalid limit parameter")),
                    ("details", .array([.string("limit must be a positive number")])),
                ])
                return .json(body.serialized, status: 400)
            }
            limit = value
        }
        let entries = state.withLock { Array($0.entries.suffix(limit)) }
        let body = JSONValue.object([
            ("logs", .array(entries)),
            ("count", .number(Double(entries.count), text: String(entries.count))),
        ])
        return .json(body.serialized)
    }

    /// JavaScript's `parseInt(text, 10)`: leading whitespace, a sign, then the digits up to
    /// the first other character; `nil` (NaN) without digits.
    static func parseInt(_ text: String) -> Int? {
        var rest = Substring(text).drop { $0.isWhitespace }
        var sign = 1
        if let first = rest.first, first == "+" || first == "-" {
            sign = first == "-" ? -1 : 1
            rest = rest.dropFirst()
        }
        let digits = rest.prefix { $0.isASCII && $0.isNumber }
        guard !digits.isEmpty else { return nil }
        return sign * (Int(digits.prefix(18)) ?? 0)
    }

    /// `GET /api/logs/:id`: one entry, or 404.
    func entry(id: String) -> LoopbackResponse {
        let entry = state.withLock { state in
            state.entries.last { $0["id"] == .string(id) }
        }
        guard let entry else {
            let body = JSONValue.object([("error", .string("Log not found")), ("details", .array([.string("No log found with id: \(id)")]))])
            return .json(body.serialized, status: 404)
        }
        return .json(entry.serialized)
    }

    /// `DELETE /api/logs`: empties what `GET` serves; `storedLogs` keeps its history.
    func clear() -> LoopbackResponse {
        state.withLock { $0.entries.removeAll() }
        return .json(#"{"message":"All logs cleared"}"#)
    }

    // MARK: - Waiting

    func waitForLogs(count: Int, timeout: TimeInterval) async throws {
        _ = try await progress.wait(timeout: timeout, until: { $0.stored >= count }) { progress in
            DevSeeReceiver.Timeout(expected: count, arrived: progress.stored, timeout: timeout)
        }
    }

    func waitForPosts(count: Int, timeout: TimeInterval) async throws {
        _ = try await progress.wait(timeout: timeout, until: { $0.posts >= count }) { progress in
            DevSeeReceiver.Timeout(expected: count, arrived: progress.posts, timeout: timeout)
        }
    }

    // MARK: - Recording

    private func store(_ body: Data, entry: JSONValue) {
        state.withLock { state in
            if keepsHistory { state.storedLogs.append(body) }
            state.entries.append(entry)
            if state.entries.count > Self.ringCapacity {
                state.entries.removeFirst(state.entries.count - Self.ringCapacity)
            }
        }
        progress.update { $0.stored += 1 }
        onLog?(Data(entry.serialized.utf8))
    }

    private func reject(
        _ request: LoopbackRequest,
        status: Int,
        reason: String,
        response: LoopbackResponse
    ) -> LoopbackResponse {
        let rejection = DevSeeReceiver.Rejection(status: status, reason: reason, body: request.body)
        if keepsHistory { state.withLock { $0.rejections.append(rejection) } }
        return response
    }

    private static func errorBody(status: Int, message: String) -> String {
        JSONValue.object([
            ("statusCode", .number(Double(status), text: String(status))),
            ("error", .string(LoopbackResponse.standardReason(for: status))),
            ("message", .string(message)),
        ]).serialized
    }

    private static func isoTimestamp() -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.string(from: Date())
    }
}
