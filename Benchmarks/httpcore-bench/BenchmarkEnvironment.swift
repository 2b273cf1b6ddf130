import DevSeeObserver
import Foundation
import HTTPCoreURLSession
import HTTPCoreLoopback
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A benchmark could not set up what it measures; the message says what failed.
struct BenchmarkError: Error, CustomStringConvertible {
    let description: String
}

/// Shared pieces of the benchmarks' setup: sessions, loggers and an unreachable server.
enum BenchmarkEnvironment {
    /// A plain URLSession configured like `URLSessionClient.makeDefaultSession()` (ephemeral,
    /// no cookies, no cache) but without its delegate: the bare baseline.
    static func makeBareSession() -> URLSession {
        URLSession(configuration: URLSessionClient.makeDefaultConfiguration())
    }

    /// The URL of a loopback port nothing listens on: the port of a server that was stopped.
    static func unreachableServerURL() throws -> URL {
        let server = try LoopbackHTTPServer()
        let url = server.baseURL
        server.stop()
        return url
    }

    /// An enabled logger sending to `serverURL`, persisting nothing and printing nothing.
    static func makeLogger(
        serverURL: URL,
        customize: (inout DevSeeLoggerConfiguration) -> Void = { _ in }
    ) -> DevSeeLogger {
        var configuration = DevSeeLoggerConfiguration(appId: "com.example.httpcore-bench", serverURL: serverURL)
        configuration.isEnabled = true
        configuration.endpointStore = nil
        configuration.diagnostics = { _ in }
        customize(&configuration)
        return DevSeeLogger(configuration: configuration)
    }

    /// Performs one data task with a completion handler; returns the status code and the body.
    static func bareDataTask(_ session: URLSession, _ request: URLRequest) async throws -> (status: Int, body: Data) {
        try await withCheckedThrowingContinuation { continuation in
            session.dataTask(with: request) { data, response, error in
                if let error {
                    continuation.resume(throwing: error)
                } else if let http = response as? HTTPURLResponse {
                    continuation.resume(returning: (http.statusCode, data ?? Data()))
                } else {
                    continuation.resume(throwing: BenchmarkError(description: "not an HTTP response"))
                }
            }.resume()
        }
    }
}
