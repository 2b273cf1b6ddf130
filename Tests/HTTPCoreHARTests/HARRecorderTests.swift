import Foundation
import HTTPCoreHAR
import HTTPCoreTesting
import HTTPCoreURLSession
import XCTest
import HTTPCoreConcurrency
import HTTPCoreLoopback
import HTTPCoreTestPeers

@testable import HTTPCore
@testable import HTTPCoreObservation
import HTTPCoreGenAI

/// Real exchanges through `URLSessionClient` and a loopback server, recorded, written to a
/// file, and read back by PyPI's haralyzer with the HAR 1.2 field rules (`HARConsumer`).
final class HARRecorderTests: XCTestCase {
    private var server: LoopbackHTTPServer!
    private var dispatcher: HTTPEventDispatcher!
    private var folder: URL!

    override func setUpWithError() throws {
        server = try LoopbackHTTPServer()
        dispatcher = HTTPEventDispatcher()
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("har-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    override func tearDown() {
        server.stop()
        try? FileManager.default.removeItem(at: folder)
    }

    /// Writes the recorder's file once every event so far was delivered, and returns what
    /// haralyzer read, after checking that the file breaks no HAR 1.2 rule.
    private func written(_ recorder: HARRecorder) async throws -> (file: Data, consumer: HARConsumer) {
        await dispatcher.flush()
        let url = folder.appendingPathComponent("\(UUID().uuidString).har")
        try recorder.write(to: url)
        let consumer = try HARConsumer.check(url)
        XCTAssertEqual(consumer.errors, [], "HAR 1.2 rules")
        XCTAssertEqual(consumer.version, "1.2")
        XCTAssertEqual(consumer.creator, ["name": "HTTPCore", "version": HARRecorder.creatorVersion])
        return (try Data(contentsOf: url), consumer)
    }

    private func client(_ policy: HTTPCorePolicy = .debug, middlewares: [any HTTPMiddleware] = []) -> URLSessionClient {
        URLSessionClient(middlewares: middlewares, dispatcher: dispatcher, policy: policy)
    }

    private func subscribedRecorder(capacity: Int = HARRecorder.defaultCapacity) -> HARRecorder {
        let recorder = HARRecorder(capacity: capacity)
        dispatcher.subscribe(recorder)
        return recorder
    }

    /// The sum of an entry's phases that apply, in whole microseconds.
    private func microseconds(ofPhasesIn entry: HARConsumer.Entry) -> Int {
        let phases = ["blocked", "dns", "connect", "send", "wait", "receive"].compactMap { entry.timings[$0] }
        return phases.filter { $0 >= 0 }.map { Int(($0 * 1000).rounded()) }.reduce(0, +)
    }

    func testAJSONExchangeIsOneEntryWithItsRequestResponseAndQuery() async throws {
        server.route("/users/42") { _ in .json(#"{"id":42,"name":"Roy"}"#) }
        let recorder = subscribedRecorder()
        let url = server.url("/users/42?fields=name&lang=en%20GB")
        _ = try await client().send(HTTPRequest(url: url, headers: ["Accept": "application/json", "X-Team": "Richmond"]))

        let (_, har) = try await written(recorder)
        XCTAssertEqual(har.pages, ["unknown"], "no pages: haralyzer files every entry under its 'unknown' page")
        XCTAssertEqual(har.getCount, 1)
        XCTAssertEqual(har.entries.count, 1)
        let entry = try XCTUnwrap(har.entries.first)
        XCTAssertEqual(entry.method, "GET")
        XCTAssertEqual(entry.url, url.absoluteString)
        XCTAssertEqual(entry.httpVersion, "HTTP/1.1")
        XCTAssertEqual(entry.queryString, [.init(name: "fields", value: "name"), .init(name: "lang", value: "en GB")])
        XCTAssertEqual(
            Array(entry.requestHeaders.prefix(2)), [.init(name: "Accept", value: "application/json"), .init(name: "X-Team", value: "Richmond")],
            "the request's own headers, then those URLSession added"
        )
        #if canImport(FoundationNetworking)
        XCTAssertEqual(entry.requestHeaders.dropFirst(2).map(\.name), ["User-Agent", "Accept-Encoding", "Accept-Language"])
        #endif
        XCTAssertEqual(entry.requestCookies, [])
        XCTAssertEqual(entry.requestBodySize, 0)
        XCTAssertNil(entry.requestMimeType, "no postData for a request without a body")
        XCTAssertEqual(entry.status, 200)
        XCTAssertEqual(entry.statusText, "")
        XCTAssertEqual(entry.responseHeader("Content-Type"), "application/json")
        XCTAssertEqual(entry.mimeType, "application/json")
        XCTAssertEqual(entry.text, #"{"id":42,"name":"Roy"}"#)
        XCTAssertNil(entry.encoding)
        XCTAssertEqual(entry.contentSize, 22)
        XCTAssertEqual(entry.responseBodySize, 22)
        XCTAssertEqual(entry.redirectURL, "")
        XCTAssertEqual(entry.outcome, "succeeded")
        XCTAssertEqual(entry.attempt, 1)
        XCTAssertNil(entry.error)
        XCTAssertNil(entry.comment)
        XCTAssertEqual(recorder.entryCount, 1)
        XCTAssertEqual(recorder.droppedCount, 0)
    }

    func testTimingsComeFromTheEventsAndAddUpToTime() async throws {
        server.route("/orders") { _ in .json("[]") }
        let recorder = subscribedRecorder()
        let events = RecordingObserver()
        dispatcher.subscribe(events)
        _ = try await client().send(HTTPRequest(url: server.url("/orders")))

        let (_, har) = try await written(recorder)
        let entry = try XCTUnwrap(har.entries.first)
        let all = events.events
        let started = try XCTUnwrap(all.first { $0.name == .requestStarted }?.startedAt)
        let succeeded = try XCTUnwrap(all.first { $0.name == .requestSucceeded })
        let duration = try XCTUnwrap(succeeded.durationMilliseconds)
        let total = Int((duration * 1000).rounded())
        XCTAssertEqual(Int((entry.time * 1000).rounded()), total, "time is the exchange's duration, in microseconds")
        XCTAssertEqual(microseconds(ofPhasesIn: entry), total, "time is the sum of the phases")
        // Without middlewares the exchange is its one attempt: `wait` is all of it.
        let attempt = try XCTUnwrap(succeeded.attemptDurationMilliseconds)
        let wait = min(Int((attempt * 1000).rounded()), total)
        XCTAssertEqual(wait, total)
        XCTAssertEqual(Int((entry.timings["wait"]! * 1000).rounded()), wait, "the attempt's duration, within the exchange's")
        XCTAssertEqual(Int((entry.timings["receive"]! * 1000).rounded()), total - wait, "from the attempt's end to the exchange's")
        XCTAssertEqual(entry.timings["blocked"], -1, "one attempt, started at once")
        XCTAssertEqual(entry.timings["send"], 0)
        XCTAssertEqual(entry.timings["dns"], -1)
        XCTAssertEqual(entry.timings["connect"], -1)
        XCTAssertEqual(entry.timings["ssl"], -1)
        let start = try XCTUnwrap(entry.startTime.flatMap { ISO8601DateFormatter.withFractionalSeconds.date(from: $0) })
        XCTAssertEqual(start.timeIntervalSince(started), 0, accuracy: 0.001, "startedDateTime is the start, to the millisecond")
    }

    func testARetriedAttemptIsItsOwnEntryAndTheFinalOneIsBlockedByIt() async throws {
        server.route("/flaky", answering: [.text("busy", status: 503), .text("ok")])
        let recorder = subscribedRecorder()
        let retry = RetryMiddleware(backoff: Backoff(initial: 0.05, maximum: 0.05, jitter: .none))
        _ = try await client(middlewares: [retry]).send(HTTPRequest(url: server.url("/flaky")))

        let (_, har) = try await written(recorder)
        XCTAssertEqual(har.entries.count, 2)
        let retried = try XCTUnwrap(har.entries.first { $0.outcome == "retried" })
        let succeeded = try XCTUnwrap(har.entries.first { $0.outcome == "succeeded" })
        XCTAssertEqual(retried.requestId, succeeded.requestId)
        XCTAssertEqual([retried.attempt, succeeded.attempt], [1, 2])
        XCTAssertEqual([retried.status, succeeded.status], [503, 200])
        XCTAssertEqual([retried.text, succeeded.text], ["busy", "ok"])
        XCTAssertEqual(retried.comment, "attempt 1, followed by another attempt")
        XCTAssertEqual(retried.timings["blocked"], -1)
        XCTAssertGreaterThanOrEqual(succeeded.timings["blocked"]!, 50, "the first attempt and the 50 ms backoff came before the second")
        for entry in har.entries {
            XCTAssertEqual(microseconds(ofPhasesIn: entry), Int((entry.time * 1000).rounded()))
        }
    }

    func testARedirectedPostIsTheEntryOfTheGETThatGotTheStatus() async throws {
        server.route("/submit") { _ in .redirect(to: "/done", status: 303) }
        server.route("/done") { _ in .text("thanks") }
        let recorder = subscribedRecorder()
        let request = HTTPRequest(method: .post, url: server.url("/submit"), headers: ["Content-Type": "text/plain"], body: Data("name=Roy".utf8))
        _ = try await client().send(request)

        let (file, har) = try await written(recorder)
        let entry = try XCTUnwrap(har.entries.first)
        XCTAssertEqual(har.entries.count, 1)
        XCTAssertEqual([entry.method, entry.url], ["GET", server.url("/done").absoluteString])
        XCTAssertEqual(entry.requestBodySize, 0)
        XCTAssertNil(entry.requestText, "the GET carried no body")
        XCTAssertEqual(entry.status, 200)
        XCTAssertEqual(entry.comment, "redirected: POST \(server.url("/submit")) → 303 → GET \(server.url("/done"))")
        let document = try XCTUnwrap(try JSONSerialization.jsonObject(with: file) as? [String: Any])
        let entries = try XCTUnwrap((document["log"] as? [String: Any])?["entries"] as? [[String: Any]])
        let from = try XCTUnwrap(entries.first?["_redirectedFrom"] as? [String: Any])
        XCTAssertEqual(from["method"] as? String, "POST")
        XCTAssertEqual(from["url"] as? String, server.url("/submit").absoluteString)
        XCTAssertEqual(from["statusCodes"] as? [Int], [303])
    }

    func testAnEntryNeedsOnlyItsOwnEventSoLostStartsCostNoTimings() async throws {
        server.route("/flaky", answering: [.text("busy", status: 503), .text("ok")])
        let everything = subscribedRecorder()
        let endsOnly = HARRecorder()
        dispatcher.subscribe { event in
            if event.name.isTerminal || event.name == .requestRetried { endsOnly.handle(event) }
        }
        let retry = RetryMiddleware(backoff: Backoff(initial: 0.01, maximum: 0.01, jitter: .none))
        _ = try await client(middlewares: [retry]).send(HTTPRequest(url: server.url("/flaky")))

        let (file, har) = try await written(everything)
        XCTAssertEqual(har.entries.count, 2)
        XCTAssertEqual(endsOnly.harDocument(), file, "the same entries, timings included, without created, started or received")
        let succeeded = try XCTUnwrap(har.entries.first { $0.outcome == "succeeded" })
        XCTAssertGreaterThanOrEqual(succeeded.timings["blocked"]!, 10, "the first attempt and the 10 ms backoff came before the second")
    }

    func testABinaryResponseIsBase64AndDecodesToTheExactBytes() async throws {
        let bytes = Data((0..<256).map { UInt8($0) } + [0xFF, 0xFE, 0x00])
        server.route("/avatar.bin") { _ in LoopbackResponse(headers: ["Content-Type": "application/octet-stream"], body: bytes) }
        let recorder = subscribedRecorder()
        _ = try await client().send(HTTPRequest(url: server.url("/avatar.bin")))

        let (_, har) = try await written(recorder)
        let entry = try XCTUnwrap(har.entries.first)
        XCTAssertEqual(entry.encoding, "base64")
        XCTAssertEqual(entry.mimeType, "application/octet-stream")
        XCTAssertEqual(entry.contentSize, 259)
        XCTAssertEqual(entry.decodedHex, bytes.map { String(format: "%02x", $0) }.joined(), "Python decodes the exact bytes")
        XCTAssertEqual(Data(base64Encoded: entry.text), bytes)
    }

    func testABinaryRequestBodyIsBase64PostDataThatDecodesToTheExactBytes() async throws {
        server.route("/upload") { _ in .text("stored", status: 201) }
        let bytes = Data([0x00, 0xFF, 0x10, 0x80, 0x41])
        let recorder = subscribedRecorder()
        _ = try await client().send(HTTPRequest(
            method: .post, url: server.url("/upload"), headers: ["Content-Type": "application/octet-stream"], body: bytes
        ))

        let (file, har) = try await written(recorder)
        XCTAssertEqual(har.entries.first?.requestMimeType, "application/octet-stream")
        let entries = try HARFile.entries(of: file)
        let postData = try XCTUnwrap((entries.first?["request"] as? [String: Any])?["postData"] as? [String: Any])
        XCTAssertEqual(postData["_encoding"] as? String, "base64")
        XCTAssertEqual((postData["text"] as? String).flatMap { Data(base64Encoded: $0) }, bytes)
    }

    func testPostedJSONAndFormBodiesArePostDataWithParamsForTheForm() async throws {
        server.route("/orders") { _ in .json(#"{"id":7}"#, status: 201) }
        server.route("/subscribe") { _ in .text("subscribed") }
        let recorder = subscribedRecorder()
        let json = #"{"item":"ball","quantity":2}"#
        let form = "email=roy%40example.com&team=AFC+Richmond&plan="
        _ = try await client().send(HTTPRequest(
            method: .post, url: server.url("/orders"), headers: ["Content-Type": "application/json"], body: Data(json.utf8)
        ))
        _ = try await client().send(HTTPRequest(
            method: .post, url: server.url("/subscribe"), headers: ["Content-Type": "application/x-www-form-urlencoded"],
            body: Data(form.utf8)
        ))

        let (_, har) = try await written(recorder)
        XCTAssertEqual(har.postCount, 2)
        let order = try XCTUnwrap(har.entries.first { $0.url.hasSuffix("/orders") })
        XCTAssertEqual(order.requestMimeType, "application/json")
        XCTAssertEqual(order.requestText, json)
        XCTAssertEqual(order.requestBodySize, json.utf8.count)
        XCTAssertNil(order.params)
        XCTAssertEqual(order.status, 201)
        let subscription = try XCTUnwrap(har.entries.first { $0.url.hasSuffix("/subscribe") })
        XCTAssertEqual(subscription.requestMimeType, "application/x-www-form-urlencoded")
        XCTAssertEqual(subscription.requestText, form)
        XCTAssertEqual(
            subscription.params,
            [.init(name: "email", value: "roy@example.com"), .init(name: "team", value: "AFC Richmond"), .init(name: "plan", value: "")]
        )
    }

    func testARefusedConnectionIsStatusZeroWithTheScrubbedError() async throws {
        let closed = try LoopbackHTTPServer()
        let url = closed.url("/users?token=S3CR3T")
        closed.stop()
        let recorder = subscribedRecorder()
        do {
            _ = try await client().send(HTTPRequest(url: url))
            XCTFail("the connection should be refused")
        } catch {}

        let (file, har) = try await written(recorder)
        let entry = try XCTUnwrap(har.entries.first)
        XCTAssertEqual(entry.status, 0)
        XCTAssertEqual(entry.statusText, "", "as Chrome DevTools writes a request that got no response")
        XCTAssertEqual(entry.outcome, "failed")
        XCTAssertEqual(entry.errorType, "cannot_connect")
        XCTAssertTrue(entry.error?.hasPrefix("transport error [cannot_connect]: ") ?? false, entry.error ?? "no _error")
        XCTAssertTrue(entry.comment?.hasPrefix("failed without a response: transport error [cannot_connect]") ?? false)
        XCTAssertEqual(entry.contentSize, 0)
        XCTAssertEqual(entry.responseBodySize, -1)
        XCTAssertEqual(entry.responseHeaders, [])
        XCTAssertEqual(entry.timings["receive"], 0, "no response: all of the time was spent waiting")
        XCTAssertEqual(entry.timings["wait"], entry.time)
        XCTAssertFalse(String(decoding: file, as: UTF8.self).contains("S3CR3T"))
    }

    func testABodyCutAfterA200IsMarkedFailedWithItsStatusAndError() async throws {
        server.route("/export") { _ in
            var response = LoopbackResponse.text(String(repeating: "x", count: 1000))
            response.fault = .closeAfterBodyBytes(10)
            return response
        }
        let recorder = subscribedRecorder()
        let read = try? await client().send(HTTPRequest(url: server.url("/export")), body: nil) { _, body in
            try await body.collect(upTo: 1 << 20).count
        }
        XCTAssertNil(read, "the body was cut")

        let (_, har) = try await written(recorder)
        let entry = try XCTUnwrap(har.entries.first)
        // As Chrome DevTools writes a request whose body failed after its head: the status that
        // came, and the failure in `_error`; the status line viewers show says `(failed)`.
        XCTAssertEqual(entry.status, 200, "the status that came")
        let error = try XCTUnwrap(entry.error)
        XCTAssertTrue(error.hasPrefix("transport error [connection_lost]: "), error)
        XCTAssertEqual(entry.statusText, "(failed) " + error)
        XCTAssertEqual(entry.outcome, "failed")
        XCTAssertEqual(entry.errorType, "connection_lost")
        XCTAssertTrue(entry.comment?.hasPrefix("failed after status 200: transport error [connection_lost]") ?? false, entry.comment ?? "no comment")
    }

    func testAnExchangeCancelledAfterItsHeadKeepsItsStatusAndReadsCancelled() async throws {
        let gate = server.makeGate()
        server.route("GET", "/events", streaming: { _, writer in
            try writer.writeHead(headers: ["Content-Type": "text/event-stream"], framing: .chunked)
            try writer.write("data: first\n\n")
            try writer.wait(for: gate)
        })
        defer { gate.open() }
        let recorder = subscribedRecorder()
        let client = client()
        let request = HTTPRequest(url: server.url("/events"))
        let (chunks, chunkArrived) = AsyncStream<Void>.makeStream()
        let read = Task {
            try await client.send(request, body: nil) { _, body in
                for try await _ in body { chunkArrived.yield() }
            }
        }
        for await _ in chunks { break }
        read.cancel()
        _ = await read.result

        let (_, har) = try await written(recorder)
        let entry = try XCTUnwrap(har.entries.first)
        XCTAssertEqual(entry.status, 200, "the status that came")
        XCTAssertEqual(entry.statusText, "(cancelled)")
        XCTAssertEqual(entry.error, "cancelled")
        XCTAssertEqual(entry.errorType, "cancelled")
        XCTAssertEqual(entry.outcome, "cancelled")
    }

    func testACancelledExchangeIsStatusZeroAndSaysSo() async throws {
        server.route("/slow") { _ in
            var response = LoopbackResponse.text("late")
            response.delay = 10
            return response
        }
        let recorder = subscribedRecorder()
        let events = RecordingObserver()
        dispatcher.subscribe(events)
        let client = client()
        let request = HTTPRequest(url: server.url("/slow"))
        let call = Task { try await client.send(request) }
        try await events.waitForEvents(count: 2)  // created, started
        call.cancel()
        _ = await call.result

        let (_, har) = try await written(recorder)
        let entry = try XCTUnwrap(har.entries.first)
        XCTAssertEqual(entry.status, 0)
        XCTAssertEqual(entry.outcome, "cancelled")
        XCTAssertEqual(entry.error, "cancelled")
        XCTAssertEqual(entry.errorType, "cancelled")
        XCTAssertEqual(entry.comment, "cancelled before a complete response")
    }

    func testSecretsInHeadersQueryCookiesAndBodiesNeverReachTheFile() async throws {
        server.route("/login") { _ in
            var response = LoopbackResponse.json(#"{"token":"S3CR3T-R","expiresIn":3600}"#)
            response.headers.add(name: "Set-Cookie", value: "sid=S3CR3T-S; Path=/; HttpOnly")
            return response
        }
        let recorder = subscribedRecorder()
        _ = try await client().send(HTTPRequest(
            method: .post,
            url: server.url("/login?client_secret=S3CR3T-Q&page=1"),
            headers: ["Content-Type": "application/json", "Authorization": "Bearer S3CR3T-H", "Cookie": "session=S3CR3T-C; theme=dark"],
            body: Data(#"{"user":"roy","password":"S3CR3T-B"}"#.utf8)
        ))

        let (file, har) = try await written(recorder)
        XCTAssertFalse(String(decoding: file, as: UTF8.self).contains("S3CR3T"), "no secret anywhere in the file")
        let entry = try XCTUnwrap(har.entries.first)
        XCTAssertEqual(entry.url, server.url("/login").absoluteString + "?client_secret=[REDACTED]&page=1")
        XCTAssertEqual(entry.queryString, [.init(name: "client_secret", value: "[REDACTED]"), .init(name: "page", value: "1")])
        XCTAssertEqual(entry.requestHeader("Authorization"), "[REDACTED]")
        XCTAssertEqual(entry.requestHeader("Cookie"), "[REDACTED]")
        XCTAssertEqual(entry.requestCookies, [.init(name: "", value: "[REDACTED]")], "a masked Cookie header is one masked value")
        XCTAssertEqual(entry.requestText, #"{"user":"roy","password":"[REDACTED]"}"#)
        XCTAssertEqual(entry.text, #"{"token":"[REDACTED]","expiresIn":3600}"#)
        XCTAssertEqual(entry.responseCookies, [.init(name: "", value: "[REDACTED]")])
    }

    func testCookiesAreListedWithTheirAttributesWhenThePolicyKeepsThem() async throws {
        server.route("/prefs") { _ in
            var response = LoopbackResponse.text("ok")
            response.headers.add(name: "Set-Cookie", value: "sid=abc; Path=/; Domain=example.com; Expires=Wed, 21 Oct 2026 07:28:00 GMT; HttpOnly; Secure")
            response.headers.add(name: "Set-Cookie", value: "theme=dark")
            return response
        }
        let recorder = subscribedRecorder()
        let open = HTTPCorePolicy(redactor: .none, bodyCapture: .captured(maxBytes: 1024))
        _ = try await client(open).send(HTTPRequest(url: server.url("/prefs"), headers: ["Cookie": "a=1; b=two"]))

        let (_, har) = try await written(recorder)
        let entry = try XCTUnwrap(har.entries.first)
        XCTAssertEqual(entry.requestCookies, [.init(name: "a", value: "1"), .init(name: "b", value: "two")])
        XCTAssertEqual(entry.responseCookies, [
            .init(name: "sid", value: "abc", path: "/", domain: "example.com", expires: "2026-10-21T07:28:00.000Z", httpOnly: true, secure: true),
            .init(name: "theme", value: "dark"),
        ])
    }

    func testTruncatedAndOmittedBodiesSaySoInsteadOfPretending() async throws {
        server.route("/digits") { _ in .text("0123456789abcdef") }
        let recorder = subscribedRecorder()
        _ = try await client(HTTPCorePolicy(bodyCapture: .captured(maxBytes: 8))).send(HTTPRequest(
            method: .post, url: server.url("/digits"), headers: ["Content-Type": "text/plain"], body: Data("fedcba9876543210".utf8)
        ))
        _ = try await client(.release).send(HTTPRequest(url: server.url("/digits")))

        let (file, har) = try await written(recorder)
        let (cut, omitted) = (har.entries[0], har.entries[1])
        XCTAssertEqual(cut.text, "01234567")
        XCTAssertEqual(cut.contentSize, 16)
        XCTAssertEqual(cut.requestText, "fedcba98")
        XCTAssertEqual(cut.requestBodySize, 16)
        XCTAssertEqual(omitted.text, "")
        XCTAssertEqual(omitted.contentSize, 16)
        let entries = try HARFile.entries(of: file)
        let cutContent = try XCTUnwrap((entries[0]["response"] as? [String: Any])?["content"] as? [String: Any])
        XCTAssertEqual(cutContent["_truncated"] as? Bool, true)
        XCTAssertEqual(cutContent["comment"] as? String, "body of 16 bytes cut at the client's HTTPCorePolicy capture limit: text is its beginning")
        let postData = try XCTUnwrap((entries[0]["request"] as? [String: Any])?["postData"] as? [String: Any])
        XCTAssertEqual(postData["_truncated"] as? Bool, true)
        let omittedContent = try XCTUnwrap((entries[1]["response"] as? [String: Any])?["content"] as? [String: Any])
        XCTAssertEqual(omittedContent["comment"] as? String, "body of 16 bytes not captured: the client's HTTPCorePolicy omits bodies")
        XCTAssertNil(omittedContent["_truncated"])
    }

    func testTextCutInsideACharacterStaysTextInsteadOfTurningIntoBase64() async throws {
        server.route("/menu") { _ in .text("café au lait") }
        let recorder = subscribedRecorder()
        // The capture keeps "caf" and the first byte of "é".
        _ = try await client(HTTPCorePolicy(bodyCapture: .captured(maxBytes: 4))).send(HTTPRequest(url: server.url("/menu")))

        let (file, har) = try await written(recorder)
        XCTAssertEqual(har.entries[0].text, "caf")
        let entries = try HARFile.entries(of: file)
        let content = try XCTUnwrap((entries[0]["response"] as? [String: Any])?["content"] as? [String: Any])
        XCTAssertNil(content["encoding"], "text, not base64")
        XCTAssertEqual(content["_truncated"] as? Bool, true)
    }

    func testKeepsTheLastNEntriesAndCountsTheDroppedOnes() async throws {
        server.route("/page") { request in .text(request.query ?? "") }
        let recorder = subscribedRecorder(capacity: 3)
        for index in 0..<5 {
            _ = try await client().send(HTTPRequest(url: server.url("/page?n=\(index)")))
        }

        let (file, har) = try await written(recorder)
        XCTAssertEqual(har.entries.map(\.text), ["n=2", "n=3", "n=4"])
        XCTAssertEqual(recorder.entryCount, 3)
        XCTAssertEqual(recorder.droppedCount, 2)
        let log = try XCTUnwrap((try JSONSerialization.jsonObject(with: file) as? [String: Any])?["log"] as? [String: Any])
        XCTAssertEqual(log["_droppedEntries"] as? Int, 2)
        XCTAssertEqual(
            log["comment"] as? String,
            "Recorded by HTTPCore's HARRecorder, redacted by the client's HTTPCorePolicy; the 2 oldest entries were dropped to keep the last 3."
        )

        recorder.removeAll()
        XCTAssertEqual([recorder.entryCount, recorder.droppedCount], [0, 0])
        let (_, emptied) = try await written(recorder)
        XCTAssertEqual(emptied.entries.count, 0)
    }

    func testTheSameEntriesAlwaysGiveTheSameBytes() async throws {
        server.route("/a") { _ in .json(#"{"a":1}"#) }
        let recorder = subscribedRecorder()
        _ = try await client().send(HTTPRequest(url: server.url("/a")))
        await dispatcher.flush()
        let url = folder.appendingPathComponent("a.har")
        try recorder.write(to: url)
        XCTAssertEqual(recorder.harDocument(), recorder.harDocument())
        XCTAssertEqual(try Data(contentsOf: url), recorder.harDocument())
        let text = String(decoding: recorder.harDocument(), as: UTF8.self)
        XCTAssertTrue(text.hasPrefix("{\n  \"log\": {\n    \"version\": \"1.2\",\n    \"creator\": {\n      \"name\": \"HTTPCore\","), text)
    }

    /// The terminal event of one exchange through a mock transport answering `answer`, with
    /// LLM calls read (`.debug.interpreting(.genAI)`), as the dispatcher delivered it, read by
    /// no observer yet.
    private func terminalEvent(of request: HTTPRequest, answer: MockTransport.Reply) async throws -> HTTPEvent {
        let dispatcher = HTTPEventDispatcher()
        let kept = Locked<[HTTPEvent]>([])
        dispatcher.subscribe { event in kept.withLock { $0.append(event) } }
        _ = try await HTTPTransportClient(
            transport: MockTransport(default: answer), dispatcher: dispatcher, policy: .debug.interpreting(.genAI)
        ).send(request)
        await dispatcher.flush()
        return try XCTUnwrap(kept.withLock { $0 }.last)
    }

    func testHandleStoresTheEventAndTheEntryIsMadeWithThePolicysRedactionWhenTheDocumentIsBuilt() async throws {
        let request = HTTPRequest(
            method: .post, url: URL(string: "https://api.example.com/login?token=t")!, headers: ["Authorization": "Bearer s3cret"],
            body: Data(#"{"password":"hunter2"}"#.utf8)
        )
        let terminal = try await terminalEvent(of: request, answer: .status(200, body: Data(#"{"ok":true}"#.utf8)))
        let recorder = HARRecorder()

        recorder.handle(terminal)
        XCTAssertFalse(terminal.requestRecord.isExposed, "handle redacted nothing of the request")
        XCTAssertEqual(terminal.responseRecord?.isExposed, false, "nor of the response")
        XCTAssertEqual([recorder.entryCount, recorder.droppedCount], [1, 0])

        let document = recorder.harDocument()
        XCTAssertTrue(terminal.requestRecord.isExposed, "the entry was made from the event by harDocument()")
        let entry = try XCTUnwrap(try HARFile.entries(of: document).first)
        let requestJSON = try XCTUnwrap(entry["request"] as? [String: Any])
        XCTAssertEqual(requestJSON["url"] as? String, "https://api.example.com/login?token=[REDACTED]")
        let headers = try XCTUnwrap(requestJSON["headers"] as? [[String: Any]])
        XCTAssertEqual(headers.first { ($0["name"] as? String) == "Authorization" }?["value"] as? String, "[REDACTED]")
        XCTAssertEqual((requestJSON["postData"] as? [String: Any])?["text"] as? String, #"{"password":"[REDACTED]"}"#)
        XCTAssertEqual(recorder.harDocument(), document, "the entry made again reads the same redacted views")
    }

    /// 300 KiB of `a`, in a buffer that sets `freed` when the last `Data` sharing it goes.
    private static func largeBody(freed: Locked<Bool>) -> Data {
        let bytes = UnsafeMutableRawPointer.allocate(byteCount: 300 * 1024, alignment: 1)
        bytes.initializeMemory(as: UInt8.self, repeating: UInt8(ascii: "a"), count: 300 * 1024)
        return Data(bytesNoCopy: bytes, count: 300 * 1024, deallocator: .custom { bytes, _ in
            bytes.deallocate()
            freed.withLock { $0 = true }
        })
    }

    func testAnEventKeepingLargeBodiesAliveKeepsACopyOfWhatItsEntryShowsAndRedactsNothingInHandle() async throws {
        let freed = Locked(false)
        var terminal: HTTPEvent? = try await terminalEvent(
            of: HTTPRequest(url: URL(string: "https://api.example.com/large")!),
            answer: .status(200, body: Self.largeBody(freed: freed))
        )
        let recorder = HARRecorder()

        recorder.handle(try XCTUnwrap(terminal))
        XCTAssertEqual(terminal?.responseRecord?.isExposed, false, "handle redacted nothing")
        terminal = nil
        XCTAssertTrue(freed.withLock { $0 }, "the recorder keeps a copy of the 64 KiB the policy captures, not the 300 KiB body")

        let entry = try XCTUnwrap(try HARFile.entries(of: recorder.harDocument()).first)
        let content = try XCTUnwrap((entry["response"] as? [String: Any])?["content"] as? [String: Any])
        XCTAssertEqual(content["size"] as? Int, 300 * 1024)
        XCTAssertEqual(content["text"] as? String, String(repeating: "a", count: 64 * 1024), "the policy's cap")
        XCTAssertEqual(content["_truncated"] as? Bool, true)
        XCTAssertEqual(content["comment"] as? String, "body of 307200 bytes cut at the client's HTTPCorePolicy capture limit: text is its beginning")
    }

    func testACutEventIsKeptForLaterWhateverTheDeferredBudget() async throws {
        let freed = Locked(false)
        var terminal: HTTPEvent? = try await terminalEvent(
            of: HTTPRequest(url: URL(string: "https://api.example.com/large")!),
            answer: .status(200, body: Self.largeBody(freed: freed))
        )
        let recorder = HARRecorder(maximumDeferredBytes: 0)

        recorder.handle(try XCTUnwrap(terminal))
        XCTAssertEqual(terminal?.responseRecord?.isExposed, false, "a budget of 0 still redacts nothing on the caller's task: the cut entry would weigh as much")
        terminal = nil
        XCTAssertTrue(freed.withLock { $0 }, "only the cut copy is kept")

        let small = try await terminalEvent(of: HTTPRequest(url: URL(string: "https://api.example.com/small")!), answer: .status(200, body: Data("ok".utf8)))
        recorder.handle(small)
        XCTAssertEqual(small.responseRecord?.isExposed, true, "the cut entry took nothing of the budget, which is 0: a light event is made at once")

        let entries = try HARFile.entries(of: recorder.harDocument())
        let sizes = entries.map { (($0["response"] as? [String: Any])?["content"] as? [String: Any])?["size"] as? Int }
        XCTAssertEqual(sizes, [300 * 1024, 2])
    }

    /// Every event of `fixture`'s call through a client with the debug policy, as a dispatcher
    /// delivered them, nothing read from them.
    private func events(of fixture: GenAIFixture) async throws -> [HTTPEvent] {
        let dispatcher = HTTPEventDispatcher()
        let kept = Locked<[HTTPEvent]>([])
        dispatcher.subscribe { event in kept.withLock { $0.append(event) } }
        try await fixture.send(through: dispatcher, policy: .debug)
        await dispatcher.flush()
        return kept.withLock { $0 }
    }

    /// OpenAI's chat stream answering with `count` content deltas of about 300 bytes each.
    private func openAIChatStream(deltas count: Int) -> GenAIFixture {
        var fixture = GenAIFixture.openAIChatStream
        let events = fixture.events
        fixture.responseBody = events[0] + String(repeating: events[1], count: count) + events[4...].joined()
        return fixture
    }

    func testAnLLMCallHoldingSmallBodiesIsMadeWhenTheDocumentIsBuiltHoweverMuchItsGenAIReadingKeeps() async throws {
        for fixture in [openAIChatStream(deltas: 1_100), .openAIChatCompletion] {
            let events = try await events(of: fixture)
            let terminal = try XCTUnwrap(events.last)
            XCTAssertEqual(terminal.name, .requestSucceeded)
            let recorder = HARRecorder()

            for event in events { recorder.handle(event) }

            XCTAssertFalse(terminal.requestRecord.isExposed, "handle redacted nothing of the request")
            XCTAssertEqual(terminal.responseRecord?.isExposed, false, "nor of the response")
            XCTAssertEqual(terminal.genAIRecord?.isDerived, false, "nor read the call's facts")
            let entry = try XCTUnwrap(try HARFile.entries(of: recorder.harDocument()).first)
            XCTAssertTrue(terminal.requestRecord.isExposed, "the entry was made from the event by harDocument()")
            XCTAssertEqual(terminal.genAIRecord?.isDerived, true)
            let attributes = try XCTUnwrap((entry["_genAI"] as? [String: Any])?["attributes"] as? [String: Any])
            XCTAssertEqual(attributes["gen_ai.request.model"] as? String, fixture.isStream ? "gpt-4o-mini" : "o4-mini")
            if fixture.isStream {
                XCTAssertEqual(entry["_streamMessageCount"] as? Int, 1_104, "role, 1,100 deltas, finish, usage, [DONE]")
                XCTAssertEqual((entry["_eventSourceMessages"] as? [Any])?.count, HARRecorder.defaultMaxStreamMessagesPerEntry)
            }
        }
    }

    func testAnEventHeavyWithWhatItsEntryWouldKeepAnywayIsMadeWhenTheDocumentIsBuilt() async throws {
        // 300 KiB in a header the policy shows: the entry, made, would keep it all the same.
        let context = String(repeating: "a", count: 300 * 1024)
        let request = HTTPRequest(url: URL(string: "https://api.example.com/v1/items")!, headers: ["X-Context": context])
        let terminal = try await terminalEvent(of: request, answer: .status(200, body: Data("[]".utf8), headers: ["Content-Type": "application/json"]))
        XCTAssertGreaterThan(terminal.retainedByteCount, 300 * 1024)
        let recorder = HARRecorder()

        recorder.handle(terminal)

        XCTAssertFalse(terminal.requestRecord.isExposed, "only raw bodies are worth making the entry at once for")
        let entry = try XCTUnwrap(try HARFile.entries(of: recorder.harDocument()).first)
        let headers = try XCTUnwrap((entry["request"] as? [String: Any])?["headers"] as? [[String: Any]])
        XCTAssertEqual(headers.first { ($0["name"] as? String) == "X-Context" }?["value"] as? String, context)
    }

    /// The terminal event of an OpenAI chat call whose request body, a 300 KiB prompt, lives
    /// in a buffer that sets `freed` when the last `Data` sharing it goes.
    private func terminalEventOfALargePrompt(freed: Locked<Bool>) async throws -> HTTPEvent {
        let json = Array(#"{"model":"gpt-4o-mini","messages":[{"role":"user","content":""#.utf8)
            + Array(repeating: UInt8(ascii: "a"), count: 300 * 1024) + Array(#""}]}"#.utf8)
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: json.count, alignment: 1)
        buffer.copyMemory(from: json, byteCount: json.count)
        let body = Data(bytesNoCopy: buffer, count: json.count, deallocator: .custom { buffer, _ in
            buffer.deallocate()
            freed.withLock { $0 = true }
        })
        let request = HTTPRequest(
            method: .post, url: URL(string: "https://api.openai.com/v1/chat/completions")!, headers: ["Content-Type": "application/json"],
            body: body
        )
        let answer = Data(GenAIFixture.openAIChatCompletion.responseBody.utf8)
        return try await terminalEvent(of: request, answer: .status(200, body: answer, headers: ["Content-Type": "application/json"]))
    }

    func testAnLLMCallWhoseRequestBodyPassesTheThresholdIsMadeAtOnceAndItsRawBodyLetGo() async throws {
        let freed = Locked(false)
        var terminal: HTTPEvent? = try await terminalEventOfALargePrompt(freed: freed)
        XCTAssertFalse(freed.withLock { $0 }, "the event holds the raw request body")
        let recorder = HARRecorder()

        recorder.handle(try XCTUnwrap(terminal))
        XCTAssertEqual(terminal?.requestRecord.isExposed, true, "its capped, redacted body is kept instead of the raw one")
        terminal = nil

        XCTAssertTrue(freed.withLock { $0 }, "the recorder keeps no raw body: 300 KiB weigh 64 KiB")
        let entry = try XCTUnwrap(try HARFile.entries(of: recorder.harDocument()).first)
        let request = try XCTUnwrap(entry["request"] as? [String: Any])
        XCTAssertEqual(request["bodySize"] as? Int, 300 * 1024 + 65)
        XCTAssertEqual(((request["postData"] as? [String: Any])?["text"] as? String)?.utf8.count, 64 * 1024, "the policy's cap")
        let attributes = try XCTUnwrap((entry["_genAI"] as? [String: Any])?["attributes"] as? [String: Any])
        XCTAssertEqual(attributes["gen_ai.request.model"] as? String, "gpt-4o-mini")
    }

    /// The events of three long LLM streams, each ending with its terminal event, whose
    /// GenAI reading keeps its unread messages alive (over 64 KiB) until something reads the facts.
    private func threeLongStreams() async throws -> [[HTTPEvent]] {
        var streams: [[HTTPEvent]] = []
        for _ in 0..<3 {
            let events = try await events(of: openAIChatStream(deltas: 1_100))
            XCTAssertTrue(events.last?.name.isTerminal == true)
            streams.append(events)
        }
        return streams
    }

    /// What an entry not made yet counts against the budget: its terminal event's
    /// `retainedByteCount`, and for each of the first `maxStreamMessagesPerEntry` message
    /// events its data's bytes (the fixtures' need no redaction, so the shown data is the kept data) and two allocations of 64 bytes (the records are shared).
    private func deferredByteCount(of events: [HTTPEvent], maxStreamMessagesPerEntry: Int = HARRecorder.defaultMaxStreamMessagesPerEntry) -> Int {
        events.filter { $0.name == .responseMessage }.prefix(maxStreamMessagesPerEntry)
            .reduce(events.last!.retainedByteCount) { $0 + ($1.message?.data.utf8.count ?? 0) + 2 * 64 }
    }

    func testTheBudgetCountsTheStreamMessagesKeptWithAnEntry() async throws {
        let events = try await events(of: openAIChatStream(deltas: 1_100))
        let terminal = try XCTUnwrap(events.last)
        let byteCount = deferredByteCount(of: events)
        XCTAssertGreaterThan(byteCount - terminal.retainedByteCount, 100 * 20, "100 messages of over 20 bytes each")

        let exact = HARRecorder(maximumDeferredBytes: byteCount)
        for event in events { exact.handle(event) }
        XCTAssertEqual(terminal.requestRecord.isExposed, false, "deferred: the entry reaches the budget exactly")

        let events2 = try await self.events(of: openAIChatStream(deltas: 1_100))
        let tooSmall = HARRecorder(maximumDeferredBytes: deferredByteCount(of: events2) - 1)
        for event in events2 { tooSmall.handle(event) }
        XCTAssertEqual(events2.last?.requestRecord.isExposed, true, "made at once: with its messages it passes the budget by a byte")
    }

    func testEntriesNotMadeYetKeepAtMostTheRecordersByteBudgetAliveAndAnEventPastItIsMadeAtOnce() async throws {
        let streams = try await threeLongStreams()
        let terminals = streams.map { $0.last! }
        let byteCounts = streams.map { deferredByteCount(of: $0) }
        XCTAssertTrue(byteCounts.allSatisfy { $0 > 64 * 1024 }, "\(byteCounts)")
        let recorder = HARRecorder(maximumDeferredBytes: byteCounts[0] + byteCounts[1])

        for events in streams { for event in events { recorder.handle(event) } }

        XCTAssertEqual(terminals.map(\.requestRecord.isExposed), [false, false, true], "the third is past the budget: made at once")
        XCTAssertEqual(terminals.map { $0.genAIRecord?.isDerived }, [false, false, true])
        let entries = try HARFile.entries(of: recorder.harDocument())
        XCTAssertEqual(entries.map { $0["_streamMessageCount"] as? Int }, [1_104, 1_104, 1_104])
        XCTAssertEqual(entries.compactMap { ($0["_genAI"] as? [String: Any])?["attributes"] }.count, 3)
    }

    func testAnEntryDroppedForTheCapacityGivesItsBytesBackToTheBudget() async throws {
        let streams = try await threeLongStreams()
        let terminals = streams.map { $0.last! }
        let byteCounts = streams.map { deferredByteCount(of: $0) }
        let recorder = HARRecorder(capacity: 2, maximumDeferredBytes: max(byteCounts[0] + byteCounts[1], byteCounts[1] + byteCounts[2]))

        for events in streams { for event in events { recorder.handle(event) } }

        XCTAssertEqual(terminals.map(\.requestRecord.isExposed), [false, false, false], "the first, dropped, left room for the third")
        XCTAssertEqual(recorder.droppedCount, 1)
        recorder.removeAll()
        let fourth = try await events(of: openAIChatStream(deltas: 1_100))
        for event in fourth { recorder.handle(event) }
        XCTAssertEqual(fourth.last?.requestRecord.isExposed, false, "removeAll() gave the whole budget back")
    }

    func testEntriesMadeAtDocumentTimeKeepTheCapacityAndTheDroppedCountExact() async throws {
        let recorder = HARRecorder(capacity: 2)
        var terminals: [HTTPEvent] = []
        for n in 0..<5 {
            let url = URL(string: "https://api.example.com/n/\(n)?token=t")!
            terminals.append(try await terminalEvent(of: HTTPRequest(url: url), answer: .status(200)))
        }
        for terminal in terminals { recorder.handle(terminal) }

        XCTAssertEqual([recorder.entryCount, recorder.droppedCount], [2, 3])
        XCTAssertEqual(
            try HARFile.entries(of: recorder.harDocument()).compactMap { ($0["request"] as? [String: Any])?["url"] as? String },
            ["https://api.example.com/n/3?token=[REDACTED]", "https://api.example.com/n/4?token=[REDACTED]"]
        )
        XCTAssertFalse(terminals[0].requestRecord.isExposed, "a dropped entry is never made")
    }
}


extension ISO8601DateFormatter {
    /// `2026-10-21T07:28:00.123Z`.
    fileprivate static var withFractionalSeconds: ISO8601DateFormatter {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter
    }
}
