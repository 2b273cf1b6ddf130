import Foundation
import HTTPCoreConcurrency
import HTTPCoreLoopback
import HTTPCoreText

/// A log server that accepts exactly what dev-see's desktop server accepts, for tests and
/// benchmarks of code that sends logs to dev-see.
///
/// `POST /api/logs` answers with dev-see's status codes and messages: 415 for a content type
/// other than `application/json` or `text/plain` (parameters such as `charset` allowed), or
/// none with a body; 413 over 1 MiB; 400 for an empty or invalid JSON body or prototype
/// poisoning; 400 `{"error":"Validation failed","details":[...]}` with dev-see's own
/// messages for a body that is not an object (`Request body must be a valid JSON object`:
/// any `text/plain` body, JSON `null`, a number), and when `method`, `url` (non-empty
/// strings), `statusCode` (a JSON number 100...599), `duration` (a number >= 0), the header
/// fields (anything JavaScript calls an object: `null` and arrays pass) or `error` (a string
/// when present, `null` refused) are wrong; and 201 with the stored entry
/// `{"id":…,"timestamp":…,…}` (the client's fields win) otherwise. `GET /api/logs?limit=N`,
/// `GET /api/logs/:id` and `DELETE /api/logs` answer as dev-see does.
///
/// Parsing is Fastify's, not strict RFC 8259: a leading byte order mark is skipped; a number
/// beyond `Double`'s range (`1e400`) is `Infinity` to the checks and `null` in what is
/// served, as `JSON.stringify` writes it; and the body is read as Node decodes text, each
/// maximal ill-formed UTF-8 subsequence a U+FFFD, whose UTF-8 length must then match a
/// `Content-Length` (else 400 `FST_ERR_CTP_INVALID_CONTENT_LENGTH`, as Fastify answers) and
/// stay within 1 MiB (413).
///
/// ```swift
/// let receiver = try DevSeeReceiver()
/// // … point the code under test at receiver.baseURL and make it log twice …
/// try await receiver.waitForLogs(count: 2)
/// XCTAssertEqual(receiver.storedObjects()[0]["statusCode"] as? Int, 200)
/// ```
///
/// Every property and method may be used from any thread or task.
public final class DevSeeReceiver: Sendable {
    private let server: LoopbackHTTPServer
    private let store: DevSeeLogStore
    /// ``storedObjects()``'s objects so far, each log parsed on the first call that returns it.
    private let parsedLogs = Locked(ParsedLogs())

    /// The objects of the first stored logs, in arrival order (`nil` for one that does not read
    /// as an object), and how many logs were parsed to make them.
    ///
    /// Its objects are values and immutable Foundation objects (what `JSONSerialization` makes
    /// without `.mutableContainers`), never changed once made, so handing them to any thread is
    /// safe; the lock guards the arrays.
    private struct ParsedLogs {
        var objects: [[String: Any]?] = []
        var parseCount = 0
    }

    /// Starts listening on 127.0.0.1:`port` (`0` picks a free port) at once.
    ///
    /// The port of a stopped receiver can be bound again right away. Throws
    /// ``/HTTPCoreLoopback/LoopbackHTTPServer/Error`` when the port cannot be bound.
    ///
    /// - Parameters:
    ///   - port: The port; `0` picks a free one.
    ///   - keepsHistory: Whether ``storedLogs`` and ``rejections`` keep everything (for
    ///     tests); `false` for a long-running receiver, whose memory is then bounded by the
    ///     1,000 entries `GET /api/logs` serves.
    ///   - onLog: Called with each stored entry as `GET /api/logs/:id` would serve it (the
    ///     client's fields with `id` and `timestamp`), on the connection's thread, after the
    ///     201 is decided.
    public init(
        port: UInt16 = 0,
        keepsHistory: Bool = true,
        onLog: (@Sendable (Data) -> Void)? = nil
    ) throws(LoopbackHTTPServer.Error) {
        let store = DevSeeLogStore(keepsHistory: keepsHistory, onLog: onLog)
        self.store = store
        // Routes first, then accepting: a client retrying this port must not meet a 404.
        server = try LoopbackHTTPServer(port: port) { server in
            let lifecycle = server.lifecycle
            server.route("POST", "/api/logs") { store.post($0, lifecycle: lifecycle) }
            server.route("GET", "/api/logs") { store.list($0) }
            server.route("DELETE", "/api/logs") { _ in store.clear() }
            server.setFallback { request in
                let prefix = "/api/logs/"
                if request.method == "GET" || request.method == "HEAD", request.path.hasPrefix(prefix) {
                    return store.entry(id: String(request.path.dropFirst(prefix.count)))
                }
                let body = JSONValue.object([
                    ("message", .string("Route \(request.method):\(request.path) not found")),
                    ("error", .string("Not Found")),
                    ("statusCode", .number(404, text: "404")),
                ])
                return .json(body.serialized, status: 404)
            }
        }
    }

    /// The port the receiver listens on.
    public var port: UInt16 {
        server.port
    }

    /// `http://127.0.0.1:PORT`, where a dev-see client should send its logs.
    public var baseURL: URL {
        server.baseURL
    }

    /// The body of every accepted log exactly as the client sent it, in arrival order.
    ///
    /// `DELETE /api/logs` does not clear this history.
    public var storedLogs: [Data] {
        store.storedLogs
    }

    /// ``storedLogs`` as dev-see holds them, as the Foundation objects `JSONSerialization`
    /// would make of them, in arrival order.
    ///
    /// Read as the receiver read them when it accepted them: a number beyond `Double`'s range
    /// (`1e400`) is `NSNull`, as dev-see serves it, invalid UTF-8 in a string is U+FFFD, and a
    /// leading byte order mark is skipped.
    /// Beware that numbers are bridged `NSNumber`s: `statusCode` reads as `Int`, and a
    /// boolean would read as `1` or `0` (the receiver refuses boolean status codes).
    ///
    /// Each log is parsed once, by the first call that returns it; later calls return the same
    /// objects, so polling this while logs arrive costs a copy of the array, not a parse of
    /// every log.
    public func storedObjects() -> [[String: Any]] {
        let logs = storedLogs
        return parsedLogs.withLock { parsed in
            for body in logs.dropFirst(parsed.objects.count) {
                parsed.objects.append(Self.object(of: body))
                parsed.parseCount += 1
            }
            // A call that read fewer logs than another one parsed returns what it read.
            return parsed.objects.prefix(logs.count).compactMap { $0 }
        }
    }

    /// How many stored logs ``storedObjects()`` parsed: each once, however often it is called.
    var parsedLogCount: Int {
        parsedLogs.withLock { $0.parseCount }
    }

    /// A stored log as ``storedObjects()`` returns it: read as the receiver holds it (`null`
    /// for a number beyond `Double`'s range, U+FFFD for invalid UTF-8), as Foundation objects.
    private static func object(of body: Data) -> [String: Any]? {
        guard let log = try? DevSeeLogValidator.parse(body) else { return nil }
        return log.nonFiniteNumbersAsNull.foundationObject as? [String: Any]
    }

    /// Every `POST /api/logs` that was not stored, in arrival order, scripted answers included.
    public var rejections: [Rejection] {
        store.rejections
    }

    /// How many `POST /api/logs` requests arrived, stored or not.
    public var postCount: Int {
        store.postCount
    }

    /// Queues answers for the next `POST /api/logs` requests, one per request, in order,
    /// after any already queued; once the queue is empty, requests are handled normally.
    public func script(_ answers: [ScriptedAnswer]) {
        store.script(answers)
    }

    /// A gate for a ``ScriptedAnswer/held(_:)`` answer, closed until opened; `stop()` ends
    /// every wait at it.
    public func makeGate() -> LoopbackGate {
        server.makeGate()
    }

    /// Returns once at least `count` logs are stored, or throws ``Timeout`` after `timeout`
    /// seconds (saying how many arrived), or `CancellationError` when the task is cancelled.
    ///
    /// Resumed by the store itself when a log arrives; nothing polls.
    public func waitForLogs(count: Int, timeout: TimeInterval = 60) async throws {
        try await store.waitForLogs(count: count, timeout: timeout)
    }

    /// Returns once at least `count` `POST /api/logs` requests arrived, stored or not; throws
    /// ``Timeout`` after `timeout` seconds or `CancellationError` when the task is cancelled.
    public func waitForPosts(count: Int, timeout: TimeInterval = 60) async throws {
        try await store.waitForPosts(count: count, timeout: timeout)
    }

    /// Stops the server as ``/HTTPCoreLoopback/LoopbackHTTPServer/stop()`` does; idempotent. Stored logs stay readable.
    public func stop() {
        server.stop()
    }
}
