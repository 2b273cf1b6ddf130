import Foundation
import HTTPCore
import HTTPCoreObservation
import HTTPCoreTesting
import XCTest

@testable import custom_transport
import HTTPCoreConcurrency

final class CustomTransportTests: XCTestCase {
    func testReplayedCallsAreObservedAndLoggedWithoutEventCode() async throws {
        let lines = Locked<[String]>([])
        let status = await CustomTransportExample.run { line in lines.withLock { $0.append(line) } }
        XCTAssertEqual(status, 0)
        XCTAssertEqual(lines.withLock { $0 }, [
            lines.withLock { $0[0] },
            lines.withLock { $0[1] },
            lines.withLock { $0[2] },
            "dev-see receiver stored 3 logs, without a line of event code in the adapter",
        ])
        let output = lines.withLock { $0 }
        XCTAssertTrue(output[0].hasPrefix("GET https://replay.example.com/users/42 -> 200"))
        XCTAssertTrue(output[1].hasPrefix("GET https://replay.example.com/teams/7 -> 404"))
        XCTAssertTrue(output[2].hasPrefix("GET https://replay.example.com/unrecorded -> failed: transport error [cannot_connect]"))
    }

    /// The adapter shown in the WritingATransport article, event by event.
    func testReplayTransportGetsEveryLifecycleEvent() async throws {
        let dispatcher = HTTPEventDispatcher()
        let recorder = RecordingObserver()
        dispatcher.subscribe(recorder)
        let client = HTTPTransportClient(
            transport: ReplayTransport(recordings: ["/users/42": (200, [#"{"id":"#, #"42}"#])]),
            dispatcher: dispatcher
        )
        let url = URL(string: "https://replay.example.com/users/42")!
        let response = try await client.send(HTTPRequest(url: url))
        XCTAssertEqual(String(decoding: response.body, as: UTF8.self), #"{"id":42}"#)
        let events = try await recorder.waitForEvents(count: 4)
        XCTAssertEqual(events.map(\.name), [.requestCreated, .requestStarted, .responseReceived, .requestSucceeded])
        XCTAssertEqual(events[2].responseBodyByteCount, 9)

        // Streamed, the body arrives in the chunks it was recorded in.
        let (head, body) = try await client.send(HTTPRequest(url: url), body: nil)
        var chunks: [String] = []
        for try await chunk in body { chunks.append(String(decoding: chunk, as: UTF8.self)) }
        XCTAssertEqual(head.statusCode, 200)
        XCTAssertEqual(chunks, [#"{"id":"#, #"42}"#])
    }
}
