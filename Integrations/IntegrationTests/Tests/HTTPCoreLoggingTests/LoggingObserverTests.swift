import Foundation
import HTTPCore
import HTTPCoreObservation
import HTTPCoreLogging
import HTTPCoreTesting
import Logging
import XCTest

/// One swift-log line per exchange, through a log handler that records what it gets.
final class LoggingObserverTests: XCTestCase {
    /// A log handler that keeps every record, for assertions.
    private struct RecordingLogHandler: LogHandler {
        struct Record: Sendable {
            let level: Logger.Level
            let message: String
            let metadata: Logger.Metadata
        }

        let records: Records
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace
        /// Read at each log call, as swift-log's own handlers do.
        var metadataProvider: Logger.MetadataProvider?

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            let provided = metadataProvider?.get() ?? [:]
            let merged = metadata.merging(provided) { $1 }.merging(event.metadata ?? [:]) { $1 }
            let record = Record(level: event.level, message: "\(event.message)", metadata: merged)
            records.append(record)
        }
    }

    /// The records, behind a lock: handlers log from every task that sends.
    private final class Records: @unchecked Sendable {   // safe: `stored` is only touched under `lock`
        private let lock = NSLock()
        private var stored: [RecordingLogHandler.Record] = []

        func append(_ record: RecordingLogHandler.Record) {
            lock.lock()
            stored.append(record)
            lock.unlock()
        }

        var all: [RecordingLogHandler.Record] {
            lock.lock()
            defer { lock.unlock() }
            return stored
        }
    }

    /// A client over a mock transport that gives `replies`, with a `LoggingObserver` logging
    /// into `records` on its dispatcher.
    private func loggedClient(_ replies: MockTransport.Reply..., into records: Records) -> (HTTPTransportClient<MockTransport>, HTTPEventDispatcher) {
        let logger = Logger(label: "test") { _ in RecordingLogHandler(records: records) }
        let dispatcher = HTTPEventDispatcher()
        dispatcher.subscribe(LoggingObserver(logger: logger))
        let transport = MockTransport()
        for reply in replies { transport.enqueue(reply) }
        return (HTTPTransportClient(transport: transport, dispatcher: dispatcher, policy: .debug), dispatcher)
    }

    func testOneLinePerExchangeWithLevelByOutcomeAndRedactedMetadata() async throws {
        let records = Records()
        let (client, dispatcher) = loggedClient(.status(200), .status(404), .status(503), .failure(.timeout), into: records)
        var request = HTTPRequest(url: URL(string: "https://api.example.com/users/42?token=S3CR3T")!)
        request.metadata["trace_id"] = "4bf92f3577b34da6a3ce929d0e0e4736"
        for _ in 0..<4 { _ = try? await client.send(request) }
        await dispatcher.flush()

        // Logged inline: each line was written before its send returned.
        let logged = records.all
        XCTAssertEqual(logged.map(\.level), [Logger.Level.info, .notice, .warning, .error])
        XCTAssertTrue(logged[0].message.hasPrefix("GET https://api.example.com/users/42?token=[REDACTED] -> 200 ("), logged[0].message)
        XCTAssertTrue(logged[3].message.hasPrefix("GET https://api.example.com/users/42?token=[REDACTED] -> failed: timed out ("), logged[3].message)
        let metadata = logged[1].metadata
        XCTAssertEqual(metadata["http.request.method"], "GET")
        XCTAssertEqual(metadata["http.response.status_code"], "404")
        XCTAssertEqual(metadata["url.full"], "https://api.example.com/users/42?token=[REDACTED]")
        XCTAssertEqual(metadata["trace_id"], "4bf92f3577b34da6a3ce929d0e0e4736")
        XCTAssertEqual(logged[3].metadata["error.type"], "timeout")
        XCTAssertNotNil(metadata["http.request.id"])
        XCTAssertFalse(logged.contains { "\($0.message) \($0.metadata)".contains("S3CR3T") })
    }

    func testTheIncomingRequestIdIsRequestIdAndACollidingKeyIsKeptUnderMetadata() async throws {
        let records = Records()
        let (client, dispatcher) = loggedClient(.status(200), into: records)
        let request = HTTPRequest(
            url: URL(string: "https://api.example.com/users/42")!,
            metadata: ["request_id": "req-7", "url.full": "from-metadata", "duration.ms": "9"]
        )
        _ = try await client.send(request)
        await dispatcher.flush()

        let metadata = try XCTUnwrap(records.all.first?.metadata)
        XCTAssertEqual(metadata["request_id"], "req-7")
        XCTAssertEqual(metadata["http.request.id"], "\(request.id)")
        XCTAssertEqual(metadata["url.full"], "https://api.example.com/users/42")
        XCTAssertEqual(metadata["metadata.url.full"], "from-metadata")
        XCTAssertEqual(metadata["metadata.duration.ms"], "9")
        XCTAssertNotEqual(metadata["duration_ms"], "9")
    }

    /// The id of the incoming request a server is handling, as a server framework keeps it.
    @TaskLocal static var incomingRequestID: String?

    func testTheLineCarriesTheMetadataThatTheCallersMetadataProviderGivesOnItsTask() async throws {
        let records = Records()
        let provider = Logger.MetadataProvider {
            Self.incomingRequestID.map { ["incoming.request.id": "\($0)"] } ?? [:]
        }
        let logger = Logger(label: "test") { _, _ in RecordingLogHandler(records: records, metadataProvider: provider) }
        let dispatcher = HTTPEventDispatcher()
        dispatcher.subscribe(LoggingObserver(logger: logger))
        let client = HTTPTransportClient(transport: MockTransport(default: .status(200)), dispatcher: dispatcher)
        let url = URL(string: "https://api.example.com/orders")!
        try await Self.$incomingRequestID.withValue("req-41") { _ = try await client.send(HTTPRequest(url: url)) }
        try await Self.$incomingRequestID.withValue("req-42") { _ = try await client.send(HTTPRequest(url: url)) }
        _ = try await client.send(HTTPRequest(url: url))

        XCTAssertEqual(records.all.map { $0.metadata["incoming.request.id"] }, ["req-41", "req-42", nil],
                       "each client line carries the id of the request its caller was handling")
    }

    func testAFailureAfterAStatusIsLoggedAsAFailure() async throws {
        let records = Records()
        let logger = Logger(label: "test") { _ in RecordingLogHandler(records: records) }
        let dispatcher = HTTPEventDispatcher()
        dispatcher.subscribe(LoggingObserver(logger: logger))
        let transport = StreamingMockTransport(statusCodes: [200])
        let client = HTTPTransportClient(transport: transport, dispatcher: dispatcher, policy: .debug)
        let request = HTTPRequest(url: URL(string: "https://api.example.com/export")!)
        let read = Task { try await client.send(request, body: nil) { _, body in try await body.collect(upTo: 1 << 20).count } }
        let writer = try await transport.nextWriter()
        try await writer.write(HTTPBody.ByteChunk("partial".utf8))
        writer.finish(throwing: HTTPError.transport(.connectionLost, message: "the connection was lost"))
        let result = await read.result
        XCTAssertThrowsError(try result.get(), "the body broke: the call fails")
        await dispatcher.flush()

        let logged = records.all
        XCTAssertEqual(logged.map(\.level), [.error], "a body cut after a 200 is a failure, not a success")
        XCTAssertTrue(logged[0].message.hasPrefix("GET https://api.example.com/export -> 200, then failed: "), logged[0].message)
        XCTAssertEqual(logged[0].metadata["http.response.status_code"], "200")
        XCTAssertEqual(logged[0].metadata["error.type"], "connection_lost")
    }

    func testARedirectedExchangeIsLoggedAsTheRequestThatGotTheStatusWithItsRoute() async throws {
        let records = Records()
        let logger = Logger(label: "test") { _ in RecordingLogHandler(records: records) }
        let dispatcher = HTTPEventDispatcher()
        dispatcher.subscribe(LoggingObserver(logger: logger))
        let transport = MockTransport(default: .redirected(
            to: URL(string: "https://api.example.com/done")!, HTTPRedirection(method: .get, resentBody: false, statusCodes: [303])
        ))
        let client = HTTPTransportClient(transport: transport, dispatcher: dispatcher, policy: .debug)
        _ = try await client.send(HTTPRequest(method: .post, url: URL(string: "https://api.example.com/submit")!, body: Data("a=1".utf8)))
        await dispatcher.flush()

        let logged = records.all
        XCTAssertEqual(logged.count, 1)
        XCTAssertTrue(
            logged[0].message.hasPrefix("POST https://api.example.com/submit → 303 → GET https://api.example.com/done -> 200 ("), logged[0].message
        )
        XCTAssertEqual(logged[0].metadata["http.request.method"], "GET")
        XCTAssertEqual(logged[0].metadata["url.full"], "https://api.example.com/done")
        XCTAssertEqual(logged[0].metadata["http.redirected_from"], "POST https://api.example.com/submit")
        XCTAssertEqual(logged[0].metadata["http.redirect_statuses"], .array(["303"]))
    }
}
