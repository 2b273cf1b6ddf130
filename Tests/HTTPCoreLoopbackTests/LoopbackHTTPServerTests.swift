import Foundation
import HTTPCore
import XCTest
import HTTPCoreLoopback
import HTTPCoreTestPeers
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

final class LoopbackHTTPServerTests: XCTestCase {
    private var session: URLSession!

    override func setUp() {
        super.setUp()
        session = URLSession(configuration: .ephemeral)
    }

    override func tearDown() {
        session.invalidateAndCancel()
        session = nil
        super.tearDown()
    }

    // MARK: - Routing and recording

    func test_route_receivesAndRecordsMethodTargetHeadersAndBodyExactly() async throws {
        let server = try LoopbackHTTPServer()
        defer { server.stop() }
        server.route("PUT", "/users/42") { request in .json(#"{"echo":"\#(request.bodyText)"}"#, status: 201) }

        var request = URLRequest(url: server.url("/users/42?x=1&y=two"))
        request.httpMethod = "PUT"
        request.setValue("text/plain", forHTTPHeaderField: "Content-Type")
        request.setValue("abc", forHTTPHeaderField: "X-Trace")
        request.httpBody = Data("hello".utf8)
        let (data, response) = try await session.data(for: request)

        let http = try XCTUnwrap(response as? HTTPURLResponse)
        XCTAssertEqual(http.statusCode, 201)
        XCTAssertEqual(http.value(forHTTPHeaderField: "Content-Type"), "application/json")
        XCTAssertEqual(String(decoding: data, as: UTF8.self), #"{"echo":"hello"}"#)
        let recorded = try XCTUnwrap(server.requests.first)
        XCTAssertEqual(server.requests.count, 1)
        XCTAssertEqual(recorded.method, "PUT")
        XCTAssertEqual(recorded.target, "/users/42?x=1&y=two")
        XCTAssertEqual(recorded.path, "/users/42")
        XCTAssertEqual(recorded.query, "x=1&y=two")
        XCTAssertEqual(recorded.headers["x-trace"], "abc")
        XCTAssertEqual(recorded.headers["Content-Type"], "text/plain")
        XCTAssertEqual(recorded.headers["Content-Length"], "5")
        XCTAssertEqual(recorded.body, Data("hello".utf8))
        XCTAssertEqual(recorded.connectionID, 1)
    }

    func test_configuredInit_acceptsOnlyOnceItsRoutesAreSet() throws {
        var early: RawHTTPConnection?
        let server = try LoopbackHTTPServer { server in
            // A client that connects and asks before any route exists waits in the backlog.
            early = try? RawHTTPConnection(port: server.port)
            try? early?.send("GET /ready HTTP/1.1\r\nHost: x\r\n\r\n")
            XCTAssertFalse(server.isAccepting, "nothing is accepted before the routes are set")
            server.route("GET", "/ready") { _ in .text("ready") }
        }
        XCTAssertTrue(server.isAccepting)
        defer { server.stop() }

        let response = try XCTUnwrap(early).readResponse()

        XCTAssertEqual(response.status, 200)
        XCTAssertEqual(response.text, "ready")
        server.stop()
        XCTAssertFalse(server.isAccepting, "a stopped server accepts nothing")
    }

    func test_route_withoutMethod_matchesAnyMethod_andExactMethodWins() throws {
        let server = try LoopbackHTTPServer()
        defer { server.stop() }
        server.route("/thing") { _ in .text("any") }
        server.route("DELETE", "/thing") { _ in .text("delete") }

        let connection = try RawHTTPConnection(port: server.port)
        try connection.send("PATCH /thing HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n")
        XCTAssertEqual(try connection.readResponse().text, "any")
        try connection.send("DELETE /thing HTTP/1.1\r\nHost: x\r\n\r\n")
        XCTAssertEqual(try connection.readResponse().text, "delete")
    }

    func test_route_registeredAgainForSameMethodAndPath_replacesHandler() throws {
        let server = try LoopbackHTTPServer()
        defer { server.stop() }
        server.route("GET", "/v") { _ in .text("first") }
        server.route("GET", "/v") { _ in .text("second") }

        let connection = try RawHTTPConnection(port: server.port)
        try connection.send("GET /v HTTP/1.1\r\nHost: x\r\n\r\n")
        XCTAssertEqual(try connection.readResponse().text, "second")
    }

    func test_unknownRoute_answers404NotFound() async throws {
        let server = try LoopbackHTTPServer()
        defer { server.stop() }
        server.route("GET", "/known") { _ in .text("yes") }

        let (data, response) = try await session.data(from: server.url("/unknown?known=1"))

        XCTAssertEqual((response as? HTTPURLResponse)?.statusCode, 404)
        XCTAssertEqual(String(decoding: data, as: UTF8.self), "not found")
        XCTAssertEqual(server.requests.map(\.path), ["/unknown"])
    }

    func test_redirect_isFollowedByURLSession_andBothRequestsAreRecorded() async throws {
        let server = try LoopbackHTTPServer()
        defer { server.stop() }
        server.route("GET", "/old") { _ in .redirect(to: "/new?from=old") }
        server.route("GET", "/new") { _ in .text("moved here") }

        let (data, response) = try await session.data(from: server.url("/old"))

        XCTAssertEqual((response as? HTTPURLResponse)?.statusCode, 200)
        XCTAssertEqual(response.url, server.url("/new?from=old"))
        XCTAssertEqual(String(decoding: data, as: UTF8.self), "moved here")
        XCTAssertEqual(server.requests.map(\.target), ["/old", "/new?from=old"])
    }

    // MARK: - Response framing

    func test_repeatedResponseHeaderFields_areSentInOrder() async throws {
        let server = try LoopbackHTTPServer()
        defer { server.stop() }
        server.route("GET", "/cookies") { _ in
            var headers = HTTPHeaders()
            headers.add(name: "Set-Cookie", value: "a=1")
            headers.add(name: "X-Multi", value: "one")
            headers.add(name: "Set-Cookie", value: "b=2")
            headers.add(name: "X-Multi", value: "two")
            return LoopbackResponse(headers: headers, body: Data("ok".utf8))
        }

        let connection = try RawHTTPConnection(port: server.port)
        try connection.send("GET /cookies HTTP/1.1\r\nHost: x\r\n\r\n")
        let raw = try connection.readResponse()
        let (_, response) = try await session.data(from: server.url("/cookies"))

        XCTAssertEqual(raw.statusLine, "HTTP/1.1 200 OK")
        XCTAssertEqual(raw.fields.map(\.name), ["Set-Cookie", "X-Multi", "Set-Cookie", "X-Multi", "Content-Length"])
        XCTAssertEqual(raw.values("Set-Cookie"), ["a=1", "b=2"])
        XCTAssertEqual(raw.values("X-Multi"), ["one", "two"])
        XCTAssertEqual(raw.text, "ok")
        XCTAssertEqual((response as? HTTPURLResponse)?.value(forHTTPHeaderField: "X-Multi"), "one, two")
    }

    func test_chunkedTransfer_framesBodyInChunksOfChunkSize() async throws {
        let server = try LoopbackHTTPServer()
        defer { server.stop() }
        server.route("GET", "/chunked") { _ in
            var response = LoopbackResponse.text("hello world")
            response.transfer = .chunked(chunkSize: 4)
            return response
        }

        let connection = try RawHTTPConnection(port: server.port)
        try connection.send("GET /chunked HTTP/1.1\r\nHost: x\r\n\r\n")
        let raw = try connection.readResponse()
        let (data, _) = try await session.data(from: server.url("/chunked"))

        XCTAssertEqual(raw.values("Transfer-Encoding"), ["chunked"])
        XCTAssertEqual(raw.values("Content-Length"), [])
        XCTAssertEqual(String(decoding: raw.wireBody, as: UTF8.self), "4\r\nhell\r\n4\r\no wo\r\n3\r\nrld\r\n0\r\n\r\n")
        XCTAssertEqual(String(decoding: data, as: UTF8.self), "hello world")
    }

    func test_head_sendsContentLengthOfTheBodyButNoBody() throws {
        let server = try LoopbackHTTPServer()
        defer { server.stop() }
        server.route("GET", "/doc") { _ in .text("twelve bytes") }

        let connection = try RawHTTPConnection(port: server.port)
        try connection.send("HEAD /doc HTTP/1.1\r\nHost: x\r\n\r\n")
        let head = try connection.readResponse(head: true)
        try connection.send("GET /doc HTTP/1.1\r\nHost: x\r\n\r\n")
        let get = try connection.readResponse()

        XCTAssertEqual(head.status, 200)
        XCTAssertEqual(head.values("Content-Length"), ["12"])
        XCTAssertEqual(get.text, "twelve bytes", "no body bytes followed the HEAD response")
        XCTAssertEqual(server.requests.map(\.method), ["HEAD", "GET"])
    }

    func test_status204And304_sendNoBody() throws {
        let server = try LoopbackHTTPServer()
        defer { server.stop() }
        server.route("GET", "/empty") { _ in LoopbackResponse(status: 204, body: Data("ignored".utf8)) }
        server.route("GET", "/same") { _ in LoopbackResponse(status: 304, body: Data("ignored".utf8)) }

        let connection = try RawHTTPConnection(port: server.port)
        try connection.send("GET /empty HTTP/1.1\r\nHost: x\r\n\r\nGET /same HTTP/1.1\r\nHost: x\r\n\r\n")
        let noContent = try connection.readResponse()
        let notModified = try connection.readResponse()
        try connection.send("GET /missing HTTP/1.1\r\nHost: x\r\n\r\n")
        let next = try connection.readResponse()

        XCTAssertEqual(noContent.statusLine, "HTTP/1.1 204 No Content")
        XCTAssertEqual(noContent.fields.count, 0)
        XCTAssertEqual(notModified.statusLine, "HTTP/1.1 304 Not Modified")
        XCTAssertEqual(notModified.fields.count, 0)
        XCTAssertEqual(next.status, 404, "the ignored bodies were not sent")
    }

    func test_customReasonPhrase_isSentInStatusLine() throws {
        let server = try LoopbackHTTPServer()
        defer { server.stop() }
        server.route("GET", "/teapot") { _ in
            var response = LoopbackResponse.text("short and stout", status: 418)
            response.reason = "I'm a teapot"
            return response
        }

        let connection = try RawHTTPConnection(port: server.port)
        try connection.send("GET /teapot HTTP/1.1\r\nHost: x\r\n\r\n")

        XCTAssertEqual(try connection.readResponse().statusLine, "HTTP/1.1 418 I'm a teapot")
    }

    func test_largeResponseBody_of50MB_arrivesComplete() async throws {
        let server = try LoopbackHTTPServer()
        defer { server.stop() }
        let block = Data((0..<1_048_576).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        let body = (0..<50).reduce(into: Data(capacity: 50 * block.count)) { body, _ in body.append(block) }
        server.route("GET", "/big") { _ in LoopbackResponse(body: body) }

        let (data, response) = try await session.data(from: server.url("/big"))

        XCTAssertEqual((response as? HTTPURLResponse)?.statusCode, 200)
        XCTAssertEqual(data.count, body.count)
        XCTAssertTrue(data == body)
    }

    func test_drip_sendsBodyInPiecesWithIntervalsBetween() async throws {
        let server = try LoopbackHTTPServer()
        defer { server.stop() }
        server.route("GET", "/drip") { _ in
            var response = LoopbackResponse.text("abcdef")
            response.drip = .init(chunks: 3, interval: 0.1)
            return response
        }

        let started = Date()
        let (data, _) = try await session.data(from: server.url("/drip"))

        XCTAssertEqual(String(decoding: data, as: UTF8.self), "abcdef")
        XCTAssertGreaterThanOrEqual(Date().timeIntervalSince(started), 0.2)
    }

    // MARK: - Request bodies

    func test_chunkedRequestBody_isRecordedDechunked() throws {
        let server = try LoopbackHTTPServer()
        defer { server.stop() }
        server.route("POST", "/upload") { request in .text("got \(request.body.count)") }

        let connection = try RawHTTPConnection(port: server.port)
        try connection.send(
            "POST /upload HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
                + "5\r\nhello\r\n6;ext=1\r\n world\r\n0\r\nX-Trailer: t\r\n\r\n"
        )
        let response = try connection.readResponse()

        XCTAssertEqual(response.text, "got 11")
        XCTAssertEqual(server.requests.first?.body, Data("hello world".utf8))
        XCTAssertEqual(server.requests.first?.headers["Transfer-Encoding"], "chunked")
    }

    func test_expect100Continue_isAnsweredBeforeTheBodyIsRead() throws {
        let server = try LoopbackHTTPServer()
        defer { server.stop() }
        server.route("POST", "/upload") { request in .text(request.bodyText) }

        let connection = try RawHTTPConnection(port: server.port)
        try connection.send("POST /upload HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\nExpect: 100-continue\r\n\r\n")
        let interim = try connection.readHead()
        try connection.send("data")
        let final = try connection.readResponse()

        XCTAssertEqual(interim, "HTTP/1.1 100 Continue")
        XCTAssertEqual(final.status, 200)
        XCTAssertEqual(final.text, "data")
        XCTAssertEqual(server.requests.first?.headers["Expect"], "100-continue")
    }

    func test_urlSessionLargeUpload_isReceivedComplete() async throws {
        let server = try LoopbackHTTPServer()
        defer { server.stop() }
        server.route("POST", "/upload") { request in .text(String(request.body.count)) }
        let body = Data(repeating: 0x61, count: 3 * 1_048_576)

        var request = URLRequest(url: server.url("/upload"))
        request.httpMethod = "POST"
        request.httpBody = body
        let (data, _) = try await session.data(for: request)

        XCTAssertEqual(String(decoding: data, as: UTF8.self), String(body.count))
        XCTAssertEqual(server.requests.first?.body, body)
    }

    func test_urlSessionStreamUpload_isReceivedComplete() async throws {
        let server = try LoopbackHTTPServer()
        defer { server.stop() }
        server.route("POST", "/stream") { request in .text(request.bodyText) }

        var request = URLRequest(url: server.url("/stream"))
        request.httpMethod = "POST"
        request.httpBodyStream = InputStream(data: Data("streamed body".utf8))
        let (data, _) = try await session.data(for: request)

        XCTAssertEqual(String(decoding: data, as: UTF8.self), "streamed body")
        XCTAssertEqual(server.requests.first?.body, Data("streamed body".utf8))
    }

    // MARK: - Connections

    func test_keepAlive_rawClient_sendsTwoRequestsOverOneConnection() throws {
        let server = try LoopbackHTTPServer()
        defer { server.stop() }
        server.route("GET", "/n") { request in .text(request.query ?? "") }

        let connection = try RawHTTPConnection(port: server.port)
        try connection.send("GET /n?1 HTTP/1.1\r\nHost: x\r\n\r\n")
        let first = try connection.readResponse()
        try connection.send("GET /n?2 HTTP/1.1\r\nHost: x\r\n\r\n")
        let second = try connection.readResponse()

        XCTAssertEqual([first.text, second.text], ["1", "2"])
        XCTAssertEqual(first.values("Connection"), [])
        XCTAssertEqual(server.acceptedConnectionCount, 1)
        XCTAssertEqual(server.requests.map(\.connectionID), [1, 1])
    }

    func test_keepAlive_urlSession_reusesTheConnectionForSequentialRequests() async throws {
        let server = try LoopbackHTTPServer()
        defer { server.stop() }
        server.route("GET", "/n") { _ in .text("ok") }

        _ = try await session.data(from: server.url("/n"))
        _ = try await session.data(from: server.url("/n"))

        XCTAssertEqual(server.acceptedConnectionCount, 1)
        XCTAssertEqual(server.requests.map(\.connectionID), [1, 1])
    }

    func test_connectionClose_fromClient_isAnsweredWithConnectionCloseAndClosed() throws {
        let server = try LoopbackHTTPServer()
        defer { server.stop() }
        server.route("GET", "/bye") { _ in .text("bye") }

        let connection = try RawHTTPConnection(port: server.port)
        try connection.send("GET /bye HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        let response = try connection.readResponse()

        XCTAssertEqual(response.values("Connection"), ["close"])
        XCTAssertEqual(response.text, "bye")
        XCTAssertTrue(connection.serverClosed())
    }

    func test_http10Request_isAnsweredAndClosed() throws {
        let server = try LoopbackHTTPServer()
        defer { server.stop() }
        server.route("GET", "/old") { _ in .text("1.0") }

        let connection = try RawHTTPConnection(port: server.port)
        try connection.send("GET /old HTTP/1.0\r\n\r\n")
        let response = try connection.readResponse()

        XCTAssertEqual(response.text, "1.0")
        XCTAssertEqual(response.values("Connection"), ["close"])
        XCTAssertTrue(connection.serverClosed())
    }

    func test_malformedRequest_gets400AndTheConnectionCloses() throws {
        let server = try LoopbackHTTPServer()
        defer { server.stop() }

        let connection = try RawHTTPConnection(port: server.port)
        try connection.send("THIS IS NOT HTTP\r\n\r\n")
        let response = try connection.readResponse()

        XCTAssertEqual(response.status, 400)
        XCTAssertEqual(response.values("Connection"), ["close"])
        XCTAssertTrue(connection.serverClosed())
        XCTAssertEqual(server.requests, [])
    }

    func test_invalidContentLength_gets400() throws {
        let server = try LoopbackHTTPServer()
        defer { server.stop() }

        let connection = try RawHTTPConnection(port: server.port)
        try connection.send("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 12abc\r\n\r\n")

        XCTAssertEqual(try connection.readResponse().status, 400)
        XCTAssertTrue(connection.serverClosed())
    }

    func test_hundredsOfConcurrentConnections_areAllServed() throws {
        let server = try LoopbackHTTPServer()
        defer { server.stop() }
        server.route("GET", "/id") { request in .text(request.query ?? "") }

        RawHTTPConnection.allowOpenFiles(1_024)
        let connections = try (0..<300).map { _ in try RawHTTPConnection(port: server.port) }
        for (index, connection) in connections.enumerated() {
            try connection.send("GET /id?\(index) HTTP/1.1\r\nHost: x\r\n\r\n")
        }
        let answers = try connections.map { try $0.readResponse().text }

        XCTAssertEqual(answers, (0..<300).map(String.init))
        XCTAssertEqual(server.acceptedConnectionCount, 300)
        XCTAssertEqual(Set(server.requests.map(\.connectionID)).count, 300)
    }

    func test_handlers_runConcurrently() throws {
        let server = try LoopbackHTTPServer()
        defer { server.stop() }
        let arrivals = Arrivals()
        // Each handler blocks until the other has arrived: this only finishes if both run at once.
        server.route("GET", "/meet") { _ in
            .text(arrivals.arriveAndWaitForOther() ? "met" : "alone")
        }

        let first = try RawHTTPConnection(port: server.port)
        let second = try RawHTTPConnection(port: server.port)
        try first.send("GET /meet HTTP/1.1\r\nHost: x\r\n\r\n")
        try second.send("GET /meet HTTP/1.1\r\nHost: x\r\n\r\n")

        XCTAssertEqual(try first.readResponse().text, "met")
        XCTAssertEqual(try second.readResponse().text, "met")
    }

    // MARK: - Faults

    func test_faultCloseAfterHead_sendsHeadThenCloses() throws {
        let server = try LoopbackHTTPServer()
        defer { server.stop() }
        server.route("GET", "/cut") { _ in
            var response = LoopbackResponse.text("never sent")
            response.fault = .closeAfterHead
            return response
        }

        let connection = try RawHTTPConnection(port: server.port)
        try connection.send("GET /cut HTTP/1.1\r\nHost: x\r\n\r\n")
        let head = try connection.readHead()

        XCTAssertEqual(
            head,
            "HTTP/1.1 200 OK\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: 10\r\nConnection: close"
        )
        XCTAssertEqual(try connection.readToEnd(), Data())
    }

    func test_faultCloseAfterBodyBytes_declaresFullLengthSendsPrefixThenCloses() async throws {
        let server = try LoopbackHTTPServer()
        defer { server.stop() }
        server.route("GET", "/cut") { _ in
            var response = LoopbackResponse.text("0123456789")
            response.fault = .closeAfterBodyBytes(4)
            return response
        }

        let connection = try RawHTTPConnection(port: server.port)
        try connection.send("GET /cut HTTP/1.1\r\nHost: x\r\n\r\n")
        let head = try connection.readHead()
        let rest = try connection.readToEnd()

        XCTAssertTrue(head.contains("Content-Length: 10\r\n"))
        XCTAssertEqual(String(decoding: rest, as: UTF8.self), "0123")
        do {
            _ = try await session.data(from: server.url("/cut"))
            XCTFail("a truncated body must fail the request")
        } catch {
            XCTAssertNotNil(error as? URLError)
        }
    }

    func test_faultReset_resetsTheConnectionWithoutAnswering() async throws {
        let server = try LoopbackHTTPServer()
        defer { server.stop() }
        server.route("GET", "/reset") { _ in
            var response = LoopbackResponse()
            response.fault = .reset
            return response
        }

        let connection = try RawHTTPConnection(port: server.port)
        try connection.send("GET /reset HTTP/1.1\r\nHost: x\r\n\r\n")

        XCTAssertThrowsError(try connection.readToEnd()) { error in
            XCTAssertEqual("\(error)", "recv() failed: errno \(ECONNRESET)")
        }
        do {
            _ = try await session.data(from: server.url("/reset"))
            XCTFail("a reset must fail the request")
        } catch {
            XCTAssertNotNil(error as? URLError)
        }
    }

    func test_faultRaw_sendsBytesVerbatimThenCloses() throws {
        let server = try LoopbackHTTPServer()
        defer { server.stop() }
        server.route("GET", "/garbage") { _ in
            var response = LoopbackResponse()
            response.fault = .raw(Data("SSH-2.0-OpenSSH_9.6\r\n".utf8))
            return response
        }

        let connection = try RawHTTPConnection(port: server.port)
        try connection.send("GET /garbage HTTP/1.1\r\nHost: x\r\n\r\n")

        XCTAssertEqual(try connection.readToEnd(), Data("SSH-2.0-OpenSSH_9.6\r\n".utf8))
    }

    // MARK: - Lifecycle

    func test_stop_cutsAResponseDelayShortAndReturnsQuickly() async throws {
        let server = try LoopbackHTTPServer()
        let (arrivals, arrived) = AsyncStream.makeStream(of: Void.self)
        server.route("GET", "/slow") { _ in
            arrived.yield()
            var response = LoopbackResponse.text("too late")
            response.delay = 60
            return response
        }
        let session = session!
        let url = server.url("/slow")
        let pending = Task { try await session.data(from: url) }
        var iterator = arrivals.makeAsyncIterator()
        await iterator.next()

        let started = Date()
        server.stop()
        let stopDuration = Date().timeIntervalSince(started)

        // Far below the response's 60 s delay, however busy the machine: stop did not wait for it.
        XCTAssertLessThan(stopDuration, 30)
        do {
            _ = try await pending.value
            XCTFail("the delayed request must fail once the server stops")
        } catch {
            XCTAssertNotNil(error as? URLError)
        }
    }

    func test_stop_closesIdleKeptAliveConnections() throws {
        let server = try LoopbackHTTPServer()
        server.route("GET", "/") { _ in .text("hi") }
        let connection = try RawHTTPConnection(port: server.port)
        try connection.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n")
        _ = try connection.readResponse()

        server.stop()

        XCTAssertTrue(connection.serverClosed())
    }

    func test_stop_isIdempotent_andRefusesNewConnections() throws {
        let server = try LoopbackHTTPServer()

        server.stop()
        server.stop()

        XCTAssertThrowsError(try RawHTTPConnection(port: server.port)) { error in
            XCTAssertEqual("\(error)", "connect() failed: errno \(ECONNREFUSED)")
        }
    }

    func test_restart_onTheSamePortAfterStop_succeeds() async throws {
        let first = try LoopbackHTTPServer()
        first.route("GET", "/") { _ in .text("first") }
        _ = try await session.data(from: first.url("/"))
        let port = first.port
        first.stop()

        let second = try LoopbackHTTPServer(port: port)
        defer { second.stop() }
        second.route("GET", "/") { _ in .text("second") }
        let (data, _) = try await session.data(from: second.url("/"))

        XCTAssertEqual(second.port, port)
        XCTAssertEqual(String(decoding: data, as: UTF8.self), "second")
    }

    func test_bindingAPortInUse_throwsBindFailed() throws {
        let server = try LoopbackHTTPServer()
        defer { server.stop() }

        XCTAssertThrowsError(try LoopbackHTTPServer(port: server.port)) { error in
            XCTAssertEqual(error as? LoopbackHTTPServer.Error, .bindFailed(port: server.port, errno: EADDRINUSE))
        }
    }

    func test_releasingTheServer_stopsIt() throws {
        var server: LoopbackHTTPServer? = try LoopbackHTTPServer()
        let port = try XCTUnwrap(server?.port)

        server = nil

        XCTAssertThrowsError(try RawHTTPConnection(port: port))
    }

    // MARK: - Values

    func test_baseURLAndURL_pointAtTheServer() throws {
        let server = try LoopbackHTTPServer()
        defer { server.stop() }

        XCTAssertEqual(server.baseURL.absoluteString, "http://127.0.0.1:\(server.port)")
        XCTAssertEqual(server.url("/users?x=1").absoluteString, "http://127.0.0.1:\(server.port)/users?x=1")
        XCTAssertEqual(server.url("users").absoluteString, "http://127.0.0.1:\(server.port)/users")
    }

    func test_requestTarget_isSplitIntoPathAndQuery() {
        XCTAssertEqual(LoopbackRequest(method: "GET", target: "/a/b?x=1&y").path, "/a/b")
        XCTAssertEqual(LoopbackRequest(method: "GET", target: "/a/b?x=1&y").query, "x=1&y")
        XCTAssertEqual(LoopbackRequest(method: "GET", target: "/a").query, nil)
        XCTAssertEqual(LoopbackRequest(method: "GET", target: "/a?").query, "")
        XCTAssertEqual(LoopbackRequest(method: "GET", target: "http://h:1/p?q").path, "/p")
    }
}

/// Two handler calls meeting each other, to show they run at the same time.
private final class Arrivals: @unchecked Sendable {
    // `condition` guards `count`.
    private let condition = NSCondition()
    private var count = 0

    /// Counts this arrival and waits (up to five seconds) for a second one.
    func arriveAndWaitForOther() -> Bool {
        condition.lock()
        defer { condition.unlock() }
        count += 1
        condition.broadcast()
        let deadline = Date(timeIntervalSinceNow: 5)
        while count < 2 {
            if !condition.wait(until: deadline) { return false }
        }
        return true
    }
}
