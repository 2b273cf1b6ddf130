import Foundation
import HTTPCoreTesting
import XCTest

@testable import HTTPCore
import HTTPCoreConcurrency

final class HTTPEventTests: XCTestCase {
    func testRedactionRunsWhenAnObserverReadsNotOnTheRequestPath() async throws {
        let dispatcher = HTTPEventDispatcher()
        let kept = Locked<[HTTPEvent]>([])
        dispatcher.subscribe { event in kept.withLock { $0.append(event) } }
        let body = Data(#"{"password":"hunter2"}"#.utf8)
        let client = HTTPTransportClient(transport: MockTransport(default: .status(200, body: body)), dispatcher: dispatcher, policy: .debug)
        _ = try await client.send(HTTPRequest(method: .post, url: URL(string: "https://a.example/?token=t")!, body: body))
        await dispatcher.flush()

        let events = kept.withLock { $0 }
        XCTAssertEqual(events.count, 4)
        XCTAssertTrue(events.allSatisfy { !$0.requestRecord.isExposed }, "send returned and nothing was redacted yet")
        XCTAssertEqual(events[0].request.url, "https://a.example/?token=[REDACTED]")
        XCTAssertTrue(events.allSatisfy { $0.requestRecord.isExposed }, "one redaction, shared by every event of the exchange")
        XCTAssertTrue(events.allSatisfy { $0.requestRecord === events[0].requestRecord })
    }

    func testTheStatusCodeIsReadWithoutRedactingTheResponse() async throws {
        let dispatcher = HTTPEventDispatcher()
        let kept = Locked<[HTTPEvent]>([])
        dispatcher.subscribe { event in kept.withLock { $0.append(event) } }
        let client = HTTPTransportClient(transport: MockTransport(default: .status(404, body: Data("{}".utf8))), dispatcher: dispatcher)
        _ = try await client.send(HTTPRequest(url: URL(string: "https://a.example/missing")!))
        await dispatcher.flush()

        let terminal = try XCTUnwrap(kept.withLock { $0 }.last)
        XCTAssertEqual(terminal.statusCode, 404)
        XCTAssertEqual(terminal.responseRecord?.isExposed, false, "the status alone redacts nothing")
        XCTAssertEqual(terminal.response?.statusCode, 404)
        XCTAssertEqual(terminal.responseRecord?.isExposed, true)
        XCTAssertNil(kept.withLock { $0 }.first?.statusCode, "no status before a response")
    }
}
