import AsyncHTTPClient
import Foundation
import HTTPCore
import HTTPCoreObservation
import HTTPCoreTesting
import XCTest
import HTTPCoreLoopback
import HTTPCoreTestPeers
import NIOConcurrencyHelpers

@testable import HTTPCoreAsyncHTTPClient

/// AsyncHTTPClient under HTTPCore's contract, against the loopback server of HTTPCoreTesting.
final class AsyncHTTPClientTransportTests: XCTestCase {
    private var server: LoopbackHTTPServer!
    private var ahc: AsyncHTTPClient.HTTPClient!
    private var dispatcher: HTTPEventDispatcher!
    private var recorder: RecordingObserver!

    override func setUpWithError() throws {
        server = try LoopbackHTTPServer()
        ahc = AsyncHTTPClientTransport.makeHTTPClient()
        dispatcher = HTTPEventDispatcher()
        recorder = RecordingObserver()
        dispatcher.subscribe(recorder)
        server.route("/users/42") { request in
            var response = LoopbackResponse.json(#"{"id":42}"#)
            response.headers.add(name: "X-Multi", value: "a")
            response.headers.add(name: "X-Multi", value: "b")
            response.headers.add(name: "X-Echo-Tags", value: request.headers.values(for: "X-Tag").joined(separator: "|"))
            return response
        }
        server.route("/echo") { request in LoopbackResponse(status: 201, body: request.body) }
        server.route("/missing") { _ in .text("nope", status: 404) }
        server.route("/old") { _ in .redirect(to: "/users/42") }
        server.route("/slow") { _ in
            var response = LoopbackResponse.text("late")
            response.delay = 5
            return response
        }
        server.route("/big") { _ in LoopbackResponse(body: Data(repeating: 65, count: 4096)) }
    }

    override func tearDown() async throws {
        server.stop()
        try await ahc.shutdown()
    }

    private func client(maximumStreamedResponseBytes: Int? = nil) -> HTTPTransportClient<AsyncHTTPClientTransport> {
        HTTPTransportClient(asyncHTTPClient: ahc, maximumStreamedResponseBytes: maximumStreamedResponseBytes, dispatcher: dispatcher, policy: .debug)
    }

    func testStatusHeadersBothWaysAndEvents() async throws {
        var headers: HTTPHeaders = ["Accept": "application/json"]
        headers.add(name: "X-Tag", value: "one")
        headers.add(name: "X-Tag", value: "two")
        let response = try await client().send(HTTPRequest(url: server.url("/users/42"), headers: headers))
        XCTAssertEqual(response.statusCode, 200)
        XCTAssertEqual(String(decoding: response.body, as: UTF8.self), #"{"id":42}"#)
        XCTAssertEqual(response.headers.values(for: "X-Multi"), ["a", "b"])
        XCTAssertEqual(response.headers["X-Echo-Tags"], "one|two", "repeated request headers reach the server")
        let events = try await recorder.waitForTerminalEvents(count: 1)
        XCTAssertEqual(events.map(\.name), [.requestCreated, .requestStarted, .responseReceived, .requestSucceeded])
    }

    func testBodiesAndErrorStatusesAreResponses() async throws {
        let posted = try await client().send(HTTPRequest(method: .post, url: server.url("/echo"), body: Data("hello".utf8)))
        XCTAssertEqual(posted.statusCode, 201)
        XCTAssertEqual(String(decoding: posted.body, as: UTF8.self), "hello")
        let missing = try await client().send(HTTPRequest(url: server.url("/missing")))
        XCTAssertEqual(missing.statusCode, 404)
    }

    func testRedirectsAreFollowedToTheFinalURL() async throws {
        let response = try await client().send(HTTPRequest(url: server.url("/old")))
        XCTAssertEqual(response.statusCode, 200)
        XCTAssertEqual(response.url, server.url("/users/42"))
        XCTAssertEqual(response.redirection, HTTPRedirection(method: .get, resentBody: false, statusCodes: [302]))
    }

    func testARedirectTellsTheRequestThatGotTheStatusBufferedAndStreamed() async throws {
        server.route("/submit") { _ in .redirect(to: "/echo-method", status: 303) }
        server.route("/moved") { _ in .redirect(to: "/echo-method", status: 307) }
        server.route("/echo-method") { request in .text("\(request.method) \(request.bodyText)") }
        let posted = try await client().send(HTTPRequest(method: .post, url: server.url("/submit"), body: Data("a=1".utf8)))
        XCTAssertEqual(String(decoding: posted.body, as: UTF8.self), "GET ", "AHC sent a GET without the body")
        XCTAssertEqual(posted.redirection, HTTPRedirection(method: .get, resentBody: false, statusCodes: [303]))
        let moved = try await client().send(HTTPRequest(method: .post, url: server.url("/moved"), body: Data("a=1".utf8)))
        XCTAssertEqual(String(decoding: moved.body, as: UTF8.self), "POST a=1")
        XCTAssertEqual(moved.redirection, HTTPRedirection(method: .post, resentBody: true, statusCodes: [307]))
        let streamed = try await client().send(HTTPRequest(method: .post, url: server.url("/submit")), body: HTTPBody(Data("a=1".utf8))) { head, body in
            (head.redirection, String(decoding: try await body.collect(upTo: 100), as: UTF8.self))
        }
        XCTAssertEqual(streamed.1, "GET ")
        XCTAssertEqual(streamed.0, HTTPRedirection(method: .get, resentBody: false, statusCodes: [303]))
    }

    /// A streamed body that can be read again is sent again on a 307; a single-pass one cannot
    /// be, so the 307 itself is the response (with an empty body) and nothing reaches the target.
    func testA307ResendsAReplayableStreamedBodyAndReturnsTheRedirectForASinglePassOne() async throws {
        server.route("/moved") { _ in .redirect(to: "/echo-method", status: 307) }
        server.route("/echo-method") { request in .text("\(request.method) \(request.bodyText)") }
        let request = HTTPRequest(method: .post, url: server.url("/moved"))
        let replayed = try await client().send(request, body: HTTPBody(Data("a=1".utf8))) { head, body in
            (head.statusCode, head.redirection, String(decoding: try await body.collect(upTo: 100), as: UTF8.self))
        }
        XCTAssertEqual(replayed.0, 200)
        XCTAssertEqual(replayed.1, HTTPRedirection(method: .post, resentBody: true, statusCodes: [307]))
        XCTAssertEqual(replayed.2, "POST a=1")
        let once = HTTPBody(AsyncThrowingStream { continuation in
            continuation.yield(HTTPBody.ByteChunk("b=2".utf8))
            continuation.finish()
        }, length: .known(3))
        let notFollowed = try await client().send(request, body: once) { head, body in
            (head.statusCode, head.redirection, try await body.collect(upTo: 100))
        }
        XCTAssertEqual(notFollowed.0, 307)
        XCTAssertNil(notFollowed.1)
        XCTAssertEqual(notFollowed.2, Data())
        XCTAssertEqual(server.requests.map { "\($0.method) \($0.path) \($0.bodyText)" }, [
            "POST /moved a=1", "POST /echo-method a=1", "POST /moved b=2",
        ])
    }

    /// A replayable body that fails on its second pass, AHC's replay for a 307: the call fails
    /// with the body's own error. The server got the first request whole; of the replay AHC
    /// sent at most the head before the body failed, so the target recorded no request.
    func testA307ReplayWhoseBodyFailsOnItsSecondPassFailsWithTheBodysError() async throws {
        server.route("/moved") { _ in .redirect(to: "/echo-method", status: 307) }
        server.route("/echo-method") { request in .text("\(request.method) \(request.bodyText)") }
        let changed = HTTPError.transport(.other, message: "the file changed between two reads")
        let passes = NIOLockedValueBox(0)
        let body = HTTPBody(length: .known(3)) {
            let pass = passes.withLockedValue { count in
                count += 1
                return count
            }
            return AsyncThrowingStream<HTTPBody.ByteChunk, any Error> { continuation in
                if pass == 1 {
                    continuation.yield(HTTPBody.ByteChunk("a=1".utf8))
                    continuation.finish()
                } else {
                    continuation.finish(throwing: changed)
                }
            }
        }
        let request = HTTPRequest(method: .post, url: server.url("/moved"), timeout: 30)
        do {
            _ = try await client().send(request, body: body) { head, _ in head.statusCode }
            XCTFail("expected the body's error")
        } catch let error as HTTPError {
            XCTAssertEqual(error, changed)
        }
        XCTAssertEqual(passes.withLockedValue { $0 }, 2)
        XCTAssertEqual(server.requests.map { "\($0.method) \($0.path) \($0.bodyText)" }, ["POST /moved a=1"])
        let events = try await recorder.waitForTerminalEvents(count: 1)
        XCTAssertEqual(events.map(\.name), [.requestCreated, .requestStarted, .requestFailed])
        XCTAssertEqual(events.last?.endError, changed)
    }

    func testACONNECTIsRefusedBeforeAnythingIsSent() async throws {
        do {
            _ = try await client().send(HTTPRequest(method: .connect, url: server.url("/echo"), timeout: 30))
            XCTFail("expected an error")
        } catch let error as HTTPError {
            XCTAssertEqual(
                error, .transport(.invalidRequest, message: "method CONNECT: AsyncHTTPClient cannot open a tunnel (RFC 9110, section 9.3.6) (127.0.0.1:\(server.port))")
            )
        }
        XCTAssertEqual(server.requests.count, 0)
    }

    func testANegativeResponseCapIsRefusedBeforeAnythingIsSentNamingTheSetting() async throws {
        let transport = AsyncHTTPClientTransport(client: ahc, maximumStreamedResponseBytes: -1)
        let expected = HTTPError.transport(
            .invalidRequest, message: "maximumStreamedResponseBytes: must be 0 or more, or nil for no limit; it is -1 (AsyncHTTPClientTransport)"
        )
        let client = HTTPTransportClient(transport: transport, dispatcher: HTTPEventDispatcher())
        for streamed in [false, true] {
            do {
                if streamed { _ = try await client.send(HTTPRequest(url: server.url("/echo")), body: nil) } else { _ = try await client.send(HTTPRequest(url: server.url("/echo"))) }
                XCTFail("expected invalid_request, streamed: \(streamed)")
            } catch let error as HTTPError {
                XCTAssertEqual(error, expected, "streamed: \(streamed)")
            }
        }
        XCTAssertEqual(server.requests.count, 0)
    }

    /// AHC adds only framing (`Host`, `Content-Length`, `Connection`) to what it is given, so
    /// the transport reports no added headers, and the server received the request's own.
    func testAHCAddsNoHeaderBeyondFraming() async throws {
        let request = HTTPRequest(method: .post, url: server.url("/echo"), headers: ["X-Own": "1"], body: Data("a".utf8))
        let (response, body) = try await AsyncHTTPClientTransport(client: ahc).perform(request, body: nil)
        let echoed = try await body.collect(upTo: 100)
        XCTAssertEqual(echoed, Data("a".utf8))
        XCTAssertTrue(response.addedRequestHeaders.isEmpty)
        let framing: Set<String> = ["host", "content-length", "transfer-encoding", "connection"]
        let received = try XCTUnwrap(server.requests.last).headers.filter { !framing.contains($0.name.lowercased()) }
        XCTAssertEqual(received.map { "\($0.name): \($0.value)" }, ["X-Own: 1"])
    }

    func testTheDeadlineIsATimeout() async throws {
        do {
            _ = try await client().send(HTTPRequest(url: server.url("/slow"), timeout: 0.3))
            XCTFail("expected a timeout")
        } catch let error as HTTPError {
            XCTAssertEqual(error, .timeout)
        }
    }

    /// The client races no timer: only the transport can end a buffered call whose head came in
    /// time and whose body stalls.
    func testABufferedCallWhoseBodyStallsEndsAtTheDeadlineAndClosesTheConnection() async throws {
        let gate = server.makeGate()
        let closed = ServerReport<Bool>()
        server.routeHeldAtGate("/stalled", head: 10, gate: gate, closed: closed)
        let client = client()
        // Bounds a hang only: without the transport's own deadline, the body ends a minute later.
        let watchdog = Task {
            try await Task.sleep(nanoseconds: 60_000_000_000)
            gate.open()
        }
        defer { watchdog.cancel() }
        do {
            _ = try await client.send(HTTPRequest(url: server.url("/stalled"), timeout: 2))
            XCTFail("expected a timeout")
        } catch let error as HTTPError {
            XCTAssertEqual(error, .timeout, "the head arrived; the body must not outlast the deadline")
        }
        let events = try await recorder.waitForTerminalEvents(count: 1)
        XCTAssertEqual(events.map(\.name), [.requestCreated, .requestStarted, .requestFailed])
        XCTAssertEqual(events.last?.endError, .timeout)
        gate.open()
        let serverSawTheClose = try await closed.value("the route's writes after the deadline")
        XCTAssertTrue(serverSawTheClose)
    }

    /// Nobody reads the body: it fills its buffer, AHC stops reading the socket, and the
    /// transport ends it at the deadline all the same, releasing the connection then (the
    /// route's writes block until the client closes). A read afterwards gets the bytes that
    /// were buffered, about 256 KiB and never the whole body, then the timeout.
    func testABodyLeftUnreadPastTheDeadlineIsEndedByTheTransportAsATimeout() async throws {
        let gate = server.makeGate()
        let closed = ServerReport<Bool>()
        server.routeHeldAtGate("/stalled", head: 10, gate: gate, closed: closed)
        let transport = AsyncHTTPClientTransport(client: ahc)
        let (head, body) = try await transport.perform(HTTPRequest(url: server.url("/stalled"), timeout: 2), body: nil)
        XCTAssertEqual(head.statusCode, 200)
        gate.open()
        let serverSawTheClose = try await closed.value("the route's writes after the deadline")
        XCTAssertTrue(serverSawTheClose, "the request was cancelled at the deadline, the body still unread")
        var received = 0
        do {
            for try await chunk in body { received += chunk.count }
            XCTFail("expected a timeout")
        } catch let error as HTTPError {
            XCTAssertEqual(error, .timeout)
        }
        XCTAssertGreaterThanOrEqual(received, 10)
        XCTAssertLessThan(received, 10 + Int(LoopbackHTTPServer.moreThanSocketBuffers), "the body was ended before its end")
    }

    /// The body read from a cancelled task fails in HTTPCore's stream, with `CancellationError`,
    /// before AHC hears of it; the client reports every failure of a cancelled read as
    /// `HTTPError.cancelled`, as `HTTPClient.send` promises for task cancellation.
    func testCancellingWhileTheBodyIsReadIsCancelledAndClosesTheConnection() async throws {
        let gate = server.makeGate()
        let closed = ServerReport<Bool>()
        server.routeHeldAtGate("/stalled", head: 10, gate: gate, closed: closed)
        let client = client()
        let url = server.url("/stalled")
        let exchange = Task {
            let (_, body) = try await client.send(HTTPRequest(url: url, timeout: 120), body: nil)
            for try await _ in body {}
        }
        // The head is in: the body is being read.
        let events = try await recorder.waitForEvents(count: 3)
        XCTAssertEqual(events.map(\.name), [.requestCreated, .requestStarted, .responseReceived])
        exchange.cancel()
        do {
            try await exchange.value
            XCTFail("expected cancellation")
        } catch let error as HTTPError {
            XCTAssertEqual(error, .cancelled)
        }
        let terminal = try await recorder.waitForTerminalEvents(count: 1)
        XCTAssertEqual(terminal.last?.name, .requestCancelled, "cancelled, not a timeout: the deadline is two minutes away")
        gate.open()
        let serverSawTheClose = try await closed.value("the route's writes after the cancellation")
        XCTAssertTrue(serverSawTheClose)
    }

    func testCallsWithATimeoutShareOneTimerAndLeaveNothingWatched() async throws {
        // Start checks are due long after these calls end, so no check re-arms the timer
        // however slowly the machine runs them; with the default delay of 50 ms the timer
        // fires about once per 50 ms of calls.
        let transport = AsyncHTTPClientTransport(client: ahc, maximumStreamedResponseBytes: nil, startCheckDelay: .minutes(10))
        let client = HTTPTransportClient(transport: transport, dispatcher: dispatcher, policy: .debug)
        for _ in 0..<20 {
            let response = try await client.send(HTTPRequest(url: server.url("/big"), timeout: 30))
            XCTAssertEqual(response.body.count, 4096)
        }
        XCTAssertEqual(client.transport.deadlines.watchedCount, 0, "each exchange left the table as it ended")
        XCTAssertEqual(client.transport.deadlines.timersScheduled, 1, "each later deadline waits behind the first timer")
    }

    func testCallsToTheSameURLShareOneKeptRequestAndSendOnlyTheirOwnHeaders() async throws {
        let client = client()
        var first = HTTPRequest(url: server.url("/users/42"), timeout: 30)
        first.headers.add(name: "X-Tag", value: "first")
        var second = HTTPRequest(url: server.url("/users/42"), timeout: 30)
        second.headers.add(name: "X-Tag", value: "second")

        let firstResponse = try await client.send(first)
        let secondResponse = try await client.send(second)
        let untagged = try await client.send(HTTPRequest(url: server.url("/users/42"), timeout: 30))

        XCTAssertEqual(firstResponse.headers["X-Echo-Tags"], "first")
        XCTAssertEqual(secondResponse.headers["X-Echo-Tags"], "second", "the kept request carries no header of the first call")
        XCTAssertEqual(untagged.headers["X-Echo-Tags"], "")
        XCTAssertEqual(client.transport.templates.keptURLs, [server.url("/users/42")])
    }

    func testARefusedConnectionCannotConnect() async throws {
        let closed = try LoopbackHTTPServer()
        let url = closed.url("/x?token=S3CR3T")
        closed.stop()
        do {
            _ = try await client().send(HTTPRequest(url: url, timeout: 5))
            XCTFail("expected an error")
        } catch let error as HTTPError {
            guard error.code == .cannotConnect, let message = error.message else { return XCTFail("\(error)") }
            XCTAssertFalse(message.contains("S3CR3T"), message)
            XCTAssertTrue(message.contains("127.0.0.1"), message)
        }
    }

    func testAnUnresolvableHostAndAFailedTLSHandshakeHaveTheirCodes() async throws {
        do {
            _ = try await client().send(HTTPRequest(url: URL(string: "http://no-such-host.invalid/x")!, timeout: 10))
            XCTFail("expected an error")
        } catch let error as HTTPError {
            XCTAssertEqual(error.code, .cannotResolveHost)
        }
        // TLS to a plain-HTTP server: the handshake fails.
        var components = URLComponents(url: server.url("/users/42"), resolvingAgainstBaseURL: false)!
        components.scheme = "https"
        do {
            _ = try await client().send(HTTPRequest(url: components.url!, timeout: 10))
            XCTFail("expected an error")
        } catch let error as HTTPError {
            XCTAssertEqual(error.code, .secureConnectionFailed)
        }
    }

    func testAServerThatClosesWithoutAnsweringGetsAGetRetriedButNotAPost() async throws {
        var closes = LoopbackResponse()
        closes.fault = .raw(Data())  // reads the request, then closes without writing a byte
        server.route("/orders", answering: [closes, .text("created", status: 201)])
        server.route("/items", answering: [closes, .text("ok")])
        let quick = Backoff(initial: 0.01, maximum: 0.05, jitter: .none)
        let client = HTTPTransportClient(asyncHTTPClient: ahc, middlewares: [RetryMiddleware(backoff: quick)], dispatcher: dispatcher)
        do {
            _ = try await client.send(HTTPRequest(method: .post, url: server.url("/orders"), body: Data("{}".utf8), timeout: 10))
            XCTFail("a POST the server may have processed must not be repeated")
        } catch let error as HTTPError {
            XCTAssertEqual(error.code, .connectionLost)
        }
        let get = try await client.send(HTTPRequest(url: server.url("/items"), timeout: 10))
        XCTAssertEqual(String(decoding: get.body, as: UTF8.self), "ok")
        XCTAssertEqual(server.requests.map { "\($0.method) \($0.path)" }, ["POST /orders", "GET /items", "GET /items"])
    }

    func testABufferedResponseOverTheCapFailsClearly() async throws {
        do {
            _ = try await client(maximumStreamedResponseBytes: 1024).send(HTTPRequest(url: server.url("/big")))
            XCTFail("expected an error")
        } catch let error as HTTPError {
            XCTAssertEqual(error.code, .responseTooLarge)
            XCTAssertEqual(
                error.message,
                "the response body is over 1024 bytes, AsyncHTTPClientTransport.maximumStreamedResponseBytes (127.0.0.1:\(server.port))"
            )
        }
        let fits = try await client(maximumStreamedResponseBytes: 4096).send(HTTPRequest(url: server.url("/big")))
        XCTAssertEqual(fits.body.count, 4096)
    }

    func testCancellationCancelsTheRequest() async throws {
        let client = client()
        let url = server.url("/slow")
        let call = Task { try await client.send(HTTPRequest(url: url)) }
        _ = try await recorder.waitForEvents(count: 2)
        call.cancel()
        do {
            _ = try await call.value
            XCTFail("expected cancellation")
        } catch let error as HTTPError {
            XCTAssertEqual(error, .cancelled)
        }
        let events = try await recorder.waitForTerminalEvents(count: 1)
        XCTAssertEqual(events.last?.name, .requestCancelled)
    }

    func testAHCsOwnTracingIsOff() {
        XCTAssertNil(ahc.tracer)
    }
}
