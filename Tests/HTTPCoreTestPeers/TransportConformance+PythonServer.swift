import Foundation
import HTTPCore
import HTTPCoreObservation
import HTTPCoreTesting

extension TransportConformance {
    #if os(macOS) || os(Linux)
    /// Runs the checks that a server this package did not write can answer: CPython's
    /// `http.server` (``PythonHTTPServer``) serving files, a missing file, `HEAD`.
    public static func runAgainstPythonServer(
        makeClient: @escaping @Sendable (HTTPEventDispatcher) -> any HTTPClient
    ) async -> [String] {
        let server: PythonHTTPServer
        do {
            server = try PythonHTTPServer()
        } catch {
            return ["python http.server: \(error)"]
        }
        defer { server.stop() }
        let client = makeClient(HTTPEventDispatcher())
        var failures: [String] = []
        func check(_ name: String, _ body: () async throws -> Void) async {
            do { try await body() } catch { failures.append("python http.server, \(name): \(error)") }
        }
        await check("a small file") {
            let response = try await client.send(HTTPRequest(url: server.url("/hello.txt"), timeout: 10))
            try TransportConformance.expect(response.statusCode, 200, "status")
            try TransportConformance.expect(response.body, PythonHTTPServer.hello, "body")
        }
        await check("a 1 MiB file") {
            let response = try await client.send(HTTPRequest(url: server.url("/blob.bin"), timeout: 10))
            try TransportConformance.expect(response.body, PythonHTTPServer.blob, "body")
        }
        await check("a missing file") {
            try TransportConformance.expect(try await client.send(HTTPRequest(url: server.url("/missing"), timeout: 10)).statusCode, 404, "status")
        }
        await check("HEAD") {
            let response = try await client.send(HTTPRequest(method: .head, url: server.url("/hello.txt"), timeout: 10))
            try TransportConformance.expect(response.statusCode, 200, "status")
            try TransportConformance.expect(response.body.count, 0, "body bytes")
            try TransportConformance.expect(response.headers["Content-Length"], "\(PythonHTTPServer.hello.count)", "Content-Length")
        }
        return failures
    }
    #endif
}
