import AsyncHTTPClient
import Foundation
import HTTPCore
import HTTPCoreLoopback
import XCTest

@testable import HTTPCoreAsyncHTTPClient

/// The head held to the end of the event loop's turn: a response read whole in that turn is
/// handed over in memory, anything else as a stream. An AHC client on one event loop of the
/// shared group (an `EventLoop` is a group of one), so the delegate runs on the connection's
/// loop and the turn is the read's.
final class ExchangeDelegateHandOverTests: XCTestCase {
    private var server: LoopbackHTTPServer!
    private var ahc: AsyncHTTPClient.HTTPClient!

    override func setUpWithError() throws {
        server = try LoopbackHTTPServer()
        var configuration = AsyncHTTPClient.HTTPClient.Configuration()
        configuration.tracing.tracer = nil
        ahc = AsyncHTTPClient.HTTPClient(eventLoopGroupProvider: .shared(AsyncHTTPClient.HTTPClient.defaultEventLoopGroup.next()), configuration: configuration)
        server.route("/users/42") { _ in .json(#"{"id":42}"#) }
    }

    override func tearDown() async throws {
        server.stop()
        try await ahc.shutdown()
    }

    private func perform(_ path: String) async throws -> (HTTPCore.HTTPResponse, HTTPBody) {
        try await AsyncHTTPClientTransport(client: ahc).perform(HTTPCore.HTTPRequest(url: server.url(path), timeout: 60), body: nil)
    }

    func testASmallResponseReadWholeIsHandedOverInMemoryAndCanBeReadTwice() async throws {
        let (response, body) = try await perform("/users/42")

        XCTAssertEqual(response.statusCode, 200)
        XCTAssertEqual(body.length, .known(9))
        XCTAssertEqual(body.iterationBehavior, .multiple, "in memory, not a stream")
        let first = try await body.collect(upTo: 100)
        let second = try await body.collect(upTo: 100)
        XCTAssertEqual(String(decoding: first, as: UTF8.self), #"{"id":42}"#)
        XCTAssertEqual(second, first)
    }

    func testABodyStillComingAfterTheHeadsTurnIsStreamed() async throws {
        let gate = server.makeGate()
        server.route("GET", "/held", streaming: { _, writer in
            try writer.writeHead(framing: .contentLength(600))
            try writer.writePattern(byteCount: 300)
            try writer.wait(for: gate)
            try writer.writePattern(byteCount: 300)
        })
        let (_, body) = try await perform("/held")

        XCTAssertEqual(body.iterationBehavior, .single, "a stream: the rest was still on its way")
        var iterator = body.makeAsyncIterator()
        var received = 0
        while received < 300, let chunk = try await iterator.next() { received += chunk.count }
        XCTAssertEqual(received, 300, "the first part arrives while the server holds the rest")
        gate.open()
        while let chunk = try await iterator.next() { received += chunk.count }
        XCTAssertEqual(received, 600)
    }

    func testAConnectionDroppedInTheHeadsTurnFailsTheBodyAfterItsBytesNotTheHead() async throws {
        server.route("GET", "/dropped", streaming: { _, writer in
            try writer.writeHead(framing: .contentLength(1000))
            try writer.writePattern(byteCount: 300)
            writer.dropConnection()
        })
        let (response, body) = try await perform("/dropped")

        XCTAssertEqual(response.statusCode, 200)
        var received = 0
        do {
            for try await chunk in body { received += chunk.count }
            XCTFail("expected the body to fail")
        } catch let error as HTTPCore.HTTPError {
            XCTAssertEqual(error.code, .connectionLost, "\(error)")
        }
        XCTAssertEqual(received, 300)
    }
}
