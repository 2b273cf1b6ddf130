import Foundation
import HTTPCore
import HTTPCoreLoopback
import HTTPCoreTestPeers
import XCTest

final class LoopbackBodyDigestTests: XCTestCase {
    func test_fnv1a64_matchesThePublishedTestVectors() {
        XCTAssertEqual(LoopbackBodyDigest().fnv1a64, 0xcbf2_9ce4_8422_2325)
        XCTAssertEqual(LoopbackBodyDigest(of: Data("a".utf8)).fnv1a64, 0xaf63_dc4c_8601_ec8c)
        XCTAssertEqual(LoopbackBodyDigest(of: Data("foobar".utf8)).fnv1a64, 0x8594_4171_f739_67e8)
        XCTAssertEqual(LoopbackBodyDigest(of: Data("foobar".utf8)).byteCount, 6)
    }

    func test_updatesInPieces_equalOneUpdateOfTheWhole() {
        var digest = LoopbackBodyDigest()
        digest.update(Data("foo".utf8))
        digest.update([UInt8]("ba".utf8))
        digest.update("r".utf8)

        XCTAssertEqual(digest, LoopbackBodyDigest(of: Data("foobar".utf8)))
    }

    func test_digestOnlyRoute_recordsCountAndHash_notTheBody_forLengthAndChunkedUploads() throws {
        let server = try LoopbackHTTPServer()
        defer { server.stop() }
        server.route("PUT", "/upload", requestBody: .digestOnly) { request in .text("\(request.bodyDigest.byteCount)") }
        let size = 4 * 1_048_576 + 3
        let body = Data(LoopbackBodyPattern.chunk(at: 0, count: size))

        let connection = try RawHTTPConnection(port: server.port)
        try connection.send("PUT /upload HTTP/1.1\r\nHost: x\r\nContent-Length: \(size)\r\n\r\n")
        try connection.send(body)
        XCTAssertEqual(try connection.readResponse().text, "4194307")
        try connection.send("PUT /upload HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n3\r\n")
        try connection.send(body.prefix(3) + Data("\r\n\(String(size - 3, radix: 16))\r\n".utf8) + body.dropFirst(3) + Data("\r\n0\r\n\r\n".utf8))
        XCTAssertEqual(try connection.readResponse().text, "4194307")

        let expected = LoopbackBodyPattern.digest(byteCount: Int64(size))
        XCTAssertEqual(server.requests.map(\.bodyDigest), [expected, expected])
        XCTAssertEqual(server.requests.map(\.body), [Data(), Data()])
    }

    func test_wholeBodyRoute_keepsTheBody_andItsDigest() throws {
        let server = try LoopbackHTTPServer()
        defer { server.stop() }
        server.route("POST", "/echo") { request in LoopbackResponse(body: request.body) }

        let connection = try RawHTTPConnection(port: server.port)
        try connection.send("POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 6\r\n\r\nfoobar")
        XCTAssertEqual(try connection.readResponse().text, "foobar")

        XCTAssertEqual(server.requests.first?.body, Data("foobar".utf8))
        XCTAssertEqual(server.requests.first?.bodyDigest, LoopbackBodyDigest(of: Data("foobar".utf8)))
    }
}
