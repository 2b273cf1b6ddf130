import DevSeeObserver
import Foundation
import HTTPCore
import HTTPCoreObservation
import XCTest
import DevSeeServer
import HTTPCoreConcurrency
import HTTPCoreTestEnd
import HTTPCoreTestPeers
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A logger pointed at a loopback receiver, with fast retries and captured diagnostics: their
/// messages, and whole.
struct LoggerHarness {
    let receiver: DevSeeReceiver
    let logger: DevSeeLogger
    let diagnostics: AsyncCondition<[String]>
    let reports = Locked<[HTTPDiagnostic]>([])

    init(receiver: DevSeeReceiver, _ configure: (inout DevSeeLoggerConfiguration) -> Void = { _ in }) {
        let diagnostics = AsyncCondition<[String]>([])
        var configuration = DevSeeLoggerConfiguration(appId: "com.example.tests", serverURL: receiver.baseURL)
        configuration.isEnabled = true
        configuration.endpointStore = InMemoryEndpointStore()
        configuration.delivery.backoff.initial = 0.02
        configuration.delivery.backoff.maximum = 0.2
        // A timeout only bounds a hang: a 1 MiB log built and sent under the thread sanitizer
        // on a loaded machine took more than the default 10 s, which counts as an outage.
        configuration.uploadTimeout = 60
        let reports = reports
        configuration.diagnostics = { report in
            reports.withLock { $0.append(report) }
            diagnostics.update { $0.append(report.message) }
        }
        configure(&configuration)
        self.receiver = receiver
        self.logger = DevSeeLogger(configuration: configuration)
        self.diagnostics = diagnostics
        TestEndShutdowns.shared.add { [logger] in await logger.shutdown() }
    }

    /// Waits for a diagnostic line containing `text`.
    func waitForDiagnostic(containing text: String) async throws {
        _ = try await diagnostics.wait(timeout: 60, until: { $0.contains { $0.contains(text) } }) { lines in
            TestTimeout(description: "no diagnostic containing '\(text)' in \(lines)")
        }
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
