import Foundation
import HTTPCore
import HTTPCoreObservation
import HTTPCoreLoopback
import HTTPCoreURLSession
import XCTest

/// A cancellation that meets a redirect: FoundationNetworking traps when the session
/// delegate's redirect decision reaches it after a cancel, so the transport drops the decision
/// for a task it cancelled.
final class TaskCancellationTests: XCTestCase {
    func testDeadlinesThatMeetRedirectsEndInTimeoutsNotATrap() async throws {
        let server = try LoopbackHTTPServer { server in
            server.route("/redirect") { _ in .redirect(to: "/end") }
            server.route("/end") { _ in .text("end") }
        }
        defer { server.stop() }
        let client = URLSessionClient(session: URLSessionClient.makeDefaultSession(), dispatcher: HTTPEventDispatcher())
        var outcomes: [String: Int] = [:]
        for index in 0..<400 {
            // Deadlines as short as a redirect's round trip, so that many cancels land while
            // URLSession waits for the redirect decision.
            let request = HTTPRequest(method: .head, url: server.url("/redirect"), timeout: [0.001, 0.002, 0.004][index % 3])
            do {
                let response = try await client.send(request)
                outcomes["\(response.statusCode)", default: 0] += 1
            } catch let error as HTTPError {
                outcomes[error.code.rawValue, default: 0] += 1
            }
        }
        XCTAssertEqual(outcomes.values.reduce(0, +), 400)
        XCTAssertEqual(Set(outcomes.keys).subtracting(["200", "timeout"]), [], "\(outcomes)")
    }
}
