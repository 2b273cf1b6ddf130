import DevSeeObserver
import Foundation
import HTTPCore
import XCTest
import DevSeeServer
import HTTPCoreConcurrency
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A logger pointed at a loopback receiver, with fast retries and captured diagnostics.
struct LoggerHarness {
    let receiver: DevSeeReceiver
    let logger: DevSeeLogger
    let diagnostics: AsyncCondition<[String]>

    init(receiver: DevSeeReceiver, _ configure: (inout DevSeeLoggerConfiguration) -> Void = { _ in }) {
        let diagnostics = AsyncCondition<[String]>([])
        var configuration = DevSeeLoggerConfiguration(appId: "com.example.tests", serverURL: receiver.baseURL)
        configuration.isEnabled = true
        configuration.endpointStore = InMemoryEndpointStore()
        configuration.initialBackoff = 0.02
        configuration.maxBackoff = 0.2
        configuration.diagnostics = { line in diagnostics.update { $0.append(line) } }
        configure(&configuration)
        self.receiver = receiver
        self.logger = DevSeeLogger(configuration: configuration)
        self.diagnostics = diagnostics
        HarnessLoggerShutdown.shared.track(logger)
    }

    /// Waits for a diagnostic line containing `text`.
    func waitForDiagnostic(containing text: String) async throws {
        _ = try await diagnostics.wait(timeout: 60, until: { $0.contains { $0.contains(text) } }) { lines in
            TestTimeout(description: "no diagnostic containing '\(text)' in \(lines)")
        }
    }
}

/// Shuts down, when each test ends, every logger a ``LoggerHarness`` made during it. A logger
/// left running keeps retrying its receiver's port, and a later test's receiver may be given
/// that port: it would then store the old test's logs.
final class HarnessLoggerShutdown: NSObject, XCTestObservation, Sendable {
    /// The one instance, observing the test run from its first use.
    static let shared: HarnessLoggerShutdown = {
        let shutdown = HarnessLoggerShutdown()
        XCTestObservationCenter.shared.addTestObserver(shutdown)
        return shutdown
    }()

    private let loggers = Locked<[DevSeeLogger]>([])

    /// Shuts `logger` down when the current test ends.
    func track(_ logger: DevSeeLogger) {
        loggers.withLock { $0.append(logger) }
    }

    func testCaseDidFinish(_ testCase: XCTestCase) {
        let loggers = loggers.withLock { loggers in
            defer { loggers = [] }
            return loggers
        }
        guard !loggers.isEmpty else { return }
        let done = DispatchSemaphore(value: 0)
        Task {
            for logger in loggers { await logger.shutdown() }
            done.signal()
        }
        // A minute at most: the test run goes on even if a shutdown hangs.
        _ = done.wait(timeout: .now() + 60)
    }
}

struct TestTimeout: Error, CustomStringConvertible {
    let description: String
}

func request(
    _ method: String = "GET",
    _ url: String = "https://api.example.com/users/42",
    headers: [String: String] = [:],
    body: Data? = nil
) -> URLRequest {
    var request = URLRequest(url: URL(string: url)!)
    request.httpMethod = method
    for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
    request.httpBody = body
    return request
}

func response(_ status: Int, _ url: String = "https://api.example.com/users/42", headers: [String: String] = [:]) -> HTTPURLResponse {
    HTTPURLResponse(url: URL(string: url)!, statusCode: status, httpVersion: "HTTP/1.1", headerFields: headers)!
}

extension DevSeeReceiver {
    /// The single stored log, decoded.
    func onlyLog(file: StaticString = #filePath, line: UInt = #line) throws -> [String: Any] {
        let objects = storedObjects()
        XCTAssertEqual(objects.count, 1, "stored logs", file: file, line: line)
        return try XCTUnwrap(objects.first, file: file, line: line)
    }
}
