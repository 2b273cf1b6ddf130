import Foundation
import HTTPCore
import HTTPCoreObservation
import HTTPCoreTesting
import HTTPCoreURLSession
import XCTest
import HTTPCoreConcurrency
import HTTPCoreLoopback

final class URLSessionClientTests: XCTestCase {
    private var server: LoopbackHTTPServer!
    private var dispatcher: HTTPEventDispatcher!
    private var recorder: RecordingObserver!
    private var client: URLSessionClient!

    override func setUpWithError() throws {
        server = try LoopbackHTTPServer()
        dispatcher = HTTPEventDispatcher()
        recorder = RecordingObserver()
        dispatcher.subscribe(recorder)
        client = URLSessionClient(dispatcher: dispatcher, policy: .debug)
    }

    override func tearDown() {
        server.stop()
    }

    /// A client built around the transport with a buffered limit below the session's: its
    /// buffered calls take the session's completion-handler shortcut, which must hold to the
    /// client's limit, as the client's own collect of a streamed body does.
    func testABufferedCallHoldsToTheClientsLimitBelowTheSessions() async throws {
        server.route("/big") { _ in LoopbackResponse(body: Data(repeating: 65, count: 4096)) }
        let client = HTTPTransportClient(transport: self.client.base.transport, dispatcher: dispatcher, maximumBufferedResponseBytes: 4095)
        do {
            _ = try await client.send(HTTPRequest(url: server.url("/big")))
            XCTFail("expected response_too_large")
        } catch let error as HTTPError {
            XCTAssertEqual(error.code, .responseTooLarge)
            XCTAssertEqual(
                error.message,
                "the response body is over 4095 bytes, the most a buffered call takes "
                    + "(HTTPTransportClient.maximumBufferedResponseBytes); read it with send(_:body:)"
            )
        }
        let fits = try await HTTPTransportClient(transport: self.client.base.transport, dispatcher: dispatcher, maximumBufferedResponseBytes: 4096)
            .send(HTTPRequest(url: server.url("/big")))
        XCTAssertEqual(fits.body.count, 4096)
    }

    // MARK: Translation

    func testRequestMethodHeadersAndBodyReachTheServer() async throws {
        server.route("PUT", "/items/7") { _ in .text("saved") }
        var headers: HTTPHeaders = ["Content-Type": "application/json", "X-Tag": "one"]
        headers.add(name: "X-Tag", value: "two")
        let body = Data(#"{"name":"Roy"}"#.utf8)
        let response = try await client.send(HTTPRequest(method: .put, url: server.url("/items/7?full=1"), headers: headers, body: body))

        XCTAssertEqual(response.statusCode, 200)
        XCTAssertEqual(String(decoding: response.body, as: UTF8.self), "saved")
        let received = try XCTUnwrap(server.requests.last)
        XCTAssertEqual(received.method, "PUT")
        XCTAssertEqual(received.target, "/items/7?full=1")
        XCTAssertEqual(received.headers["Content-Type"], "application/json")
        XCTAssertEqual(received.headers.values(for: "X-Tag").joined(separator: ","), "one,two")
        XCTAssertEqual(received.body, body)
    }

    func testCustomMethodIsSent() async throws {
        server.route("PURGE", "/cache") { _ in LoopbackResponse(status: 204) }
        let response = try await client.send(HTTPRequest(method: HTTPMethod("PURGE")!, url: server.url("/cache")))
        XCTAssertEqual(response.statusCode, 204)
        XCTAssertEqual(response.body, Data())
        XCTAssertEqual(server.requests.last?.method, "PURGE")
    }

    func testGetWithBodyIsRefusedBeforeSending() async throws {
        do {
            _ = try await client.send(HTTPRequest(method: .get, url: server.url("/x"), body: Data("a".utf8)))
            XCTFail("expected an error")
        } catch let error as HTTPError {
            XCTAssertEqual(error.code, .invalidRequest)
        }
        XCTAssertTrue(server.requests.isEmpty)
    }

    func testConnectIsRefusedBeforeSendingInsteadOfWaitingOutTheTimeout() async throws {
        let request = HTTPRequest(method: .connect, url: server.url("/"), timeout: 60)
        let expected = HTTPError.transport(
            .invalidRequest, message: "method CONNECT: URLSession cannot open a tunnel (RFC 9110, section 9.3.6) (127.0.0.1:\(server.port))"
        )
        for streamed in [false, true] {
            do {
                if streamed { _ = try await client.send(request, body: nil) } else { _ = try await client.send(request) }
                XCTFail("expected invalid_request, streamed: \(streamed)")
            } catch let error as HTTPError {
                XCTAssertEqual(error, expected, "streamed: \(streamed)")
            }
        }
        XCTAssertTrue(server.requests.isEmpty)
    }

    // MARK: Response mapping

    func testStatusRepeatedHeadersAndBodyAreMapped() async throws {
        server.route("/multi") { _ in
            var response = LoopbackResponse(status: 201, body: Data("created".utf8))
            response.headers.add(name: "X-Multi", value: "a1")
            response.headers.add(name: "X-Multi", value: "b2")
            response.headers.add(name: "Set-Cookie", value: "a=1; Path=/; Expires=Wed, 21 Oct 2026 07:28:00 GMT")
            response.headers.add(name: "Set-Cookie", value: "b=2; HttpOnly")
            return response
        }
        let response = try await client.send(HTTPRequest(url: server.url("/multi")))
        XCTAssertEqual(response.statusCode, 201)
        XCTAssertEqual(response.status.kind, .successful)
        XCTAssertEqual(response.headers["x-multi"], "a1, b2")
        XCTAssertEqual(response.headers.values(for: "Set-Cookie"), [
            "a=1; Path=/; Expires=Wed, 21 Oct 2026 07:28:00 GMT", "b=2; HttpOnly",
        ])
        XCTAssertEqual(response.body, Data("created".utf8))
    }

    func testRedirectChainIsFollowedAndFinalURLReported() async throws {
        server.route("/a") { _ in .redirect(to: "/b") }
        server.route("/b") { _ in .redirect(to: "/c?done=1", status: 301) }
        server.route("/c") { _ in .text("end") }
        let response = try await client.send(HTTPRequest(url: server.url("/a")))
        XCTAssertEqual(response.url, server.url("/c?done=1"))
        XCTAssertEqual(String(decoding: response.body, as: UTF8.self), "end")
        XCTAssertEqual(server.requests.map(\.path), ["/a", "/b", "/c"])
    }

    /// The response says which request got it: a 303 turns the POST into a GET without a body,
    /// as the server saw, and a redirect followed without asking the delegate is still told.
    func testTheResponseOfARedirectTellsTheRequestThatGotIt() async throws {
        server.route("/submit") { _ in .redirect(to: "/done", status: 303) }
        server.route("/done") { request in .text("\(request.method) \(request.bodyText.count)") }
        server.route("/old") { _ in .redirect(to: "/done", status: 301) }
        let posted = try await client.send(HTTPRequest(method: .post, url: server.url("/submit"), body: Data("a=1".utf8)))
        XCTAssertEqual(String(decoding: posted.body, as: UTF8.self), "GET 0")
        XCTAssertEqual(posted.redirection, HTTPRedirection(method: .get, resentBody: false, statusCodes: [303]))
        let moved = try await client.send(HTTPRequest(url: server.url("/old")))
        XCTAssertEqual(moved.redirection?.method, .get)
        XCTAssertEqual(moved.redirection?.resentBody, false)
        let direct = try await client.send(HTTPRequest(url: server.url("/done")))
        XCTAssertNil(direct.redirection)
    }

    func testA307ResendingThePostIsReportedWithItsBody() async throws {
        server.route("/old") { _ in .redirect(to: "/new", status: 307) }
        server.route("/new") { request in .text("\(request.method) \(request.bodyText)") }
        let response = try await client.send(HTTPRequest(method: .post, url: server.url("/old"), body: Data("payload".utf8)))
        XCTAssertEqual(String(decoding: response.body, as: UTF8.self), "POST payload")
        XCTAssertEqual(response.redirection, HTTPRedirection(method: .post, resentBody: true, statusCodes: [307]))
        let streamed = try await client.send(HTTPRequest(method: .post, url: server.url("/old")), body: HTTPBody(Data("payload".utf8))) { head, body in
            (head.redirection, String(decoding: try await body.collect(upTo: 100), as: UTF8.self))
        }
        XCTAssertEqual(streamed.1, "POST payload")
        XCTAssertEqual(streamed.0, HTTPRedirection(method: .post, resentBody: true, statusCodes: [307]))
    }

    /// URLSession gives response headers as a dictionary, so their wire order is lost; one
    /// field sent under two spellings still comes out the same way every time.
    func testAFieldSentUnderTwoSpellingsReadsTheSameEveryTime() async throws {
        server.route("/spellings") { _ in
            var response = LoopbackResponse.text("ok")
            response.headers.add(name: "X-Thing", value: "first")
            response.headers.add(name: "x-thing", value: "second")
            response.headers.add(name: "X-THING", value: "third")
            return response
        }
        var seen: Set<[String]> = []
        for _ in 0..<20 {
            // A new session each time: a dictionary's order changes between processes and
            // between instances.
            let client = URLSessionClient(dispatcher: HTTPEventDispatcher())
            let response = try await client.send(HTTPRequest(url: server.url("/spellings")))
            seen.insert(response.headers.filter { $0.name.lowercased() == "x-thing" }.map { "\($0.name): \($0.value)" })
        }
        XCTAssertEqual(seen, [["X-THING: third", "X-Thing: first", "x-thing: second"]], "by spelling, as no wire order is left")
    }

    func testTemporaryRedirectResendsThePostBody() async throws {
        server.route("/old") { _ in .redirect(to: "/new", status: 307) }
        server.route("/new") { request in .text("\(request.method) \(request.bodyText)") }
        let response = try await client.send(HTTPRequest(method: .post, url: server.url("/old"), body: Data("payload".utf8)))
        XCTAssertEqual(String(decoding: response.body, as: UTF8.self), "POST payload")
    }

    func testBodyRedirectToAnotherOriginDropsCredentials() async throws {
        let other = try LoopbackHTTPServer()
        defer { other.stop() }
        other.route("/landing") { request in
            .text("\(request.bodyText)|\(request.headers["Authorization"] ?? "none")|\(request.headers["Cookie"] ?? "none")|\(request.headers["X-Keep"] ?? "none")")
        }
        server.route("/moved") { _ in .redirect(to: other.url("/landing").absoluteString, status: 308) }
        let response = try await client.send(HTTPRequest(
            method: .post, url: server.url("/moved"),
            headers: ["Authorization": "Bearer s", "Cookie": "c=1", "X-Keep": "yes"], body: Data("data".utf8)
        ))
        XCTAssertEqual(String(decoding: response.body, as: UTF8.self), "data|none|none|yes")
        XCTAssertEqual(response.url, other.url("/landing"))
    }

    func testBodyRedirectWithinTheOriginKeepsCredentials() async throws {
        server.route("/old") { _ in .redirect(to: "/new", status: 307) }
        server.route("/new") { request in .text(request.headers["Authorization"] ?? "none") }
        let response = try await client.send(HTTPRequest(
            method: .post, url: server.url("/old"), headers: ["Authorization": "Bearer s"], body: Data("x".utf8)
        ))
        XCTAssertEqual(String(decoding: response.body, as: UTF8.self), "Bearer s")
    }

    func testChunkedAndLargeBodiesArriveWhole() async throws {
        let large = Data((0..<3_000_000).map { UInt8($0 % 251) })
        server.route("/chunked") { _ in
            var response = LoopbackResponse(body: large)
            response.transfer = .chunked(chunkSize: 65_536)
            return response
        }
        let response = try await client.send(HTTPRequest(url: server.url("/chunked")))
        XCTAssertEqual(response.body, large)
    }

    func testDecodedGzipBodyComesWithHeadersThatDescribeIt() async throws {
        let gzip = Data([
            0x1f, 0x8b, 0x08, 0x00, 0x2f, 0xff, 0x02, 0x6b, 0x02, 0xff, 0xcb, 0x48, 0xcd, 0xc9, 0xc9, 0x57, 0x48, 0xaf,
            0xca, 0x2c, 0x50, 0x28, 0xcf, 0x2f, 0xca, 0x49, 0x01, 0x00, 0x6b, 0x7d, 0xe8, 0xb7, 0x10, 0x00, 0x00, 0x00,
        ])
        server.route("/gzip") { _ in LoopbackResponse(headers: ["Content-Encoding": "gzip"], body: gzip) }
        let response = try await client.send(HTTPRequest(url: server.url("/gzip")))
        XCTAssertEqual(String(decoding: response.body, as: UTF8.self), "hello gzip world")
        XCTAssertNil(response.headers["Content-Encoding"])
        XCTAssertEqual(response.headers["Content-Length"], "16")
    }

    func testHeadAnswersWithEmptyBody() async throws {
        server.route("GET", "/doc") { _ in .text("document") }
        let response = try await client.send(HTTPRequest(method: .head, url: server.url("/doc")))
        XCTAssertEqual(response.statusCode, 200)
        XCTAssertEqual(response.body, Data())
    }

    func testCookiesAreNotReplayedByTheDefaultSession() async throws {
        server.route("/login") { _ in LoopbackResponse(headers: ["Set-Cookie": "session=abc"]) }
        server.route("/me") { _ in .text("ok") }
        _ = try await client.send(HTTPRequest(url: server.url("/login")))
        _ = try await client.send(HTTPRequest(url: server.url("/me")))
        XCTAssertNil(server.requests.last?.headers["Cookie"])
    }

    // MARK: Errors

    func testSlowRouteTimesOutAtTheDeadline() async throws {
        server.route("/slow") { _ in
            var response = LoopbackResponse.text("late")
            response.delay = 20
            return response
        }
        let started = Date()
        do {
            _ = try await client.send(HTTPRequest(url: server.url("/slow"), timeout: 1))
            XCTFail("expected a timeout")
        } catch let error as HTTPError {
            XCTAssertEqual(error, .timeout)
        }
        XCTAssertLessThan(Date().timeIntervalSince(started), 10)
        let events = try await recorder.waitForTerminalEvents(count: 1)
        XCTAssertEqual(events.map(\.name), [.requestCreated, .requestStarted, .requestFailed])
        XCTAssertEqual(events.last?.error, .timeout)
    }

    func testTricklingBodyStillHitsTheDeadline() async throws {
        server.route("/drip") { _ in
            var response = LoopbackResponse(body: Data(repeating: 65, count: 10))
            response.drip = .init(chunks: 10, interval: 0.5)
            return response
        }
        do {
            _ = try await client.send(HTTPRequest(url: server.url("/drip"), timeout: 1.5))
            XCTFail("expected a timeout: the deadline covers the whole exchange, not idle time")
        } catch let error as HTTPError {
            XCTAssertEqual(error, .timeout)
        }
    }

    func testTheTransportAloneEndsATricklingStreamedBodyAtTheDeadline() async throws {
        server.route("/drip") { _ in
            var response = LoopbackResponse(body: Data(repeating: 65, count: 10))
            response.drip = .init(chunks: 10, interval: 0.5)
            return response
        }
        // No client: only the transport's own timer can end it (URLSession's idle timer never fires on a drip).
        let transport = URLSessionTransport(session: URLSessionClient.defaultSession)
        let (head, body) = try await transport.perform(HTTPRequest(url: server.url("/drip"), timeout: 1.5), body: nil)
        XCTAssertEqual(head.statusCode, 200)
        var received = 0
        do {
            for try await chunk in body { received += chunk.count }
            XCTFail("expected a timeout: the deadline covers the body too")
        } catch let error as HTTPError {
            XCTAssertEqual(error, .timeout)
        }
        XCTAssertLessThan(received, 10)
    }

    func testConnectionRefusedIsATransportError() async throws {
        let closed = try LoopbackHTTPServer()
        let url = closed.url("/x?token=secret")
        closed.stop()
        do {
            _ = try await client.send(HTTPRequest(url: url))
            XCTFail("expected an error")
        } catch let error as HTTPError {
            guard error.code == .cannotConnect, let message = error.message else { return XCTFail("\(error)") }
            XCTAssertFalse(message.contains("secret"), message)
            XCTAssertTrue(message.contains("127.0.0.1"), message)
        }
        let events = try await recorder.waitForTerminalEvents(count: 1)
        XCTAssertEqual(events.map(\.name), [.requestCreated, .requestStarted, .requestFailed])
    }

    func testGarbageAnswerIsAnInvalidResponse() async throws {
        server.route("/garbage") { _ in
            var response = LoopbackResponse()
            response.fault = .raw(Data("NOT HTTP AT ALL\r\n\r\n".utf8))
            return response
        }
        do {
            _ = try await client.send(HTTPRequest(url: server.url("/garbage")))
            XCTFail("expected an error")
        } catch let error as HTTPError {
            XCTAssertEqual(error, .invalidResponse)
        }
        let events = try await recorder.waitForTerminalEvents(count: 1)
        XCTAssertEqual(events.last?.name, .requestFailed)
        XCTAssertEqual(events.last?.error, .invalidResponse)
    }

    func testServerClosingMidBodyIsAConnectionLost() async throws {
        server.route("/cut") { _ in
            var response = LoopbackResponse(body: Data(repeating: 1, count: 100_000))
            response.fault = .closeAfterBodyBytes(1000)
            return response
        }
        do {
            _ = try await client.send(HTTPRequest(url: server.url("/cut")))
            XCTFail("expected an error for a truncated body")
        } catch let error as HTTPError {
            guard error.code == .connectionLost, let message = error.message else { return XCTFail("\(error)") }
            XCTAssertTrue(message.hasPrefix("the connection closed before the response was complete"), message)
        }
        let events = try await recorder.waitForTerminalEvents(count: 1)
        XCTAssertEqual(events.map(\.name), [.requestCreated, .requestStarted, .requestFailed])
    }

    func testCancellationBeforeStartSendsNothing() async throws {
        let client = client!
        let url = server.url("/never")
        let result = await Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await client.send(HTTPRequest(url: url))
        }.result
        guard case .failure(HTTPError.cancelled) = result else { return XCTFail("expected cancelled, got \(result)") }
        await dispatcher.flush()
        XCTAssertTrue(server.requests.isEmpty)
        XCTAssertEqual(recorder.events.map(\.name), [.requestCreated, .requestStarted, .requestCancelled])
    }

    func testTaskCancellationInFlightCancelsTheExchange() async throws {
        let arrived = routeHanging("/hang")
        let client = client!
        let request = HTTPRequest(url: server.url("/hang"))
        let task = Task { try await client.send(request) }
        _ = try await arrived.wait(timeout: 60, until: { $0 }) { _ in Unexpected("request never arrived") }
        task.cancel()
        let result = await task.result
        guard case .failure(HTTPError.cancelled) = result else { return XCTFail("expected cancelled, got \(result)") }
        let events = try await recorder.waitForTerminalEvents(count: 1)
        XCTAssertEqual(events.map(\.name), [.requestCreated, .requestStarted, .requestCancelled])
    }

    /// A route that answers after 30 s; the condition turns true when a request arrives.
    private func routeHanging(_ path: String) -> AsyncCondition<Bool> {
        let arrived = AsyncCondition(false)
        server.route(path) { _ in
            arrived.update { $0 = true }
            var response = LoopbackResponse.text("late")
            response.delay = 30
            return response
        }
        return arrived
    }

    // MARK: Events

    func testEventsForSuccessClientErrorAndServerError() async throws {
        server.route("/ok") { _ in .text("ok") }
        server.route("/missing") { _ in .text("no", status: 404) }
        server.route("/broken") { _ in .text("oops", status: 500) }
        for path in ["/ok", "/missing", "/broken"] {
            _ = try await client.send(HTTPRequest(url: server.url(path)))
        }
        let events = try await recorder.waitForTerminalEvents(count: 3)
        XCTAssertEqual(events.map(\.name), Array(repeating: [
            HTTPEvent.Name.requestCreated, .requestStarted, .responseReceived, .requestSucceeded,
        ], count: 3).flatMap { $0 })
        XCTAssertEqual(events.filter(\.name.isTerminal).compactMap(\.response?.statusCode), [200, 404, 500])
    }

    func testUserinfoNeverReachesEvents() async throws {
        server.route("/private") { request in .text(request.headers["Authorization"] ?? "none") }
        var components = URLComponents(url: server.url("/private?token=abc"), resolvingAgainstBaseURL: false)!
        components.user = "bob"
        components.password = "pw"
        let response = try await client.send(HTTPRequest(url: components.url!))
        XCTAssertEqual(String(decoding: response.body, as: UTF8.self), "Basic " + Data("bob:pw".utf8).base64EncodedString())
        let events = try await recorder.waitForTerminalEvents(count: 1)
        for event in events {
            XCTAssertEqual(event.request.url, server.url("/private?token=[REDACTED]").absoluteString.removingPercentEncoding)
        }
    }

    func testTwoHundredConcurrentRequestsOverLoopback() async throws {
        server.route("/n") { request in .text(request.query ?? "") }
        let client = client!
        let server = server!
        let pairs = try await withThrowingTaskGroup(of: (HTTPRequest.ID, String, String).self) { group in
            for index in 0..<200 {
                group.addTask {
                    let request = HTTPRequest(url: server.url("/n?i=\(index)"))
                    let response = try await client.send(request)
                    return (request.id, "i=\(index)", String(decoding: response.body, as: UTF8.self))
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        XCTAssertEqual(pairs.count, 200)
        for (_, sent, answered) in pairs { XCTAssertEqual(sent, answered) }
        try await recorder.waitForTerminalEvents(count: 200)
        await dispatcher.flush()
        for (id, sent, _) in pairs {
            let events = recorder.events(for: id)
            XCTAssertEqual(events.map(\.name), [.requestCreated, .requestStarted, .responseReceived, .requestSucceeded])
            XCTAssertTrue(events.allSatisfy { $0.request.url.hasSuffix("?" + sent) })
        }
    }
}

struct Unexpected: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

extension Result {
    var failure: Failure? {
        if case .failure(let error) = self { error } else { nil }
    }
}
