import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import HTTPCore
import HTTPCoreLoopback
import HTTPCoreObservation
import HTTPCoreReplay
import HTTPCoreTesting
import HTTPCoreURLSession
import XCTest

/// Traffic recorded through URLSession from a loopback server, then replayed with the server
/// stopped: the same responses, the same events.
final class HTTPFixtureRecordReplayTests: FixtureTestCase {
    /// A shop: a JSON read, a JSON write, a stream of three server-sent events 50 ms apart,
    /// and a 503.
    private func shop() throws -> LoopbackHTTPServer {
        try LoopbackHTTPServer { server in
            server.route("GET", "/users/42") { _ in .json(#"{"id":42,"name":"Ada"}"#) }
            server.route("POST", "/orders") { request in
                .json(#"{"order":7,"items":\#(String(decoding: request.body, as: UTF8.self))}"#, status: 201)
            }
            server.route("GET", "/events", streaming: { _, writer in
                try writer.writeHead(headers: ["Content-Type": "text/event-stream"], framing: .chunked)
                for index in 1...3 {
                    if index > 1 { try writer.pause(0.05) }
                    try writer.write("event: tick\nid: \(index)\ndata: {\"n\":\(index)}\n\n")
                }
            })
            server.route("GET", "/broken") { _ in LoopbackResponse(status: 503, headers: ["Retry-After": "1"], body: Data("down".utf8)) }
        }
    }

    /// What the client got for each request of the shop, one line each.
    private func visit(_ client: some HTTPClient, _ base: URL) async throws -> [String] {
        var lines: [String] = []
        let user = try await client.send(HTTPRequest(url: base.appendingPathComponent("users/42")))
        lines.append("\(user.statusCode) \(user.headers["Content-Type"] ?? "") \(String(decoding: user.body, as: UTF8.self))")
        let order = try await client.send(HTTPRequest(
            method: .post, url: base.appendingPathComponent("orders"), headers: ["Content-Type": "application/json"], body: Data(#"[{"sku":"A-1"}]"#.utf8)
        ))
        lines.append("\(order.statusCode) \(String(decoding: order.body, as: UTF8.self))")
        let events = try await client.send(HTTPRequest(url: base.appendingPathComponent("events"))) { head, body in
            var events = ["\(head.statusCode)"]
            for try await event in body.serverSentEvents() { events.append("\(event.event ?? "") \(event.id ?? "") \(event.data)") }
            return events.joined(separator: " | ")
        }
        lines.append(events)
        let broken = try await client.send(HTTPRequest(url: base.appendingPathComponent("broken")))
        lines.append("\(broken.statusCode) \(broken.headers["Retry-After"] ?? "") \(String(decoding: broken.body, as: UTF8.self))")
        return lines
    }

    func testARecordingReplaysWithTheServerStoppedAsTheSameResponsesAndEventsMarkedReplayed() async throws {
        let server = try shop()
        let base = server.baseURL
        let recording = try HTTPFixture("shop", directory: directory, mode: .record)
        let recorded = RecordingObserver()
        recording.dispatcher.subscribe(recorded)
        let live = try await visit(recording.client(recordingThrough: urlSession()), base)
        try await recording.save()
        server.stop()

        let replaying = try HTTPFixture("shop", directory: directory, mode: .replay)
        XCTAssertFalse(replaying.isRecording)
        let replayed = RecordingObserver()
        replaying.dispatcher.subscribe(replayed)
        let again = try await visit(replaying.client(recordingThrough: urlSession()), base)

        XCTAssertEqual(live, [
            #"200 application/json {"id":42,"name":"Ada"}"#,
            #"201 {"order":7,"items":[{"sku":"A-1"}]}"#,
            #"200 | tick 1 {"n":1} | tick 2 {"n":2} | tick 3 {"n":3}"#,
            "503 1 down",
        ])
        XCTAssertEqual(again, live)
        XCTAssertEqual(replaying.unansweredCount, 0)
        let liveEvents = try await recorded.waitForTerminalEvents(count: 4)
        let replayedEvents = try await replayed.waitForTerminalEvents(count: 4)
        XCTAssertEqual(replayedEvents.map(\.name), liveEvents.map(\.name))
        XCTAssertEqual(replayedEvents.compactMap { $0.response?.statusCode }, liveEvents.compactMap { $0.response?.statusCode })
        let marks = replayedEvents.filter(\.name.isTerminal).map { $0.response?.headers[ReplayTransport.replayHeaderName] ?? "live" }
        XCTAssertEqual(marks, ["shop.har#0", "shop.har#1", "shop.har#2", "shop.har#3"])
        XCTAssertTrue(liveEvents.allSatisfy { $0.response?.headers[ReplayTransport.replayHeaderName] == nil })
    }

    func testAStreamReplaysWithItsRecordedTimingWhenAsked() async throws {
        let server = try shop()
        let recording = try HTTPFixture("events", directory: directory, mode: .record)
        let url = server.baseURL.appendingPathComponent("events")
        _ = try await recording.client(recordingThrough: urlSession()).send(HTTPRequest(url: url)) { _, body in
            for try await _ in body.serverSentEvents() {}
        }
        try await recording.save()
        server.stop()
        let har = try JSONSerialization.jsonObject(with: Data(contentsOf: recording.file)) as? [String: Any]
        let entry = try XCTUnwrap(((har?["log"] as? [String: Any])?["entries"] as? [[String: Any]])?.first)
        let times = try XCTUnwrap(entry["_eventSourceMessages"] as? [[String: Any]]).compactMap { $0["time"] as? Double }
        XCTAssertEqual(times.count, 3)
        let recordedSpan = try XCTUnwrap(times.last) - XCTUnwrap(times.first)

        let replaying = try HTTPFixture("events", directory: directory, mode: .replay, timing: .recorded)
        let arrivals = try await replaying.client(recordingThrough: urlSession()).send(HTTPRequest(url: url)) { _, body in
            var arrivals: [Date] = []
            for try await _ in body.serverSentEvents() { arrivals.append(Date()) }
            return arrivals
        }
        XCTAssertEqual(arrivals.count, 3)
        let replayedSpan = try XCTUnwrap(arrivals.last).timeIntervalSince(XCTUnwrap(arrivals.first))
        XCTAssertGreaterThanOrEqual(replayedSpan, recordedSpan * 0.9, "recorded \(recordedSpan) s between the first and last event")
    }
}
