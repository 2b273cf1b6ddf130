import Foundation
import HTTPCore
import HTTPCoreConcurrency
import HTTPCoreLoopback
import XCTest

@testable import HTTPCoreURLSession

#if canImport(FoundationNetworking)
import FoundationNetworking

/// The transport's calls into FoundationNetworking never hold a thread of the cooperative
/// pool while the session's work queue waits for a request body (Apple's URLSession does not
/// make those calls wait, so this is Linux only).
final class SessionCallsTests: XCTestCase {
    func testRequestsStartedWhileTheWorkQueueWaitsForAnUploadBodyLeaveThePoolFree() async throws {
        let server = try LoopbackHTTPServer()
        defer { server.stop() }
        server.route("POST", "/upload") { _ in .text("uploaded") }
        server.route("GET", "/other") { _ in .text("other") }
        let session = URLSessionClient.makeDefaultSession()
        defer { session.invalidateAndCancel() }
        let transport = URLSessionTransport(session: session)

        // An upload whose body the test holds back: libcurl's read of it blocks the work queue.
        let hold = BodyHold()
        var upload = URLRequest(url: server.url("/upload"))
        upload.httpMethod = "POST"
        upload.httpBodyStream = HeldBodyStream(hold: hold)
        let uploadStatus = AsyncCondition<Int?>(nil)
        session.dataTask(with: upload) { _, response, _ in
            uploadStatus.update { $0 = (response as? HTTPURLResponse)?.statusCode ?? -1 }
        }.resume()
        _ = try await hold.readerArrived.wait(timeout: 60, until: { $0 })

        // More callers than the pool has threads. The body is let go from a thread outside the
        // pool once every caller has started, or after a minute: a pool held by the first
        // callers could never start the rest, and the test then fails instead of hanging.
        let callers = ProcessInfo.processInfo.activeProcessorCount + 2
        let started = DispatchSemaphore(value: 0)
        let everyCallerStarted = Locked<Bool?>(nil)
        Thread.detachNewThread {
            let inTime = (0..<callers).allSatisfy { _ in started.wait(timeout: .now() + 60) == .success }
            everyCallerStarted.withLock { $0 = inTime }
            hold.release()
        }
        let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<callers {
                group.addTask {
                    started.signal()
                    return try await transport.perform(HTTPRequest(url: server.url("/other"))).statusCode
                }
            }
            return try await group.reduce(into: [Int]()) { $0.append($1) }
        }

        XCTAssertEqual(everyCallerStarted.withLock { $0 }, true, "every caller started while the upload's body was held")
        XCTAssertEqual(statuses, Array(repeating: 200, count: callers))
        let uploaded = try await uploadStatus.wait(timeout: 60, until: { $0 != nil })
        XCTAssertEqual(uploaded, 200)
        XCTAssertEqual(server.requests.first { $0.path == "/upload" }?.body, Data("x".utf8))
    }
}

/// Holds back the first read of a ``HeldBodyStream`` until ``release()``.
private final class BodyHold: Sendable {
    /// Becomes true when libcurl first reads, on the session's work queue.
    let readerArrived = AsyncCondition(false)
    private let released = DispatchSemaphore(value: 0)

    /// Lets the held read return.
    func release() {
        released.signal()
    }

    /// Called by the read: reports its arrival and waits for ``release()`` (two minutes at most).
    func holdRead() {
        readerArrived.update { $0 = true }
        _ = released.wait(timeout: .now() + 120)
    }
}

/// A one-byte request body whose first read waits on a ``BodyHold``.
private final class HeldBodyStream: InputStream {
    private let hold: BodyHold
    /// Only libcurl's reads, on the work queue, touch it.
    private var isSent = false

    init(hold: BodyHold) {
        self.hold = hold
        super.init(data: Data())
    }

    override func open() {}

    override func close() {}

    override var streamStatus: Stream.Status { isSent ? .atEnd : .open }

    override var hasBytesAvailable: Bool { !isSent }

    override func read(_ buffer: UnsafeMutablePointer<UInt8>, maxLength: Int) -> Int {
        guard !isSent else { return 0 }
        hold.holdRead()
        isSent = true
        buffer.pointee = UInt8(ascii: "x")
        return 1
    }

    override func getBuffer(_ buffer: UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>, length: UnsafeMutablePointer<Int>) -> Bool {
        false
    }
}
#endif
