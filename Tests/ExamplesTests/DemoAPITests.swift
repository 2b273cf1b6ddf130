import Foundation
import XCTest
import ExampleSupport
import HTTPCoreLoopback
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

final class DemoAPITests: XCTestCase {
    func testRoutesAnswerAsDocumented() async throws {
        let api = try DemoAPI.start()
        defer { api.stop() }
        func status(_ method: String, _ path: String, traceparent: String? = nil) async throws -> (Int, String) {
            var request = URLRequest(url: api.url(path))
            request.httpMethod = method
            request.setValue(traceparent, forHTTPHeaderField: "traceparent")
            let (data, response) = try await URLSession.shared.data(for: request)
            return ((response as? HTTPURLResponse)?.statusCode ?? 0, String(decoding: data, as: UTF8.self))
        }
        let user = try await status("GET", "/users/42")
        XCTAssertEqual(user.0, 200)
        XCTAssertTrue(user.1.hasPrefix(#"{"id":42,"#))
        let login = try await status("POST", "/login")
        XCTAssertEqual(login.0, 200)
        XCTAssertTrue(login.1.contains(#""token":"#))
        let missing = try await status("GET", "/missing")
        let broken = try await status("GET", "/broken")
        XCTAssertEqual([missing.0, broken.0], [404, 500])
        XCTAssertEqual(api.server.requests.map(\.path), ["/users/42", "/login", "/missing", "/broken"])

        let trace = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
        let flaky = [
            try await status("GET", "/flaky", traceparent: trace).0,
            try await status("GET", "/flaky", traceparent: trace).0,
            try await status("GET", "/flaky", traceparent: trace).0,
            try await status("GET", "/flaky").0,
            try await status("GET", "/flaky").0,
        ]
        XCTAssertEqual(flaky, [503, 200, 503, 503, 200], "a trace is refused once, then served; untraced requests take turns")
        XCTAssertEqual(api.server.requests.last?.path, "/flaky")
    }

    func testStreamedRoutesSendTheEventsAndTheGeneratedDownloadAsDocumented() async throws {
        let api = try DemoAPI.start()
        defer { api.stop() }

        let (events, eventsResponse) = try await URLSession.shared.data(from: api.url("/events"))
        let (download, downloadResponse) = try await URLSession.shared.data(from: api.url("/download?mib=2"))

        XCTAssertEqual((eventsResponse as? HTTPURLResponse)?.value(forHTTPHeaderField: "Content-Type"), "text/event-stream")
        XCTAssertEqual(String(decoding: events, as: UTF8.self), DemoAPI.events.joined())
        XCTAssertTrue(DemoAPI.events[3].contains(#""api_key":"sk-demo-"#))
        XCTAssertEqual((downloadResponse as? HTTPURLResponse)?.value(forHTTPHeaderField: "Content-Length"), "2097152")
        XCTAssertEqual(LoopbackBodyDigest(of: download), LoopbackBodyPattern.digest(byteCount: 2_097_152))
    }
}
