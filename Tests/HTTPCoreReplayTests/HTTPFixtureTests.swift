import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import HTTPCore
import HTTPCoreLoopback
import HTTPCoreObservation
import HTTPCoreRedaction
@testable import HTTPCoreReplay
import HTTPCoreTesting
import HTTPCoreURLSession
import XCTest

/// Recording: failures kept as they came, secrets never written, masked values still
/// matching, and the modes.
final class HTTPFixtureTests: FixtureTestCase {
    /// How an exchange ended, in words: its status and body, or the error's code (after the
    /// status, when the body failed).
    private func outcome(of request: HTTPRequest, with client: some HTTPClient, messages: inout [String]) async -> String {
        var status: Int?
        do {
            return try await client.send(request) { head, body in
                status = head.statusCode
                return "\(head.statusCode) \(String(decoding: try await body.collect(upTo: 1 << 20), as: UTF8.self))"
            }
        } catch let error as HTTPError {
            messages.append(error.message ?? "")
            return status.map { "\($0), then \(error.code)" } ?? "\(error.code)"
        } catch {
            return "\(error)"
        }
    }

    func testARefusedConnectionATimeoutAndACutBodyReplayAsTheSameErrors() async throws {
        let server = try LoopbackHTTPServer { server in
            server.route("GET", "/slow", streaming: { _, writer in
                try writer.pause(5)
                try writer.writeHead(framing: .contentLength(2))
                try writer.write("ok")
            })
            server.route("GET", "/cut") { _ in
                var response = LoopbackResponse(status: 200, body: Data(repeating: UInt8(ascii: "x"), count: 100))
                response.fault = .closeAfterBodyBytes(10)
                return response
            }
        }
        let stopped = try LoopbackHTTPServer()
        let refusedURL = stopped.url("/reviews")
        stopped.stop()
        let requests = [
            HTTPRequest(url: refusedURL, timeout: 10),
            HTTPRequest(url: server.url("/slow"), timeout: 0.5),
            HTTPRequest(url: server.url("/cut"), timeout: 10),
        ]
        let recording = try HTTPFixture("failures", directory: directory, mode: .record)
        var live: [String] = []
        var liveMessages: [String] = []
        for request in requests {
            live.append(await outcome(of: request, with: recording.client(recordingThrough: urlSession()), messages: &liveMessages))
        }
        try await recording.save()
        server.stop()

        let replaying = try HTTPFixture("failures", directory: directory, mode: .replay)
        var replayed: [String] = []
        var replayedMessages: [String] = []
        for request in requests {
            replayed.append(await outcome(of: request, with: replaying.client(recordingThrough: urlSession()), messages: &replayedMessages))
        }

        XCTAssertEqual(live.first, "cannot_connect")
        XCTAssertEqual(live[1], "timeout")
        XCTAssertTrue(live[2].hasSuffix("connection_lost"), live[2])
        XCTAssertEqual(replayed, live)
        XCTAssertEqual(replayedMessages, liveMessages, "each error's message, as the recording's events showed it")
    }

    func testARecordingThatStillHoldsASecretIsNotWrittenAndTheErrorNamesTheEntryAndTheField() async throws {
        let token = "ghp_" + String(repeating: "a1B2c3D4e5", count: 4)
        let server = try LoopbackHTTPServer { server in
            server.route("POST", "/notes") { _ in .json(#"{"saved":true}"#, status: 201) }
        }
        defer { server.stop() }
        var policy = HTTPFixture.recordingPolicy
        policy.redactor = Redactor(level: .none)
        let fixture = try HTTPFixture("notes", directory: directory, mode: .record, policy: policy)
        let client = fixture.client(recordingThrough: urlSession())
        _ = try await client.send(HTTPRequest(
            method: .post, url: server.url("/notes"), headers: ["Content-Type": "text/plain"], body: Data("deploy with \(token)".utf8)
        ))

        do {
            try await fixture.save()
            XCTFail("a fixture holding a GitHub token was written")
        } catch {
            XCTAssertEqual(error.code, .invalidFixture)
            XCTAssertTrue(error.message?.hasPrefix("notes.har: entries[0].request.postData.text holds text the redactor masks (") == true, error.message ?? "")
            XCTAssertFalse(error.message?.contains(token) == true, "the error shows the secret")
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: fixture.file.path))
    }

    func testABodyTheRedactorCouldNotReadIsNotWrittenSinceAReplayWouldNotGiveItBack() async throws {
        let server = try LoopbackHTTPServer { server in
            server.route("GET", "/broken-json") { _ in .json(#"{"id":42,"name":"Ada""#) }
        }
        defer { server.stop() }
        let fixture = try HTTPFixture("broken", directory: directory, mode: .record)
        _ = try await fixture.client(recordingThrough: urlSession()).send(HTTPRequest(url: server.url("/broken-json")))
        do {
            try await fixture.save()
            XCTFail("a body masked as unreadable was written")
        } catch {
            XCTAssertEqual(
                error.message,
                "broken.har: entries[0].response.content.text is a body the redactor could not read as its type, so it masked the rest: not written, since a replay would not give back what came"
            )
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: fixture.file.path))
    }

    func testTheSameRequestSentThriceGetsTheThreeRecordedAnswersInOrderAndTheFileIsTheSameOnEverySave() async throws {
        let counter = ReplayCounter()
        let server = try LoopbackHTTPServer { server in
            server.route("GET", "/counter") { _ in .text("count \(counter.next())") }
        }
        let recording = try HTTPFixture("counter", directory: directory, mode: .record)
        let client = recording.client(recordingThrough: urlSession())
        var live: [String] = []
        for _ in 0..<3 { live.append(String(decoding: try await client.send(HTTPRequest(url: server.url("/counter"))).body, as: UTF8.self)) }
        try await recording.save()
        let saved = try Data(contentsOf: recording.file)
        try await recording.save()
        XCTAssertEqual(try Data(contentsOf: recording.file), saved, "the same recording writes the same bytes")
        server.stop()

        let replaying = try HTTPFixture("counter", directory: directory, mode: .replay)
        let replayClient = replaying.client(recordingThrough: urlSession())
        var replayed: [String] = []
        for _ in 0..<3 { replayed.append(String(decoding: try await replayClient.send(HTTPRequest(url: server.url("/counter"))).body, as: UTF8.self)) }
        XCTAssertEqual(live, ["count 1", "count 2", "count 3"])
        XCTAssertEqual(replayed, live)
    }

    func testMaskedValuesInTheFixtureMatchWhateverSecretTheReplayingTestSends() async throws {
        let server = try LoopbackHTTPServer { server in
            server.route("GET", "/me") { _ in .json(#"{"id":42}"#) }
        }
        var matching = ReplayMatching()
        matching.headers = .named(["Authorization"])
        let recording = try HTTPFixture("me", directory: directory, mode: .record, matching: matching)
        _ = try await recording.client(recordingThrough: urlSession()).send(HTTPRequest(
            url: server.url("/me?api_key=recorded-key-7f3a&view=full"), headers: ["Authorization": "Bearer recorded-token-9c1d"]
        ))
        try await recording.save()
        server.stop()
        let text = try String(contentsOf: recording.file, encoding: .utf8)
        XCTAssertFalse(text.contains("recorded-key-7f3a"))
        XCTAssertFalse(text.contains("recorded-token-9c1d"))
        XCTAssertFalse(text.contains("_requestId"))

        let replaying = try HTTPFixture("me", directory: directory, mode: .replay, matching: matching)
        let response = try await replaying.client(recordingThrough: urlSession()).send(HTTPRequest(
            url: server.url("/me?api_key=another-key-0000&view=full"), headers: ["Authorization": "Bearer another-token-1111"]
        ))
        XCTAssertEqual(String(decoding: response.body, as: UTF8.self), #"{"id":42}"#)
    }

    func testOnceRecordsAMissingFixtureAndReplaysItAfterAndReplayRefusesAMissingOne() async throws {
        let server = try LoopbackHTTPServer { server in server.route("GET", "/a") { _ in .text("live") } }
        let first = try HTTPFixture("once", directory: directory, mode: .once)
        XCTAssertTrue(first.isRecording)
        _ = try await first.client(recordingThrough: urlSession()).send(HTTPRequest(url: server.url("/a")))
        try await first.save()
        server.stop()
        let second = try HTTPFixture("once", directory: directory, mode: .once)
        XCTAssertFalse(second.isRecording)
        let response = try await second.client(recordingThrough: urlSession()).send(HTTPRequest(url: server.url("/a")))
        XCTAssertEqual(String(decoding: response.body, as: UTF8.self), "live")

        XCTAssertThrowsError(try HTTPFixture("missing", directory: directory, mode: .replay)) { error in
            XCTAssertEqual((error as? HTTPError)?.code, .invalidFixture)
            XCTAssertEqual(
                (error as? HTTPError)?.message,
                "\(directory.appendingPathComponent("missing.har").path) does not exist: record it with HTTPCORE_FIXTURES=once (or record)"
            )
        }
    }

    func testTheModeComesFromHTTPCOREFIXTURESElseOnceOrReplayInCI() throws {
        XCTAssertEqual(try HTTPFixture.environmentMode([:]), .once)
        XCTAssertEqual(try HTTPFixture.environmentMode(["CI": "true"]), .replay)
        XCTAssertEqual(try HTTPFixture.environmentMode(["CI": "true", "HTTPCORE_FIXTURES": "record"]), .record)
        XCTAssertEqual(try HTTPFixture.environmentMode(["HTTPCORE_FIXTURES": "Replay"]), .replay)
        XCTAssertThrowsError(try HTTPFixture.environmentMode(["HTTPCORE_FIXTURES": "sometimes"])) { error in
            XCTAssertEqual((error as? HTTPError)?.message, "HTTPCORE_FIXTURES=sometimes: the mode is one of replay, record, once")
        }
    }

    func testUsingReplaysTheNamedFixtureBesideTheTestFile() async throws {
        let body = try await HTTPFixture.using("chrome-devtools", mode: .replay) { fixture in
            XCTAssertTrue(HTTPFixture.current === fixture)
            return try await fixture.client(recordingThrough: urlSession()).send(
                HTTPRequest(method: .post, url: URL(string: "https://api.shop.example.com/v1/cart/items")!)
            ).body
        }
        XCTAssertEqual(String(decoding: body, as: UTF8.self), #"{"id":31,"sku":"TEA-7","qty":2}"#)
        XCTAssertNil(HTTPFixture.current)
    }
}

/// A count the loopback server's handler threads share.
private final class ReplayCounter: @unchecked Sendable {   // safe: `value` is only touched under `lock`
    private let lock = NSLock()
    private var value = 0

    func next() -> Int {
        lock.withLock {
            value += 1
            return value
        }
    }
}
