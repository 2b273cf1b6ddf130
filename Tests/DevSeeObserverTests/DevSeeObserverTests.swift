import DevSeeObserver
import Foundation
import HTTPCore
@testable import HTTPCoreObservation
import HTTPCoreTesting
import HTTPCoreURLSession
import XCTest
import DevSeeServer
import HTTPCoreLoopback
import HTTPCoreConcurrency

/// Requests through `URLSessionClient` with a `DevSeeObserver` subscribed, end to end.
final class DevSeeObserverTests: XCTestCase {
    private var api: LoopbackHTTPServer!
    private var receiver: DevSeeReceiver!

    override func setUpWithError() throws {
        api = try LoopbackHTTPServer()
        receiver = try DevSeeReceiver()
        api.route("/users/42") { _ in
            var response = LoopbackResponse.json(#"{"id":42,"name":"Roy","token":"t0k"}"#)
            response.headers.add(name: "Set-Cookie", value: "s=1")
            return response
        }
        api.route("/missing") { _ in .text("nope", status: 404) }
    }

    override func tearDown() {
        api.stop()
        receiver.stop()
    }

    /// The one log of a GET of `path` through a `URLSessionClient` with the `.debug` policy and
    /// a `DevSeeObserver`, once delivered.
    private func loggedExchange(_ path: String) async throws -> [String: Any] {
        let harness = LoggerHarness(receiver: receiver)
        let dispatcher = HTTPEventDispatcher()
        dispatcher.subscribe(DevSeeObserver(logger: harness.logger))
        _ = try await URLSessionClient(dispatcher: dispatcher, policy: .debug).send(HTTPRequest(url: api.url(path)))
        await dispatcher.flush()
        await harness.logger.flush()
        return try receiver.onlyLog()
    }

    /// The incoming request's id a server put in the metadata stays `request_id`, in the
    /// payload's `metadata`; the client's own number for the exchange is `requestId`.
    func testTheIncomingRequestIdStaysInTheMetadataAndTheCountersIsRequestId() async throws {
        api.route("/ok") { _ in .text("fine") }
        let harness = LoggerHarness(receiver: receiver)
        let dispatcher = HTTPEventDispatcher()
        dispatcher.subscribe(DevSeeObserver(logger: harness.logger))
        let request = HTTPRequest(url: api.url("/ok"), metadata: ["request_id": "req-7"])
        _ = try await URLSessionClient(dispatcher: dispatcher, policy: .debug).send(request)
        await dispatcher.flush()
        await harness.logger.flush()

        let log = try receiver.onlyLog()
        XCTAssertEqual(log["metadata"] as? [String: String], ["request_id": "req-7"])
        XCTAssertEqual(log["requestId"] as? String, request.id.description)
        XCTAssertNil(log["request_id"])
    }

    /// The headers URLSession added on its way out are shown with the request's own.
    func testTheHeadersTheTransportAddedAreShownWithTheRequestsOwn() async throws {
        let log = try await loggedExchange("/missing")
        let headers = try XCTUnwrap(log["requestHeaders"] as? [String: String])
        #if canImport(FoundationNetworking)
        XCTAssertTrue(headers["User-Agent"]?.contains(" curl/") ?? false, "\(headers)")
        XCTAssertEqual(headers["Accept-Language"], "en")
        XCTAssertNotNil(headers["Accept-Encoding"])
        #else
        XCTAssertNil(headers["User-Agent"], "Apple's URLSession does not say which it adds")
        #endif
    }

    /// A POST answered 303 shows as the called POST and the GET that got the 200: both
    /// methods, both URLs, no request body, and the route on the request body's first line.
    func testARedirectedPostShowsTheRequestCalledAndTheOneThatGotTheStatus() async throws {
        api.route("/submit") { _ in .redirect(to: "/done", status: 303) }
        api.route("/done") { _ in .text("thanks") }
        let harness = LoggerHarness(receiver: receiver)
        let dispatcher = HTTPEventDispatcher()
        dispatcher.subscribe(DevSeeObserver(logger: harness.logger))
        let request = HTTPRequest(method: .post, url: api.url("/submit"), headers: ["Content-Type": "text/plain"], body: Data("name=Roy".utf8))
        _ = try await URLSessionClient(dispatcher: dispatcher, policy: .debug).send(request)
        await dispatcher.flush()
        await harness.logger.flush()
        let log = try receiver.onlyLog()
        XCTAssertEqual(log["method"] as? String, "POST → GET")
        XCTAssertEqual(log["url"] as? String, "\(api.url("/submit")) → \(api.url("/done"))")
        XCTAssertEqual(log["statusCode"] as? Int, 200)
        XCTAssertEqual(log["requestBody"] as? String, "[redirected: POST \(api.url("/submit")) → 303 → GET \(api.url("/done"))]")
        XCTAssertEqual(log["responseBody"] as? String, "thanks")
    }

    /// What the viewer's list shows (method, URL, status) tells a clean response, a failure
    /// after a status, a failure without one, and a server's own 599 apart.
    func testTheListTellsACleanAnswerAFailureAfterAStatusAndAFailureWithoutOneApart() async throws {
        api.route("/export") { _ in
            var response = LoopbackResponse.text(String(repeating: "x", count: 1000))
            response.fault = .closeAfterBodyBytes(10)
            return response
        }
        api.route("/odd") { _ in .text("odd", status: 599) }
        let down = try LoopbackHTTPServer()
        let downURL = down.url("/gone")
        down.stop()
        let harness = LoggerHarness(receiver: receiver)
        let dispatcher = HTTPEventDispatcher()
        dispatcher.subscribe(DevSeeObserver(logger: harness.logger))
        let client = URLSessionClient(dispatcher: dispatcher, policy: .debug)
        func streamed(_ url: URL) async -> Int? {
            try? await client.send(HTTPRequest(url: url), body: nil) { _, body in try await body.collect(upTo: 1 << 20).count }
        }
        let clean = await streamed(api.url("/users/42"))
        let cut = await streamed(api.url("/export"))
        let odd = await streamed(api.url("/odd"))
        let refused = await streamed(downURL)
        XCTAssertEqual([clean, cut, odd, refused], [36, nil, 3, nil])
        await dispatcher.flush()
        await harness.logger.flush()
        try await receiver.waitForLogs(count: 4)

        func shown(_ suffix: String) throws -> [String] {
            let log = try XCTUnwrap(receiver.storedObjects().first { ($0["url"] as? String)?.hasSuffix(suffix) ?? false })
            return [log["method"] as? String ?? "", "\(log["statusCode"] as? Int ?? 0)"]
        }
        XCTAssertEqual(try shown("/users/42"), ["GET", "200"])
        XCTAssertEqual(try shown("/export"), ["GET failed after 200", "599"])
        XCTAssertEqual(try shown("/odd"), ["GET", "599"])
        XCTAssertEqual(try shown("/gone"), ["GET failed", "599"])
        let cutLog = try XCTUnwrap(receiver.storedObjects().first { ($0["url"] as? String)?.hasSuffix("/export") ?? false })
        XCTAssertEqual(cutLog["reportedStatusCode"] as? Int, 200)
        XCTAssertTrue((cutLog["responseBody"] as? String)?.hasPrefix("[error] ") ?? false, "the detail view says what went wrong first")
    }

    /// A text body is shown whole up to `maxBodyBytes` (not cut by the text rules' 64 KiB),
    /// with no marker; a declared charset is decoded.
    func testTextBodiesAreShownWholeUpToTheCapAndInTheirCharset() async throws {
        let line = "line with password=hunter2 and words\n"
        let long = String(repeating: line, count: 5_000)
        api.route("/log") { _ in LoopbackResponse(headers: ["Content-Type": "text/plain"], body: Data(long.utf8)) }
        api.route("/latin") { _ in
            LoopbackResponse(headers: ["Content-Type": "text/plain; charset=iso-8859-1"], body: "caf\u{E9} cr\u{E8}me".data(using: .isoLatin1)!)
        }
        let harness = LoggerHarness(receiver: receiver) { $0.maxBodyBytes = 4 * 1024 * 1024 }
        let dispatcher = HTTPEventDispatcher()
        dispatcher.subscribe(DevSeeObserver(logger: harness.logger))
        let client = URLSessionClient(dispatcher: dispatcher, policy: HTTPCorePolicy(bodyCapture: .captured(maxBytes: 4 * 1024 * 1024)))
        _ = try await client.send(HTTPRequest(url: api.url("/log")))
        _ = try await client.send(HTTPRequest(url: api.url("/latin")))
        await dispatcher.flush()
        await harness.logger.flush()
        try await receiver.waitForLogs(count: 2)
        let logs = receiver.storedObjects()
        let text = try XCTUnwrap(logs.first { ($0["url"] as? String)?.hasSuffix("/log") ?? false }?["responseBody"] as? String)
        XCTAssertEqual(text, String(repeating: "line with password=[REDACTED] and words\n", count: 5_000))
        let latin = try XCTUnwrap(logs.first { ($0["url"] as? String)?.hasSuffix("/latin") ?? false }?["responseBody"] as? String)
        XCTAssertEqual(latin, "caf\u{E9} cr\u{E8}me")
    }

    func testEveryRequestIsLoggedOnceWithRequestAndResponseJoined() async throws {
        let harness = LoggerHarness(receiver: receiver)
        let dispatcher = HTTPEventDispatcher()
        dispatcher.subscribe(DevSeeObserver(logger: harness.logger))
        let recorder = RecordingObserver()
        dispatcher.subscribe(recorder)
        let policy = HTTPCorePolicy(correlationHeaderName: HTTPCorePolicy.defaultCorrelationHeaderName)
        let client = URLSessionClient(dispatcher: dispatcher, policy: policy)

        let ok = HTTPRequest(
            method: .post,
            url: api.url("/users/42?token=abc&view=full"),
            headers: ["Authorization": "Bearer secret", "Content-Type": "application/json"],
            body: Data(#"{"password":"hunter2","name":"Roy"}"#.utf8)
        )
        _ = try await client.send(ok)
        _ = try await client.send(HTTPRequest(url: api.url("/missing")))
        let closed = try LoopbackHTTPServer()
        let refusedURL = closed.url("/down")
        closed.stop()
        _ = try? await client.send(HTTPRequest(url: refusedURL))

        await dispatcher.flush()
        await harness.logger.flush()
        let logs = receiver.storedObjects()
        XCTAssertEqual(logs.count, 3, "one log per request, not one per event")
        XCTAssertTrue(receiver.rejections.isEmpty)

        let first = try XCTUnwrap(logs.first { ($0["url"] as? String)?.contains("/users/42") ?? false })
        XCTAssertEqual(first["method"] as? String, "POST")
        XCTAssertEqual(first["url"] as? String, api.url("/users/42").absoluteString + "?token=[REDACTED]&view=full")
        XCTAssertEqual(first["statusCode"] as? Int, 200)
        XCTAssertEqual(first["requestId"] as? String, ok.id.description)
        let headers = try XCTUnwrap(first["requestHeaders"] as? [String: String])
        XCTAssertEqual(headers["Authorization"], "[REDACTED]")
        XCTAssertEqual(first["correlationId"] as? String, headers["X-Correlation-ID"])
        XCTAssertNotNil(UUID(uuidString: first["correlationId"] as? String ?? ""))
        XCTAssertEqual(first["requestBody"] as? String, #"{"password":"[REDACTED]","name":"Roy"}"#)
        XCTAssertEqual(first["responseBody"] as? String, #"{"id":42,"name":"Roy","token":"[REDACTED]"}"#)
        XCTAssertEqual((first["responseHeaders"] as? [String: String])?["Set-Cookie"], "[REDACTED]")
        let terminal = try XCTUnwrap(recorder.events.first { $0.requestID == ok.id && $0.name.isTerminal })
        XCTAssertEqual(try XCTUnwrap(first["duration"] as? Double), try XCTUnwrap(terminal.durationMilliseconds), accuracy: 0.01)
        XCTAssertNil(first["error"])

        let missing = try XCTUnwrap(logs.first { ($0["url"] as? String)?.hasSuffix("/missing") ?? false })
        XCTAssertEqual(missing["statusCode"] as? Int, 404)
        XCTAssertEqual(missing["responseBody"] as? String, "nope")

        let failed = try XCTUnwrap(logs.first { ($0["url"] as? String)?.hasSuffix("/down") ?? false })
        XCTAssertEqual(failed["statusCode"] as? Int, 599)
        XCTAssertTrue((failed["error"] as? String)?.contains("cannot_connect") ?? false, "\(failed["error"] ?? "none")")
    }

    /// The policy is the one place an exchange is redacted: one that redacts nothing shows the
    /// exchange as it went, though the logger's redactor is `.standard`.
    func testAPolicyThatRedactsNothingIsWhatTheLogShowsWhateverTheLoggersRedactor() async throws {
        let harness = LoggerHarness(receiver: receiver)
        let dispatcher = HTTPEventDispatcher()
        dispatcher.subscribe(DevSeeObserver(logger: harness.logger))
        let client = URLSessionClient(dispatcher: dispatcher, policy: HTTPCorePolicy(redactor: .none))
        _ = try await client.send(HTTPRequest(url: api.url("/users/42?token=abc"), headers: ["Authorization": "Bearer secret"]))
        await dispatcher.flush()
        await harness.logger.flush()
        let log = try receiver.onlyLog()
        XCTAssertEqual(harness.logger.configuration.redactor, .standard)
        XCTAssertEqual((log["requestHeaders"] as? [String: String])?["Authorization"], "Bearer secret")
        XCTAssertEqual(log["url"] as? String, api.url("/users/42").absoluteString + "?token=abc")
        XCTAssertEqual(log["responseBody"] as? String, #"{"id":42,"name":"Roy","token":"t0k"}"#)
    }

    func testWhatThePolicyRedactedIsNotRedactedAgain() async throws {
        api.route("/broken-json") { _ in .json(#"{"password":"hunter2","#) }
        let log = try await loggedExchange("/broken-json")
        let body = try XCTUnwrap(log["responseBody"] as? String)
        XCTAssertEqual(body, #"{"password":"[REDACTED]",…[REDACTED: unreadable JSON, 0 more bytes]"#, "one marker, from one pass")
    }

    func testSlowDevSeeServerDoesNotSlowTheAppsRequests() async throws {
        receiver.script(Array(repeating: .delay(30), count: 10))
        let harness = LoggerHarness(receiver: receiver)
        let dispatcher = HTTPEventDispatcher()
        dispatcher.subscribe(DevSeeObserver(logger: harness.logger))
        let client = URLSessionClient(dispatcher: dispatcher)
        let started = Date()
        for _ in 0..<20 {
            let response = try await client.send(HTTPRequest(url: api.url("/users/42")))
            XCTAssertEqual(response.statusCode, 200)
        }
        XCTAssertLessThan(Date().timeIntervalSince(started), 15, "requests finished while every upload hangs for 30 s")
        await dispatcher.flush()
        XCTAssertEqual(receiver.storedLogs.count, 0, "uploads are still hanging")
        XCTAssertEqual(harness.logger.statistics.accepted, 20)
    }

    func testObserverIgnoresNonTerminalEvents() async throws {
        let harness = LoggerHarness(receiver: receiver)
        let dispatcher = HTTPEventDispatcher()
        dispatcher.subscribe(DevSeeObserver(logger: harness.logger))
        let transport = MockTransport(default: .status(200))
        _ = try await HTTPTransportClient(transport: transport, dispatcher: dispatcher).send(HTTPRequest(url: api.url("/x")))
        await dispatcher.flush()
        XCTAssertEqual(harness.logger.statistics.accepted, 1, "created, started and received make no log")
    }

    func testMiddlewareHeadersRetriedAttemptsAndMetadataReachPayloadsRedacted() async throws {
        api.route("/flaky", answering: [.text("busy", status: 503), .json(#"{"ok":true}"#)])
        let harness = LoggerHarness(receiver: receiver)
        let dispatcher = HTTPEventDispatcher()
        dispatcher.subscribe(DevSeeObserver(logger: harness.logger))
        let middlewares: [any HTTPMiddleware] = [
            TraceContextMiddleware(),
            RetryMiddleware(backoff: Backoff(initial: 0.01, maximum: 0.01, jitter: .none)),
            AuthorizationMiddleware(credential: { "s3cret" }, refresh: { _ in "unused" }),
        ]
        let client = URLSessionClient(middlewares: middlewares, dispatcher: dispatcher, policy: .debug)
        let request = HTTPRequest(url: api.url("/flaky"), metadata: ["route": "/flaky", "session": "abc123"])
        _ = try await client.send(request)
        await dispatcher.flush()
        await harness.logger.flush()

        // Two upload workers may deliver the two logs in either order.
        let logs = receiver.storedObjects().sorted { ($0["attempt"] as? Int ?? 0) < ($1["attempt"] as? Int ?? 0) }
        XCTAssertTrue(receiver.rejections.isEmpty, "\(receiver.rejections)")
        XCTAssertEqual(logs.map { $0["statusCode"] as? Int }, [503, 200], "the retried attempt, then the outcome")
        XCTAssertEqual(logs.map { $0["attempt"] as? Int }, [1, 2])
        // The list tells the attempts apart, and the last says what the exchange took in all.
        XCTAssertEqual(logs.map { $0["method"] as? String }, ["GET attempt 1", "GET attempt 2"])
        XCTAssertEqual(logs.map { $0["statusCode"] as? Int }, [503, 200])
        XCTAssertTrue((logs[0]["responseBody"] as? String)?.hasPrefix("[attempt 1, retried]\nbusy") ?? false, "\(logs[0]["responseBody"] ?? "")")
        // A JSON body is left whole for the viewer to pretty-print; the note is a header.
        XCTAssertEqual(logs[1]["responseBody"] as? String, #"{"ok":true}"#)
        let lastNote = try XCTUnwrap((logs[1]["responseHeaders"] as? [String: String])?["x-devsee-note-attempt"])
        XCTAssertTrue(lastNote.hasPrefix("[attempt 2, the last: the exchange took "), lastNote)
        XCTAssertTrue(lastNote.hasSuffix(" in all]"), lastNote)
        XCTAssertEqual(logs.map { $0["requestId"] as? String }, [request.id.description, request.id.description])
        for (log, sent) in zip(logs, api.requests) {
            let headers = try XCTUnwrap(log["requestHeaders"] as? [String: String])
            XCTAssertEqual(headers["Authorization"], "[REDACTED]", "added by a middleware, redacted in the payload")
            XCTAssertEqual(sent.headers["Authorization"], "Bearer s3cret", "and sent for real")
            XCTAssertEqual(headers["traceparent"], sent.headers["traceparent"])
            let metadata = try XCTUnwrap(log["metadata"] as? [String: String])
            XCTAssertEqual(metadata["route"], "/flaky")
            XCTAssertEqual(metadata["session"], "[REDACTED]", "metadata is redacted like query names and keys")
            XCTAssertEqual(metadata["trace_id"], sent.headers["traceparent"].map { String($0.dropFirst(3).prefix(32)) })
        }
        XCTAssertEqual(Set(api.requests.map { $0.headers["traceparent"] }).count, 1, "one trace and span for both attempts")
        XCTAssertEqual(harness.logger.statistics.accepted, 2)
    }

    func testAResponseOverTheCapShowsItsFirstBytesMaskedAndOneMarker() async throws {
        let blob = String(repeating: "a", count: 2 * 1024 * 1024)
        api.route("/export") { _ in .json(#"{"token":"t0k","blob":""# + blob + #""}"#) }
        // The policy captured 64 KiB, masked it, and cut the masked text to 64 KiB again.
        let log = try await loggedExchange("/export")
        let body = try XCTUnwrap(log["responseBody"] as? String)
        let head = #"{"token":"[REDACTED]","blob":""#
        let total = #"{"token":"t0k","blob":""#.utf8.count + blob.utf8.count + 2
        let expected = head + String(repeating: "a", count: 64 * 1024 - head.utf8.count) + "…[truncated: \(total) bytes in all]"
        XCTAssertTrue(body == expected, "\(body.prefix(40))…\(body.suffix(60)) (\(body.utf8.count) bytes)")
    }

    func testALargePostCostsTheCallerABoundedCopyAndItsLogShowsTheCapture() async throws {
        // 2 MiB of JSON whose secret is in the first bytes: the log shows the policy's 64 KiB,
        // masked, though handle(_:) redacted nothing.
        let blob = String(repeating: "b", count: 2 * 1024 * 1024)
        let json = #"{"password":"hunter2","blob":""# + blob + #""}"#
        let request = HTTPRequest(
            method: .post, url: api.url("/users/42"), headers: ["Content-Type": "application/json"], body: Data(json.utf8)
        )
        let harness = LoggerHarness(receiver: receiver)
        let observer = DevSeeObserver(logger: harness.logger)
        let dispatcher = HTTPEventDispatcher()
        let terminal = Locked<HTTPEvent?>(nil)
        dispatcher.subscribe { event in if event.name.isTerminal { terminal.withLock { $0 = event } } }
        dispatcher.subscribe(observer)
        _ = try await URLSessionClient(dispatcher: dispatcher, policy: .debug).send(request)
        await dispatcher.flush()
        let event = try XCTUnwrap(terminal.withLock { $0 })
        XCTAssertFalse(event.requestRecord.isExposed, "handle(_:) redacted nothing of the 2 MiB body on the caller's task")

        await harness.logger.flush()
        let log = try receiver.onlyLog()
        let head = #"{"password":"[REDACTED]","blob":""#
        let expected = head + String(repeating: "b", count: 64 * 1024 - head.utf8.count) + "…[truncated: \(json.utf8.count) bytes in all]"
        let body = try XCTUnwrap(log["requestBody"] as? String)
        XCTAssertTrue(body == expected, "\(body.prefix(40))…\(body.suffix(60)) (\(body.utf8.count) bytes)")
    }

    func testEachAttemptOfARetriedRequestCarriesItsOwnStartAndDuration() async throws {
        api.route("/slow-then-ok", answering: [
            { var busy = LoopbackResponse.text("busy", status: 503); busy.delay = 0.2; return busy }(),
            .json(#"{"ok":true}"#),
        ])
        let harness = LoggerHarness(receiver: receiver)
        let dispatcher = HTTPEventDispatcher()
        dispatcher.subscribe(DevSeeObserver(logger: harness.logger))
        let recorder = RecordingObserver()
        dispatcher.subscribe(recorder)
        let retry = RetryMiddleware(backoff: Backoff(initial: 0.3, maximum: 0.3, jitter: .none))
        let client = URLSessionClient(middlewares: [retry], dispatcher: dispatcher)
        _ = try await client.send(HTTPRequest(url: api.url("/slow-then-ok")))
        await dispatcher.flush()
        await harness.logger.flush()

        let starts = recorder.events.filter { $0.name == .requestStarted }.compactMap(\.startedAt)
        XCTAssertEqual(starts.count, 2)
        let logs = receiver.storedObjects().sorted { ($0["attempt"] as? Int ?? 0) < ($1["attempt"] as? Int ?? 0) }
        XCTAssertEqual(logs.map { $0["attempt"] as? Int }, [1, 2])
        // The list tells the attempts apart, and the last says what the exchange took in all.
        XCTAssertEqual(logs.map { $0["method"] as? String }, ["GET attempt 1", "GET attempt 2"])
        XCTAssertEqual(logs.map { $0["statusCode"] as? Int }, [503, 200])
        XCTAssertTrue((logs[0]["responseBody"] as? String)?.hasPrefix("[attempt 1, retried]\nbusy") ?? false, "\(logs[0]["responseBody"] ?? "")")
        // A JSON body is left whole for the viewer to pretty-print; the note is a header.
        XCTAssertEqual(logs[1]["responseBody"] as? String, #"{"ok":true}"#)
        let lastNote = try XCTUnwrap((logs[1]["responseHeaders"] as? [String: String])?["x-devsee-note-attempt"])
        XCTAssertTrue(lastNote.hasPrefix("[attempt 2, the last: the exchange took "), lastNote)
        XCTAssertTrue(lastNote.hasSuffix(" in all]"), lastNote)
        let timestamps = logs.compactMap { $0["timestamp"] as? Int }
        XCTAssertEqual(timestamps, starts.map { Int(($0.timeIntervalSince1970 * 1000).rounded()) }, "each attempt's own start")
        let durations = logs.compactMap { $0["duration"] as? Double }
        XCTAssertEqual(durations.count, 2)
        XCTAssertGreaterThanOrEqual(durations[0], 200, "the first attempt waited for its delayed 503")
        // The exchange spans both starts and the second attempt: the attempt's own duration fits
        // in what is left of it (1 ms for the rounding of the timestamps), however slow the machine.
        let exchange = try XCTUnwrap(recorder.events.first { $0.name.isTerminal }?.durationMilliseconds)
        XCTAssertLessThanOrEqual(durations[1], exchange - Double(timestamps[1] - timestamps[0]) + 1, "the second attempt's own time, not the exchange's")
    }

    func testARequestSentOnceHasNoAttemptField() async throws {
        let harness = LoggerHarness(receiver: receiver)
        let dispatcher = HTTPEventDispatcher()
        dispatcher.subscribe(DevSeeObserver(logger: harness.logger))
        _ = try await URLSessionClient(middlewares: [RetryMiddleware()], dispatcher: dispatcher).send(HTTPRequest(url: api.url("/users/42")))
        await dispatcher.flush()
        await harness.logger.flush()
        let log = try receiver.onlyLog()
        XCTAssertNil(log["attempt"])
        XCTAssertNil(log["metadata"])
    }

    func testACallersCorrelationValueInASensitiveHeaderNeverReachesThePayload() async throws {
        let harness = LoggerHarness(receiver: receiver)
        let dispatcher = HTTPEventDispatcher()
        dispatcher.subscribe(DevSeeObserver(logger: harness.logger))
        let policy = HTTPCorePolicy(correlationHeaderName: "X-Api-Key")
        let client = URLSessionClient(dispatcher: dispatcher, policy: policy)
        _ = try await client.send(HTTPRequest(url: api.url("/users/42"), headers: ["X-Api-Key": "k-S3CRET"]))
        await dispatcher.flush()
        await harness.logger.flush()
        let log = try receiver.onlyLog()
        XCTAssertEqual(log["correlationId"] as? String, "[REDACTED]")
        XCTAssertEqual((log["requestHeaders"] as? [String: String])?["X-Api-Key"], "[REDACTED]")
        XCTAssertEqual(api.requests.first?.headers["X-Api-Key"], "k-S3CRET")
    }

    func testExchangesWithoutAResponseSayWhyInTheResponseBody() async throws {
        let harness = LoggerHarness(receiver: receiver)
        let dispatcher = HTTPEventDispatcher()
        dispatcher.subscribe(DevSeeObserver(logger: harness.logger))
        let recorder = RecordingObserver()
        dispatcher.subscribe(recorder)
        let client = URLSessionClient(dispatcher: dispatcher)
        api.route("/slow") { _ in
            var response = LoopbackResponse.text("late")
            response.delay = 5
            return response
        }
        _ = try? await client.send(HTTPRequest(url: api.url("/slow"), timeout: 0.3))
        let secondURL = api.url("/slow?password=S3CR3T")
        let cancelled = Task { _ = try? await client.send(HTTPRequest(url: secondURL)) }
        // created, started, failed; then created and started of the second request.
        _ = try await recorder.waitForEvents(count: 5)
        cancelled.cancel()
        await cancelled.value
        await dispatcher.flush()
        await harness.logger.flush()

        let bodies = receiver.storedObjects().compactMap { $0["responseBody"] as? String }.sorted()
        XCTAssertEqual(bodies.count, 2)
        XCTAssertTrue(bodies[0].hasPrefix("[no response] cancelled after "), bodies[0])
        XCTAssertTrue(bodies[1].hasPrefix("[no response] timed out after "), bodies[1])
        XCTAssertTrue(bodies[1].hasSuffix(" ms") || bodies[1].hasSuffix(" s"), "the 0.3 s timeout took its time: \(bodies[1])")
        let errors = receiver.storedObjects().compactMap { $0["error"] as? String }.sorted()
        XCTAssertEqual(errors, ["cancelled", "timed out"], "error is kept as it was")
    }
}
