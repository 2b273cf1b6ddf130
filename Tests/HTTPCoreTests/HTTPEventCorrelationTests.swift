import Foundation
import HTTPCore
import HTTPCoreTesting
import XCTest

/// What `HTTPEvent.correlationID` shows, by who set the value and how the header is judged.
final class HTTPEventCorrelationTests: XCTestCase {
    private let secret = "caller-S3CRET"

    private func correlationID(header: String, callerValue: String?, redactor: Redactor) async throws -> (event: String?, sent: String?) {
        let dispatcher = HTTPEventDispatcher()
        let recorder = RecordingObserver()
        dispatcher.subscribe(recorder)
        let transport = MockTransport()
        let policy = HTTPCorePolicy(redactor: redactor, correlationHeaderName: header)
        let client = HTTPTransportClient(transport: transport, dispatcher: dispatcher, policy: policy)
        var headers: HTTPHeaders = [:]
        if let callerValue { headers.add(name: header, value: callerValue) }
        _ = try await client.send(HTTPRequest(url: URL(string: "https://api.example.com")!, headers: headers))
        let events = try await recorder.waitForTerminalEvents(count: 1)
        XCTAssertEqual(Set(events.map(\.correlationID)).count, 1, "every event shows the same")
        return (events.last?.correlationID, transport.requests.first?.headers[header])
    }

    func testACallersValueIsShownOnlyWhereTheHeaderWouldBe() async throws {
        let cases: [(header: String, redactor: Redactor, shown: Bool)] = [
            ("X-Correlation-ID", .standard, true),
            ("Authorization", .standard, false),
            ("X-Api-Key", .standard, false),
            ("X-Trace", Redactor(level: .standard, sensitiveHeaderNames: ["x-trace"]), false),
            ("X-Correlation-ID", .strict, false),
            ("X-Correlation-ID", .none, true),
        ]
        for (header, redactor, shown) in cases {
            let result = try await correlationID(header: header, callerValue: secret, redactor: redactor)
            XCTAssertEqual(result.event, shown ? secret : Redactor.mask, "\(header) at \(redactor.level)")
            XCTAssertEqual(result.sent, secret, "the request itself is untouched")
        }
    }

    func testAGeneratedValueIsAlwaysShown() async throws {
        for redactor in [Redactor.standard, .strict] {
            let result = try await correlationID(header: "X-Correlation-ID", callerValue: nil, redactor: redactor)
            XCTAssertNotNil(UUID(uuidString: result.event ?? ""), "\(redactor.level)")
            XCTAssertEqual(result.event, result.sent)
        }
    }
}
