import Foundation
import HTTPCore
import HTTPCoreLoopback
import HTTPCoreObservation
import HTTPCoreURLSession
import XCTest

/// A body's JSON lines, read as the consumer asks for them: split whatever the chunks, blank
/// lines skipped, a line over the limit refused naming it.
final class HTTPBodyJSONLinesTests: XCTestCase {
    /// The lines of a one-pass body of `text` in chunks of `size` bytes, as text, or the error
    /// that ended them.
    private func lines(of text: String, inChunksOf size: Int, maximumLineBytes: Int = 1 << 20) async -> ([String], (any Error)?) {
        let body = HTTPBody.pieces(of: text, size: size)
        var read: [String] = []
        do {
            for try await line in body.jsonLines(maximumLineBytes: maximumLineBytes) { read.append(String(decoding: line, as: UTF8.self)) }
            return (read, nil)
        } catch {
            return (read, error)
        }
    }

    func testLinesAreTheSameWhereverTheChunksBreakAndALastLineWithoutNewlineCounts() async {
        let text = "{\"a\":1}\n\n \t\n{\"b\":\"two\"}\r\n{\"c\":3}"
        for size in 1...text.utf8.count {
            let (lines, error) = await lines(of: text, inChunksOf: size)
            XCTAssertNil(error, "in chunks of \(size)")
            XCTAssertEqual(lines, [#"{"a":1}"#, #"{"b":"two"}"#, #"{"c":3}"#], "in chunks of \(size)")
        }
    }

    func testALineAtTheLimitPassesAndOneOverItFailsNamingTheLimit() async {
        let (lines, error) = await lines(of: "12345678\n123456789\nnever read\n", inChunksOf: 4, maximumLineBytes: 8)

        XCTAssertEqual(lines, ["12345678"])
        XCTAssertEqual(error as? HTTPError, .transport(
            .responseTooLarge, message: "a JSON line is over 8 bytes, the maximumLineBytes given to jsonLines(maximumLineBytes:)"
        ))
    }

    func testOverLoopbackEachLineDecodesAsItArrives() async throws {
        struct Chunk: Decodable, Equatable { let response: String; let done: Bool }
        let server = try LoopbackHTTPServer()
        defer { server.stop() }
        let gate = server.makeGate()
        server.route("POST", "/api/generate", streaming: { _, writer in
            try writer.writeHead(headers: ["Content-Type": "application/x-ndjson"], framing: .chunked)
            try writer.write("{\"response\":\"The sky\",\"done\":false}\n{\"respo")
            try writer.wait(for: gate)
            try writer.write("nse\":\" is blue.\",\"done\":true}\n")
        })
        let client = URLSessionClient()

        let (_, body) = try await client.send(HTTPRequest(method: .post, url: server.url("/api/generate"), timeout: 60), body: nil)
        var lines = body.jsonLines().makeAsyncIterator()
        let first = try await lines.next().map { try JSONDecoder().decode(Chunk.self, from: $0) }
        gate.open()
        let second = try await lines.next().map { try JSONDecoder().decode(Chunk.self, from: $0) }
        let end = try await lines.next()

        XCTAssertEqual(first, Chunk(response: "The sky", done: false), "read while the server waits at the gate")
        XCTAssertEqual(second, Chunk(response: " is blue.", done: true))
        XCTAssertNil(end)
    }
}
