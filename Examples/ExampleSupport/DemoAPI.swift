import Foundation
import HTTPCoreConcurrency
import HTTPCoreLoopback

/// A small JSON API on a loopback server, for examples, demos and benchmarks.
///
/// Routes: `GET /users/42` (a user), `POST /login` (a token), `GET /missing` (404),
/// `GET /broken` (500), `GET /slow` (answers after 10 s, cut short by `stop()`), and
/// `GET /flaky`, a busy service for retry demos: 503 with `Retry-After: 0` the first time it
/// sees a `traceparent`, 200 when the same `traceparent` comes again (so every attempt of a
/// request that carries one trace succeeds on its second attempt); without a `traceparent`,
/// 503 and 200 in turn.
///
/// Streamed routes: `GET /events`, a `text/event-stream` like an LLM's token stream: the
/// events in ``events`` (with `event:`, `id:` and `data:` fields; the last carries JSON with a
/// fake `"api_key"`, so redaction shows), `eventPause` seconds apart, chunked. `GET /download?mib=N`:
/// N MiB (default 1) of ``LoopbackBodyPattern`` with `Content-Length`, generated as it is sent,
/// so any size costs the server 64 KiB.
public enum DemoAPI {
    /// The server-sent events `GET /events` sends, in order, as they appear on the wire.
    public static let events: [String] = [
        "event: delta\nid: 1\ndata: Hello\n\n",
        "event: delta\nid: 2\ndata: , world\n\n",
        "event: delta\nid: 3\ndata: !\n\n",
        "event: usage\nid: 4\ndata: {\"tokens\":3,\"api_key\":\"sk-demo-1234567890abcdef\"}\n\n",
        "event: done\nid: 5\ndata: [DONE]\n\n",
    ]

    /// Seconds between two events of `GET /events`.
    public static let eventPause: TimeInterval = 0.2

    /// Starts the demo API on an ephemeral loopback port.
    public static func start() throws -> DemoServer {
        let server = try LoopbackHTTPServer()
        server.route("GET", "/users/42") { _ in
            .json(#"{"id":42,"name":"Roy Kent","email":"roy@example.com","team":"AFC Richmond"}"#)
        }
        server.route("POST", "/login") { _ in
            .json(#"{"token":"eyJhbGciOiJIUzI1NiJ9.demo.signature","expiresIn":3600}"#)
        }
        server.route("GET", "/missing") { _ in .json(#"{"error":"not found"}"#, status: 404) }
        server.route("GET", "/broken") { _ in .json(#"{"error":"internal error"}"#, status: 500) }
        server.route("GET", "/slow") { _ in
            var response = LoopbackResponse.json(#"{"slow":true}"#)
            response.delay = 10
            return response
        }
        server.route("GET", "/events", streaming: { _, writer in
            try writer.writeHead(headers: ["Content-Type": "text/event-stream", "Cache-Control": "no-cache"], framing: .chunked)
            for (index, event) in events.enumerated() {
                if index > 0 { try writer.pause(eventPause) }
                try writer.write(event)
            }
        })
        server.route("GET", "/download", streaming: { request, writer in
            let mebibytes = request.query.flatMap(Self.mebibytes(in:)) ?? 1
            let size = Int64(mebibytes) * 1_048_576
            try writer.writeHead(headers: ["Content-Type": "application/octet-stream"], framing: .contentLength(size))
            try writer.writePattern(byteCount: size)
        })
        let flaky = Locked(FlakyState())
        server.route("GET", "/flaky") { request in
            flaky.withLock { $0.answer(request.headers["traceparent"]) }
        }
        return DemoServer(server)
    }

    /// The `mib` parameter of a query such as `mib=512`, when it is a count from 0 to 1,048,576.
    private static func mebibytes(in query: String) -> Int? {
        for pair in query.split(separator: "&") where pair.hasPrefix("mib=") {
            if let value = Int(pair.dropFirst(4)), (0...1_048_576).contains(value) { return value }
        }
        return nil
    }

    /// Which requests `/flaky` has refused, and wants to see again.
    private struct FlakyState {
        /// `traceparent`s refused once; each is forgotten when it comes back, so the set holds
        /// only requests between two attempts.
        var refused = Set<String>()
        var refusesNext = true

        mutating func answer(_ traceparent: String?) -> LoopbackResponse {
            let refuses: Bool
            if let traceparent {
                refuses = refused.insert(traceparent).inserted
                if !refuses { refused.remove(traceparent) }
            } else {
                refuses = refusesNext
                refusesNext.toggle()
            }
            guard refuses else { return .json(#"{"busy":false}"#) }
            var response = LoopbackResponse.json(#"{"error":"busy, try again"}"#, status: 503)
            response.headers.add(name: "Retry-After", value: "0")
            return response
        }
    }
}
