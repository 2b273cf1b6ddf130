import AsyncHTTPClient
import Foundation
import HTTPCore
import HTTPCoreAsyncHTTPClient
import HTTPCoreLoopback
import HTTPCoreObservation
import HTTPCoreOpenAPI
import HTTPCoreReplay
import HTTPCoreTesting
import OpenAPIRuntime
import XCTest

/// The generated client's traffic recorded through HTTPCore over AsyncHTTPClient, then
/// replayed through the same generated client with the server stopped.
final class RecordedOpenAPITrafficTests: XCTestCase {
    private var directory: URL!
    private var ahc: AsyncHTTPClient.HTTPClient!

    override func setUpWithError() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("fixtures-\(UUID().uuidString)")
        ahc = AsyncHTTPClientTransport.makeHTTPClient()
    }

    override func tearDown() async throws {
        try? FileManager.default.removeItem(at: directory)
        try await ahc.shutdown()
    }

    /// What the generated client got, one line per operation.
    private func visit(_ api: Client) async throws -> [String] {
        let found = try await api.getOrder(path: .init(id: 7), query: .init(token: "S3CR3T-live-token")).ok.body.json
        let missing = try await api.getOrder(path: .init(id: 8))
        let created = try await api.createOrder(body: .json(.init(name: "Grace"))).created.body.json
        var chunks: [String] = []
        for try await chunk in try await api.streamEvents().ok.body.binary { chunks.append(String(decoding: chunk, as: UTF8.self)) }
        return ["\(found.id) \(found.name)", "\(missing)", "\(created.id) \(created.name)", chunks.joined()]
    }

    func testOperationsRecordedOverAsyncHTTPClientReplayThroughTheGeneratedClientWithTheServerStopped() async throws {
        let server = try LoopbackHTTPServer { server in
            server.route("GET", "/api/orders/7") { _ in .json(#"{"id":7,"name":"Ada"}"#) }
            server.route("GET", "/api/orders/8") { _ in .text("no such order", status: 404) }
            server.route("POST", "/api/orders") { _ in .json(#"{"id":9,"name":"Grace"}"#, status: 201) }
            server.route("GET", "/api/events", streaming: { _, writer in
                try writer.writeHead(headers: ["Content-Type": "application/octet-stream"], framing: .chunked)
                try writer.write("tick 1\n")
                try writer.write("tick 2\n")
            })
        }
        let serverURL = server.url("/api")
        let recording = try HTTPFixture("orders", directory: directory, mode: .record)
        let recorded = RecordingObserver()
        recording.dispatcher.subscribe(recorded)
        let live = try await visit(Client(
            serverURL: serverURL, transport: OpenAPITransport(client: recording.client(recordingThrough: AsyncHTTPClientTransport(client: ahc)))
        ))
        try await recording.save()
        server.stop()
        let fixtureText = try String(contentsOf: recording.file, encoding: .utf8)
        XCTAssertFalse(fixtureText.contains("S3CR3T-live-token"))

        let replaying = try HTTPFixture("orders", directory: directory, mode: .replay)
        let replayed = RecordingObserver()
        replaying.dispatcher.subscribe(replayed)
        // Another token: the fixture holds it masked, and a masked value matches any.
        let api = Client(
            serverURL: serverURL, transport: OpenAPITransport(client: replaying.client(recordingThrough: AsyncHTTPClientTransport(client: ahc)))
        )
        let again = try await visit(api)

        XCTAssertEqual(live, ["7 Ada", "notFound(HTTPCoreOpenAPITests.Operations.getOrder.Output.NotFound())", "9 Grace", "tick 1\ntick 2\n"])
        XCTAssertEqual(again, live)
        XCTAssertEqual(replaying.unansweredCount, 0)
        let liveEvents = try await recorded.waitForTerminalEvents(count: 4)
        let replayedEvents = try await replayed.waitForTerminalEvents(count: 4)
        // Each exchange's events, in order (the generated client drops the 404's body, which
        // is read to its end meanwhile, so exchanges interleave differently).
        let byExchange = { (events: [HTTPEvent]) in
            Dictionary(grouping: events, by: \.requestID).values.map { $0.map(\.name.rawValue) }.sorted { $0.joined() < $1.joined() }
        }
        XCTAssertEqual(byExchange(replayedEvents), byExchange(liveEvents))
        XCTAssertEqual(
            replayedEvents.filter(\.name.isTerminal).map { $0.endResponse?.headers[ReplayTransport.replayHeaderName] ?? "live" },
            ["orders.har#0", "orders.har#1", "orders.har#2", "orders.har#3"]
        )
    }
}
