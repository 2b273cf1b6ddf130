import Foundation
import HTTPCore
import HTTPCoreConcurrency
import HTTPCoreLoopback
import HTTPCoreObservation
import HTTPCoreTesting
import HTTPCoreURLSession
import XCTest

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A session of `makeDefaultSession()` that was invalidated refuses every send with
/// `session_invalidated`, buffered and streamed, where FoundationNetworking would trap.
final class DefaultURLSessionTests: XCTestCase {
    private var server: LoopbackHTTPServer!

    private let invalidated = HTTPError.transport(
        .sessionInvalidated,
        message: "the URLSession was invalidated (finishTasksAndInvalidate() or invalidateAndCancel()) and starts no new task; "
            + "send through a new session from URLSessionClient.makeDefaultSession()"
    )

    override func setUpWithError() throws {
        server = try LoopbackHTTPServer()
        server.route("/hello") { _ in .text("hi") }
        server.route("POST", "/upload") { _ in .text("stored") }
    }

    override func tearDown() {
        server.stop()
    }

    /// Each send API through `client`, which must be refused with the invalidation error.
    private func assertEverySendIsRefused(_ client: URLSessionClient, file: StaticString = #filePath, line: UInt = #line) async {
        let hello = server.url("/hello"), upload = server.url("/upload")
        let sends: [(String, @Sendable () async throws -> Void)] = [
            ("buffered GET", { _ = try await client.send(HTTPRequest(url: hello)) }),
            ("buffered POST", { _ = try await client.send(HTTPRequest(method: .post, url: upload, body: Data("x".utf8))) }),
            ("streamed GET", { _ = try await client.send(HTTPRequest(url: hello), body: nil) }),
            ("streamed upload", {
                let body = HTTPBody(AsyncThrowingStream { continuation in
                    continuation.yield(HTTPBody.ByteChunk(repeating: 0x61, count: 10))
                    continuation.finish()
                }, length: .unknown)
                _ = try await client.send(HTTPRequest(method: .post, url: upload), body: body)
            }),
        ]
        for (name, send) in sends {
            do {
                try await send()
                XCTFail("\(name): expected session_invalidated", file: file, line: line)
            } catch let error as HTTPError {
                XCTAssertEqual(error, invalidated, name, file: file, line: line)
                XCTAssertEqual(error.code, .sessionInvalidated, name, file: file, line: line)
            } catch {
                XCTFail("\(name): \(error)", file: file, line: line)
            }
        }
    }

    func testSendsRightAfterFinishTasksAndInvalidateAreRefusedNotTrapped() async throws {
        let session = URLSessionClient.makeDefaultSession()
        let client = URLSessionClient(session: session, dispatcher: HTTPEventDispatcher())
        let before = try await client.send(HTTPRequest(url: server.url("/hello")))
        XCTAssertEqual(before.statusCode, 200)

        // Before FoundationNetworking has marked the session invalid or told its delegate.
        session.finishTasksAndInvalidate()
        await assertEverySendIsRefused(client)
        XCTAssertEqual(server.requests.count, 1)
    }

    func testSendsAfterInvalidateAndCancelAreRefusedNotTrapped() async throws {
        let session = URLSessionClient.makeDefaultSession()
        let client = URLSessionClient(session: session, dispatcher: HTTPEventDispatcher())
        session.invalidateAndCancel()
        await assertEverySendIsRefused(client)
        XCTAssertEqual(server.requests.count, 0)
    }

    func testAClientMadeOnceTheDelegateWasToldRefusesToo() async throws {
        let session = URLSessionClient.makeDefaultSession()
        session.finishTasksAndInvalidate()
        // URLSession drops its delegate once it told it the session became invalid.
        try await waitUntil("the session dropped its delegate") { session.delegate == nil }
        await assertEverySendIsRefused(URLSessionClient(session: session, dispatcher: HTTPEventDispatcher()))
        XCTAssertEqual(server.requests.count, 0)
    }

    func testAnExchangeUnderWayWhenTheSessionIsInvalidatedStillCompletes() async throws {
        let arrived = Locked(false)
        let release = DispatchSemaphore(value: 0)
        var released = false
        defer { if !released { release.signal() } }
        server.route("/slow") { _ in
            arrived.withLock { $0 = true }
            release.wait()
            return .text("late")
        }
        let session = URLSessionClient.makeDefaultSession()
        let client = URLSessionClient(session: session, dispatcher: HTTPEventDispatcher())
        let slow = server.url("/slow")
        let exchange = Task { try await client.send(HTTPRequest(url: slow)) }
        try await waitUntil("the request reached the server") { arrived.withLock { $0 } }
        session.finishTasksAndInvalidate()
        await assertEverySendIsRefused(client)
        release.signal()
        released = true
        let response = try await exchange.value
        XCTAssertEqual(String(decoding: response.body, as: UTF8.self), "late")
    }
}
