import DevSeeObserver
import DevSeeServer
import Foundation
import HTTPCore
import HTTPCoreConcurrency
import HTTPCoreURLSession
import XCTest

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Uploads go through any `HTTPTransport` given to the logger.
final class DevSeeTransportTests: XCTestCase {
    func testUploadsGoThroughTheGivenTransport() async throws {
        let receiver = try DevSeeReceiver()
        defer { receiver.stop() }
        let session = URLSession(configuration: URLSessionClient.makeDefaultConfiguration())
        defer { session.finishTasksAndInvalidate() }
        let transport = CountingTransport(URLSessionTransport(session: session))
        var configuration = DevSeeLoggerConfiguration(appId: "com.example.tests", serverURL: receiver.baseURL)
        configuration.isEnabled = true
        configuration.endpointStore = nil
        configuration.diagnostics = { _ in }
        let logger = DevSeeLogger(configuration: configuration, transport: transport)

        for index in 0..<3 {
            await logger.log(request: request("GET", "https://api.example.com/items/\(index)"), response: response(200))
        }
        await logger.flush()

        XCTAssertEqual(transport.requests.count, 3)
        XCTAssertEqual(Set(transport.requests.map(\.url.absoluteString)), ["http://127.0.0.1:\(receiver.port)/api/logs"])
        XCTAssertEqual(Set(transport.requests.map(\.method)), [.post])
        XCTAssertEqual(receiver.storedLogs.count, 3)
        XCTAssertEqual(logger.statistics.delivered, 3)
        await logger.shutdown()
    }
}

/// Passes every request to another transport and keeps it.
private struct CountingTransport: HTTPTransport {
    let base: any HTTPTransport
    private let recorded = Locked<[HTTPRequest]>([])

    init(_ base: any HTTPTransport) {
        self.base = base
    }

    var requests: [HTTPRequest] { recorded.withLock { $0 } }

    func perform(_ request: HTTPRequest, body: HTTPBody?) async throws -> (HTTPResponse.Head, HTTPBody) {
        recorded.withLock { $0.append(request) }
        return try await base.perform(request, body: body)
    }
}
