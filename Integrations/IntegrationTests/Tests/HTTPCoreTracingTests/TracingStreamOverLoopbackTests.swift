import Foundation
import HTTPCore
import HTTPCoreObservation
import HTTPCoreLoopback
import HTTPCoreTracing
import HTTPCoreURLSession
import InMemoryTracing
import Tracing
import XCTest

/// A streamed response from a real server, through URLSession: the span stays open while the
/// body arrives and ends with it, with the bytes that went through.
final class TracingStreamOverLoopbackTests: XCTestCase {
    func testTheSpanOfAStreamEndsWhenItsBodyEndsWithItsRealSize() async throws {
        let server = try LoopbackHTTPServer()
        defer { server.stop() }
        let gate = server.makeGate()
        server.route("GET", "/events", streaming: { _, writer in
            try writer.writeHead(headers: ["Content-Type": "text/event-stream"], framing: .chunked)
            try writer.write("data: one\n\n")
            try writer.wait(for: gate)
            try writer.write("data: two\n\n")
        })
        let tracer = InMemoryTracer()
        let client = URLSessionClient(middlewares: [TracingMiddleware(tracer: tracer)], dispatcher: HTTPEventDispatcher())
        let (firstChunk, arrived) = AsyncStream<Void>.makeStream()
        let read = Task {
            try await client.send(HTTPRequest(url: server.url("/events")), body: nil) { _, body in
                var count = 0
                for try await chunk in body {
                    if count == 0 { arrived.yield() }
                    count += chunk.count
                }
                return count
            }
        }
        for await _ in firstChunk { break }
        XCTAssertEqual(tracer.finishedSpans.count, 0, "the body is still arriving: the span is open")
        gate.open()
        let count = try await read.value
        XCTAssertEqual(count, 22)
        let span = try XCTUnwrap(tracer.finishedSpans.first)
        XCTAssertEqual(tracer.finishedSpans.count, 1)
        XCTAssertEqual(span.attributes["http.response.body.size"]?.toSpanAttribute(), 22)
        XCTAssertEqual(span.attributes["http.response.status_code"]?.toSpanAttribute(), 200)
        XCTAssertNil(span.status)
    }
}
