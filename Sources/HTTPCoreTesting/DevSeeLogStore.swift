import Foundation
import HTTPCore

/// What a ``DevSeeReceiver`` has received and answered, and the tasks waiting for logs.
///
/// Route handlers (on connection threads) and test code (on any thread or task) share it
/// through one lock.
final class DevSeeLogStore: Sendable {
    /// How many entries `GET /api/logs` can return, as dev-see's ring buffer.
    static let ringCapacity = 1_000

    private struct Waiter {
        var count: Int
        var continuation: CheckedContinuation<Void, any Error>
        var deadline: Task<Void, Never>?
    }

    private struct State {
        var storedLogs: [Data] = []
        /// The entries `GET /api/logs` serves: the newest `ringCapacity`, oldest first.
        var entries: [JSONValue] = []
        var rejections: [DevSeeReceiver.Rejection] = []
        var postCount = 0
        var script: [DevSeeReceiver.ScriptedAnswer] = []
        var waiters: [Int: Waiter] = [:]
        var nextWaiterID = 0
    }

    private let state = Locked(State())

    var storedLogs: [Data] {
        state.withLock { $0.storedLogs }
    }

    var rejections: [DevSeeReceiver.Rejection] {
        state.withLock { $0.rejections }
    }

    var postCount: Int {
        state.withLock { $0.postCount }
    }

    func script(_ answers: [DevSeeReceiver.ScriptedAnswer]) {
        state.withLock { $0.script.append(contentsOf: answers) }
    }

    // MARK: - Endpoints

    /// `POST /api/logs`: a scripted answer if one is queued, else dev-see's validation.
    func post(_ request: LoopbackRequest, lifecycle: LoopbackServerLifecycle) -> LoopbackResponse {
        let scripted = state.withLock { state -> DevSeeReceiver.ScriptedAnswer? in
            state.postCount += 1
            return state.script.isEmpty ? nil : state.script.removeFirst()
        }
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
        case .delay(let seconds):
            guard lifecycle.pause(seconds) else {
                var response = LoopbackResponse()
                response.fault = .reset
                return response
            }
        case nil:
            break
        }

        switch DevSeeLogValidator.validate(contentType: request.headers["Content-Type"], body: request.body) {
        case .rejected(let status, let reason, let body):
            return reject(request, status: status, reason: reason, response: .json(body, status: status))
        case .accepted(let log):
            var entry = JSONValue.object([
                ("id", .string(UUID().uuidString.lowercased())),
                ("timestamp", .string(Self.isoTimestamp())),
            ])
            if case .object(let members) = log {
                for member in members { entry.set(member.key, member.value) }
            }
            store(request.body, entry: entry)
            return .json(entry.serialized, status: 201)
        }
    }

    /// `GET /api/logs?limit=N`: the newest `N` entries (all when no limit), oldest first.
    func list(_ request: LoopbackRequest) -> LoopbackResponse {
        var limit = Int.max
        for item in (request.query ?? "").split(separator: "&") {
            let pair = item.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard pair.first == "limit" else { continue }
            guard pair.count == 2, let value = Int(pair[1]), value > 0 else {
                return .json(Self.errorBody(status: 400, message: "limit must be a positive number"), status: 400)
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

    /// `GET /api/logs/:id`: one entry, or 404.
    func entry(id: String) -> LoopbackResponse {
        let entry = state.withLock { state in
            state.entries.last { $0["id"] == .string(id) }
        }
        guard let entry else {
            return .json(JSONValue.object([("error", .string("Log not found"))]).serialized, status: 404)
        }
        return .json(entry.serialized)
    }

    /// `DELETE /api/logs`: empties what `GET` serves; `storedLogs` keeps its history.
    func clear() -> LoopbackResponse {
        state.withLock { $0.entries.removeAll() }
        return .json(#"{"success":true}"#)
    }

    // MARK: - Waiting

    func waitForLogs(count: Int, timeout: TimeInterval) async throws {
        let id = state.withLock { state in
            state.nextWaiterID += 1
            return state.nextWaiterID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let alreadyThere = state.withLock { state in
                    guard state.storedLogs.count < count else { return true }
                    state.waiters[id] = Waiter(count: count, continuation: continuation)
                    return false
                }
                if alreadyThere {
                    continuation.resume()
                    return
                }
                let deadline = Task {
                    try? await Task.sleep(nanoseconds: UInt64(max(0, timeout) * 1_000_000_000))
                    guard !Task.isCancelled else { return }
                    finishWaiter(id) { arrived in DevSeeReceiver.Timeout(expected: count, arrived: arrived, timeout: timeout) }
                }
                let stillWaiting = state.withLock { state in
                    state.waiters[id]?.deadline = deadline
                    return state.waiters[id] != nil
                }
                if !stillWaiting { deadline.cancel() }
                // The cancellation handler may have run before the waiter was registered.
                if Task.isCancelled { finishWaiter(id) { _ in CancellationError() } }
            }
        } onCancel: {
            finishWaiter(id) { _ in CancellationError() }
        }
    }

    /// Resumes a waiter with the error `makeError` builds from the number of stored logs, if it
    /// is still waiting.
    private func finishWaiter(_ id: Int, _ makeError: (Int) -> any Error) {
        let finished = state.withLock { state in
            state.waiters.removeValue(forKey: id).map { ($0, state.storedLogs.count) }
        }
        guard let (waiter, arrived) = finished else { return }
        waiter.deadline?.cancel()
        waiter.continuation.resume(throwing: makeError(arrived))
    }

    // MARK: - Recording

    private func store(_ body: Data, entry: JSONValue) {
        let satisfied = state.withLock { state in
            state.storedLogs.append(body)
            state.entries.append(entry)
            if state.entries.count > Self.ringCapacity {
                state.entries.removeFirst(state.entries.count - Self.ringCapacity)
            }
            let ready = state.waiters.filter { $0.value.count <= state.storedLogs.count }
            for id in ready.keys { state.waiters[id] = nil }
            return Array(ready.values)
        }
        for waiter in satisfied {
            waiter.deadline?.cancel()
            waiter.continuation.resume()
        }
    }

    private func reject(
        _ request: LoopbackRequest,
        status: Int,
        reason: String,
        response: LoopbackResponse
    ) -> LoopbackResponse {
        let rejection = DevSeeReceiver.Rejection(status: status, reason: reason, body: request.body)
        state.withLock { $0.rejections.append(rejection) }
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
