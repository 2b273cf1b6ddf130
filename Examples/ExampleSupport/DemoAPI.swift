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
public enum DemoAPI {
    /// Starts the demo API on an ephemeral loopback port.
    public static func start() throws -> LoopbackHTTPServer {
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
        let flaky = Locked(FlakyState())
        server.route("GET", "/flaky") { request in
            flaky.withLock { $0.answer(request.headers["traceparent"]) }
        }
        return server
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
