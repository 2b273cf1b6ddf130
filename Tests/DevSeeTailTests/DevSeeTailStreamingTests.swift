import DevSeeObserver
import Foundation
import HTTPCore
import HTTPCoreObservation
import HTTPCoreTesting
import XCTest

@testable import devsee_tail
import HTTPCoreConcurrency

/// Watching a streamed exchange in the tool: each server-sent event is printed as it arrives,
/// while the response is still open, tied to its request; then the exchange's line.
final class DevSeeTailStreamingTests: XCTestCase {
    /// What the tool printed for one streamed `POST /v1/chat` observed by `DevSeeObserver`,
    /// and the lines it had printed when the first event was written and the body still open.
    private func tailStream(_ arguments: [String]) async throws -> (whileOpen: [String], all: [String], requestID: String) {
        let output = AsyncCondition<[String]>([])
        let whileOpen = Locked<[String]>([])
        let requestID = Locked("")
        let failure = Locked<(any Error)?>(nil)
        let exit = await DevSeeTail.run(
            arguments: arguments + ["--port", "0"], colorByDefault: false,
            output: { line in output.update { $0.append(line) } }, status: { _ in },
            until: { port in
                var configuration = DevSeeLoggerConfiguration(appId: "com.example.tail", serverURL: URL(string: "http://127.0.0.1:\(port)"))
                configuration.isEnabled = true
                configuration.endpointStore = nil
                // One upload at a time: the server stores the logs in the order they were made.
                configuration.delivery.maximumConcurrentSends = 1
                configuration.maxMessageLogsPerExchange = 10
                let logger = DevSeeLogger(configuration: configuration)
                let dispatcher = HTTPEventDispatcher()
                dispatcher.subscribe(DevSeeObserver(logger: logger))
                let transport = StreamingMockTransport(headers: ["Content-Type": "text/event-stream"])
                let client = HTTPTransportClient(transport: transport, dispatcher: dispatcher, policy: .debug)
                let request = HTTPRequest(method: .post, url: URL(string: "https://api.example.com/v1/chat")!, headers: ["X-Request-ID": "corr-7"])
                requestID.withLock { $0 = request.id.description }
                do {
                    async let read = client.send(request, body: nil) { _, body in try await body.collect(upTo: 1 << 20).count }
                    let writer = try await transport.nextWriter()
                    try await writer.write(HTTPBody.ByteChunk("event: delta\ndata: {\"t\":\"Hel\"}\n\n".utf8))
                    let first = try await output.wait(timeout: 60, until: { $0.count >= 1 })
                    whileOpen.withLock { $0 = first }
                    try await writer.write(HTTPBody.ByteChunk("event: delta\ndata: {\"t\":\"lo\",\"api_key\":\"sk-live-123\"}\n\n".utf8))
                    try await writer.write(HTTPBody.ByteChunk("data: line one\ndata: line two\n\n".utf8))
                    writer.finish()
                    _ = try await read
                    await dispatcher.flush()
                    await logger.flush()
                    _ = try await output.wait(timeout: 60, until: { $0.count >= 4 })
                } catch {
                    failure.withLock { $0 = error }
                }
                await logger.shutdown()
            }
        )
        XCTAssertEqual(exit, 0)
        if let error = failure.withLock({ $0 }) { throw error }
        return (whileOpen.withLock { $0 }, output.state, requestID.withLock { $0 })
    }

    /// A line with its time (`T`) and its duration (`D`) replaced: the rest is exact.
    private func normalized(_ line: String) -> String {
        let characters = Array(line)
        guard characters.count > 38 else { return line }
        // time(12)  method(6)  status(6)  duration(8)
        return "T" + String(characters[12..<30]) + "D" + String(characters[38...])
    }

    func testEachEventIsPrintedAsItArrivesWithItsRequestThenTheExchange() async throws {
        let (whileOpen, all, requestID) = try await tailStream([])
        let first = "T  POST    #0      D  https://api.example.com/v1/chat  [delta] {\"t\":\"Hel\"}  req \(requestID)  corr corr-7"
        XCTAssertEqual(whileOpen.map(normalized), [first], "printed while the response was still arriving")
        XCTAssertEqual(all.map(normalized), [
            first,
            "T  POST    #1      D  https://api.example.com/v1/chat  [delta] {\"t\":\"lo\",\"api_key\":\"[REDACTED]\"}  req \(requestID)  corr corr-7",
            "T  POST    #2      D  https://api.example.com/v1/chat  line one\\nline two  req \(requestID)  corr corr-7",
            "T  POST    200     D  https://api.example.com/v1/chat  req \(requestID)  corr corr-7  streamed 3 messages, 118 bytes"
                + #"  answer: {"t":"Hel"}\n{"t":"lo","api_key":"[REDACTED]"}\nline one\nline two"#,
        ])
    }

    func testJSONPrintsEachMessageLogAsStored() async throws {
        let (whileOpen, all, requestID) = try await tailStream(["--json"])
        XCTAssertEqual(whileOpen.count, 1)
        let objects = try all.map { try XCTUnwrap(JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]) }
        XCTAssertEqual(objects.map { $0["requestId"] as? String }, Array(repeating: requestID, count: 4))
        XCTAssertEqual(objects.map { ($0["streamMessage"] as? [String: Any])?["index"] as? Int }, [0, 1, 2, nil])
        XCTAssertEqual(objects.map { $0["responseBody"] as? String }.prefix(3), [
            #"{"t":"Hel"}"#, #"{"t":"lo","api_key":"[REDACTED]"}"#, "line one\nline two",
        ])
        XCTAssertEqual(objects[3]["streamed"] as? Bool, true)
        XCTAssertEqual(objects[3]["responseBodyBytes"] as? Int, 118)
        XCTAssertFalse(all.joined().contains("sk-live-123"))
    }
}
