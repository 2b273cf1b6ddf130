import Foundation
import HTTPCore

/// A small JSON API on a loopback server, for examples, demos and benchmarks.
///
/// Routes: `GET /users/42` (a user), `POST /login` (a token), `GET /missing` (404),
/// `GET /broken` (500), `GET /slow` (answers after 10 s, cut short by `stop()`).
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
        return server
    }
}
