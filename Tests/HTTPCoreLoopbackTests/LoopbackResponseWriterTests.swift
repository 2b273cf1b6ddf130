import Foundation
import HTTPCore
import HTTPCoreLoopback
import HTTPCoreTestPeers
import XCTest

final class LoopbackResponseWriterTests: XCTestCase {
    func test_writePattern_withContentLength_sendsThePatternAndItsLength() throws {
        let server = try LoopbackHTTPServer()
        defer { server.stop() }
        let size: Int64 = 1_048_576 + 7
        server.route("GET", "/download", streaming: { _, writer in
            try writer.writeHead(headers: ["Content-Type": "application/octet-stream"], framing: .contentLength(size))
            try writer.writePattern(byteCount: size)
        })

        let connection = try RawHTTPConnection(port: server.port)
        try connection.send("GET /download HTTP/1.1\r\nHost: x\r\n\r\n")
        let response = try connection.readResponse()

        XCTAssertEqual(response.statusLine, "HTTP/1.1 200 OK")
        XCTAssertEqual(response.values("Content-Length"), ["1048583"])
        XCTAssertEqual(response.values("Content-Type"), ["application/octet-stream"])
        XCTAssertEqual(LoopbackBodyDigest(of: response.body), LoopbackBodyPattern.digest(byteCount: size))
    }

    func test_chunked_eachWriteIsOneChunk_theLastChunkEndsIt_andTheConnectionStaysOpen() throws {
        let server = try LoopbackHTTPServer()
        defer { server.stop() }
        server.route("GET", "/chunks", streaming: { _, writer in
            try writer.writeHead(framing: .chunked)
            try writer.write("ab")
            try writer.write("cde")
        })

        let connection = try RawHTTPConnection(port: server.port)
        try connection.send("GET /chunks HTTP/1.1\r\nHost: x\r\n\r\n")
        let first = try connection.readResponse()
        try connection.send("GET /chunks HTTP/1.1\r\nHost: x\r\n\r\n")
        let second = try connection.readResponse()

        XCTAssertEqual(first.values("Transfer-Encoding"), ["chunked"])
        XCTAssertEqual(String(decoding: first.wireBody, as: UTF8.self), "2\r\nab\r\n3\r\ncde\r\n0\r\n\r\n")
        XCTAssertEqual(second.text, "abcde")
        XCTAssertEqual(server.acceptedConnectionCount, 1)
    }

    func test_dropConnection_closesAfterTheBytesWritten() throws {
        let server = try LoopbackHTTPServer()
        defer { server.stop() }
        server.route("GET", "/cut", streaming: { _, writer in
            try writer.writeHead(framing: .contentLength(100))
            try writer.writePattern(byteCount: 40)
            writer.dropConnection()
        })

        let connection = try RawHTTPConnection(port: server.port)
        try connection.send("GET /cut HTTP/1.1\r\nHost: x\r\n\r\n")
        _ = try connection.readHead()

        XCTAssertEqual(try connection.readToEnd(), Data(LoopbackBodyPattern.chunk(at: 0, count: 40)))
    }

    func test_handlerReturningBeforeTheDeclaredLength_closesTheConnection() throws {
        let server = try LoopbackHTTPServer()
        defer { server.stop() }
        server.route("GET", "/short", streaming: { _, writer in
            try writer.writeHead(framing: .contentLength(10))
            try writer.write("abc")
        })

        let connection = try RawHTTPConnection(port: server.port)
        try connection.send("GET /short HTTP/1.1\r\nHost: x\r\n\r\n")
        _ = try connection.readHead()

        XCTAssertEqual(try connection.readToEnd(), Data("abc".utf8))
    }

    func test_writingPastTheDeclaredLength_throwsMisuse_andWritesNothingOfIt() throws {
        let server = try LoopbackHTTPServer()
        defer { server.stop() }
        let errors = ErrorBox()
        server.route("GET", "/long", streaming: { _, writer in
            try writer.writeHead(framing: .contentLength(2))
            do {
                try writer.write("abc")
            } catch {
                errors.set("\(error)")
            }
            try writer.write("ab")
        })

        let connection = try RawHTTPConnection(port: server.port)
        try connection.send("GET /long HTTP/1.1\r\nHost: x\r\n\r\n")

        XCTAssertEqual(try connection.readResponse().text, "ab")
        XCTAssertEqual(errors.value, "LoopbackResponseWriter: 3 body bytes where Content-Length is 2")
    }

    func test_handlerWritingNoHead_answers500() throws {
        let server = try LoopbackHTTPServer()
        defer { server.stop() }
        server.route("GET", "/nothing", streaming: { _, _ in })

        let connection = try RawHTTPConnection(port: server.port)
        try connection.send("GET /nothing HTTP/1.1\r\nHost: x\r\n\r\n")
        let response = try connection.readResponse()

        XCTAssertEqual(response.status, 500)
        XCTAssertEqual(response.text, "the streaming route wrote no head")
    }

    func test_gate_holdsTheResponseMidBody_untilOpened() throws {
        let server = try LoopbackHTTPServer()
        defer { server.stop() }
        let gate = server.makeGate()
        server.route("GET", "/events", streaming: { _, writer in
            try writer.writeHead(headers: ["Content-Type": "text/event-stream"], framing: .chunked)
            try writer.write("data: first\n\n")
            try writer.wait(for: gate)
            try writer.write("data: second\n\n")
        })

        let connection = try RawHTTPConnection(port: server.port)
        try connection.send("GET /events HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        _ = try connection.readHead()
        // The first chunk's lines, up to the event's blank line: sent while the gate is shut.
        XCTAssertEqual(try connection.readHead(), "d\r\ndata: first")
        gate.open()

        XCTAssertEqual(String(decoding: try connection.readToEnd(), as: UTF8.self), "\r\ne\r\ndata: second\n\n\r\n0\r\n\r\n")
    }

    func test_stop_endsAWaitAtAGate_andClosesTheConnection() throws {
        let server = try LoopbackHTTPServer()
        let gate = server.makeGate()
        server.route("GET", "/held", streaming: { _, writer in
            try writer.writeHead(framing: .chunked)
            try writer.write("data: x\n\n")
            try writer.wait(for: gate)
            try writer.write("never")
        })

        let connection = try RawHTTPConnection(port: server.port)
        try connection.send("GET /held HTTP/1.1\r\nHost: x\r\n\r\n")
        _ = try connection.readHead()
        XCTAssertEqual(try connection.readHead(), "9\r\ndata: x")
        server.stop()

        // Only the first chunk's closing CRLF may still come, if it left before the stop.
        XCTAssertEqual(String(decoding: try connection.readToEnd(), as: UTF8.self).trimmingCharacters(in: .newlines), "")
    }

    func test_aClientThatDoesNotRead_blocksTheWriter() throws {
        let server = try LoopbackHTTPServer()
        defer { server.stop() }
        let finished = ErrorBox()
        let size: Int64 = 64 * 1_048_576
        server.route("GET", "/big", streaming: { _, writer in
            try writer.writeHead(framing: .contentLength(size))
            try writer.writePattern(byteCount: size)
            finished.set("finished")
        })

        let connection = try RawHTTPConnection(port: server.port)
        try connection.send("GET /big HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        _ = try connection.readHead()
        // Socket buffers hold a few MiB at most: the writer cannot be done with 64 MiB.
        XCTAssertNil(finished.value)

        XCTAssertEqual(LoopbackBodyDigest(of: try connection.readToEnd()), LoopbackBodyPattern.digest(byteCount: size))
    }

    func test_headRequest_getsTheHeadWithoutTheBody() throws {
        let server = try LoopbackHTTPServer()
        defer { server.stop() }
        server.route("GET", "/download", streaming: { _, writer in
            try writer.writeHead(framing: .contentLength(5))
            try writer.write("hello")
        })

        let connection = try RawHTTPConnection(port: server.port)
        try connection.send("HEAD /download HTTP/1.1\r\nHost: x\r\n\r\n")
        XCTAssertEqual(try connection.readResponse(head: true).values("Content-Length"), ["5"])
        try connection.send("GET /download HTTP/1.1\r\nHost: x\r\n\r\n")
        XCTAssertEqual(try connection.readResponse().text, "hello")
    }
}

/// A value set on a connection thread and read by the test.
private final class ErrorBox: @unchecked Sendable {
    /// Guards `stored`.
    private let lock = NSLock()
    private var stored: String?

    var value: String? { lock.withLock { stored } }

    func set(_ value: String) { lock.withLock { stored = value } }
}
