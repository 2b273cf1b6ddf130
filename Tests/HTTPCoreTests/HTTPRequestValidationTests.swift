import Foundation
import HTTPCore
import HTTPCoreObservation
import HTTPCoreTesting
import XCTest

final class HTTPRequestValidationTests: XCTestCase {
    private let url = URL(string: "https://api.example.com/users")!

    /// The message `validate()` throws for `request`, or `nil` when it passes.
    private func problem(_ request: HTTPRequest) -> String? {
        do {
            try request.validate()
            return nil
        } catch {
            XCTAssertEqual(error.code, .invalidRequest)
            return error.message
        }
    }

    private func problem(url text: String) -> String? {
        problem(HTTPRequest(url: URL(string: text)!))
    }

    func testAnOrdinaryRequestPasses() {
        var request = HTTPRequest(method: .post, url: url, headers: ["Content-Type": "application/json", "X-Tab": "a\tb"], body: Data("{}".utf8), timeout: 5)
        request.headers.add(name: "X-Unicode", value: "café")
        XCTAssertNil(problem(request))
        XCTAssertNil(problem(url: "HTTP://Example.com:8080/a?b=c#d"))
        XCTAssertNil(problem(url: "http://[::1]:65535/"))
        XCTAssertNil(problem(url: "http://user:pw@example.com:1/"))
        XCTAssertNil(problem(url: "http://example.com:/empty-port-means-the-default"))
        XCTAssertNil(problem(url: "http://example.com:00080/"))
    }

    func testThePortIsNamedWithItsRange() {
        XCTAssertEqual(problem(url: "http://127.0.0.1:99999/"), "port 99999 is out of range 1…65535")
        XCTAssertEqual(problem(url: "http://127.0.0.1:0/"), "port 0 is out of range 1…65535")
        XCTAssertEqual(problem(url: "http://127.0.0.1:65536/"), "port 65536 is out of range 1…65535")
        // Foundation's URL.port is nil for this one: a transport would connect to port 80.
        XCTAssertEqual(problem(url: "http://h:999999999999999999999999/"), "port 999999999999999999999999 is out of range 1…65535")
        XCTAssertEqual(problem(url: "http://user:p:w@[::1]:70000/"), "port 70000 is out of range 1…65535")
    }

    func testTheURLNeedsAnHTTPSchemeAndAHost() {
        let noScheme = "url has no scheme: use an absolute http or https URL"
        XCTAssertEqual(problem(url: "users/1"), noScheme)
        XCTAssertEqual(problem(url: "//example.com/users/1"), noScheme)
        XCTAssertEqual(problem(url: "http://"), "url has no host")
        XCTAssertEqual(problem(url: "http:"), "url has no host")
        XCTAssertEqual(problem(url: "http://:8080/"), "url has no host")
        XCTAssertEqual(problem(url: "http://[]:80/"), "url has no host")
        XCTAssertEqual(problem(url: "http://[]/"), "url has no host")
        XCTAssertEqual(problem(url: "http:/a"), "url has no host")
        XCTAssertEqual(problem(url: "https:a"), "url has no host")
        XCTAssertEqual(problem(url: "ftp://example.com/"), #"url scheme "ftp" is not supported: use http or https"#)
        XCTAssertEqual(problem(url: "ws://example.com/"), #"url scheme "ws" is not supported: use http or https"#)
        XCTAssertEqual(problem(HTTPRequest(url: URL(fileURLWithPath: "/tmp"))), #"url scheme "file" is not supported: use http or https"#)
        XCTAssertEqual(problem(url: "http://exa%20mple.com/"), "url host has a space or a control character")
        XCTAssertEqual(problem(url: "http://%00/"), "url host has a space or a control character")
    }

    /// IPv4 addresses in forms transports read differently are refused with the form to write.
    func testAnIPv4AddressInAnOddFormIsRefusedWithTheFormToWrite() {
        XCTAssertEqual(problem(url: "http://[127.0.0.1]:8080/"),
                       "url host [127.0.0.1] is in brackets, which are for IPv6 addresses only: write an IPv4 address without them")
        XCTAssertEqual(problem(url: "http://127.1/"), "url host 127.1 is a shortened IPv4 address: write its four parts, 127.0.0.1")
        XCTAssertEqual(problem(url: "http://10.1.2:80/a"), "url host 10.1.2 is a shortened IPv4 address: write its four parts, 10.1.0.2")
        XCTAssertEqual(problem(url: "http://2130706433/"), "url host 2130706433 is an IPv4 address written as one number: write its four parts, 127.0.0.1")
        XCTAssertEqual(problem(url: "http://4294967296/"), "url host 4294967296 is not an IPv4 address: write its four parts, each 0 to 255")
        XCTAssertEqual(problem(url: "http://127.256/"), "url host 127.256 is a shortened IPv4 address: write its four parts, 127.0.1.0")
        XCTAssertEqual(problem(url: "http://300.1/"), "url host 300.1 is not an IPv4 address: write its four parts, each 0 to 255")
        // Four parts, an IPv6 literal, a name that starts with a digit, and a trailing dot are
        // left alone.
        for url in ["http://127.0.0.1/", "http://[::1]:8080/", "http://[::ffff:127.0.0.1]/", "http://1password.com/", "http://3.example/", "http://127.0.0.1./"] {
            XCTAssertNil(problem(url: url), url)
        }
    }

    func testTheURLLengthHasALimit() {
        let path = String(repeating: "a", count: HTTPRequest.maximumURLBytes)
        XCTAssertEqual(
            problem(url: "http://h/" + path),
            "url is \(HTTPRequest.maximumURLBytes + 9) bytes long, over the limit of 65536 (HTTPRequest.maximumURLBytes)"
        )
        XCTAssertNil(problem(url: "http://h/" + path.dropFirst(9)))
    }

    func testTimeoutsMustBePositive() {
        let rule = ": give seconds above 0, or nil for no deadline"
        XCTAssertEqual(problem(HTTPRequest(url: url, timeout: -1)), "timeout -1.0 s is not above 0" + rule)
        XCTAssertEqual(problem(HTTPRequest(url: url, timeout: 0)), "timeout 0.0 s is not above 0" + rule)
        XCTAssertEqual(problem(HTTPRequest(url: url, timeout: -.infinity)), "timeout -inf s is not above 0" + rule)
        XCTAssertEqual(problem(HTTPRequest(url: url, timeout: .nan)), "timeout is not a number (NaN)" + rule)
        XCTAssertNil(problem(HTTPRequest(url: url, timeout: .infinity)))
        XCTAssertNil(problem(HTTPRequest(url: url, timeout: 0.001)))
        XCTAssertNil(problem(HTTPRequest(url: url, timeout: nil)))
    }

    func testHeaderNamesMustBeTokensAndValuesFreeOfControlCharacters() {
        XCTAssertEqual(
            problem(HTTPRequest(url: url, headers: ["X Foo": "1"])),
            #"header name "X Foo" is not a token: letters, digits and !#$%&'*+-.^_`|~ only"#
        )
        XCTAssertEqual(
            problem(HTTPRequest(url: url, headers: ["X-Foo\r\nHost": "1"])),
            #"header name "X-Foo\r\nHost" is not a token: letters, digits and !#$%&'*+-.^_`|~ only"#
        )
        XCTAssertEqual(problem(HTTPRequest(url: url, headers: ["": "1"])), "header name is empty")
        let rule = ": values may not hold CR, LF, NUL or other control characters but tab"
        XCTAssertEqual(
            problem(HTTPRequest(url: url, headers: ["Authorization": "Bearer s3cr3t\r\nX-Injected: 1"])),
            #"header "Authorization" value has CR at byte 13"# + rule
        )
        XCTAssertEqual(problem(HTTPRequest(url: url, headers: ["A": "x\ny"])), #"header "A" value has LF at byte 1"# + rule)
        XCTAssertEqual(problem(HTTPRequest(url: url, headers: ["A": "\u{0}"])), #"header "A" value has NUL at byte 0"# + rule)
        XCTAssertEqual(
            problem(HTTPRequest(url: url, headers: ["A": "b\u{7F}"])), #"header "A" value has the control character 0x7F at byte 1"# + rule
        )
    }

    /// Values are read 8 bytes at a time: every forbidden byte is found, and named at its
    /// offset, wherever it falls in a word or in the tail after the last whole word; a tab, a
    /// byte of 0x80 or over and every other allowed byte pass wherever they fall.
    func testEveryForbiddenValueByteIsFoundAtEveryOffset() {
        let rule = ": values may not hold CR, LF, NUL or other control characters but tab"
        let forbidden = (0x00...0x1F).filter { $0 != 0x09 } + [0x7F]
        for byte in forbidden.map(UInt8.init) {
            for offset in 0..<19 {
                var bytes = [UInt8](repeating: UInt8(ascii: "a"), count: 19)
                bytes[offset] = byte
                let name = byte == 0x0D ? "CR" : byte == 0x0A ? "LF" : byte == 0 ? "NUL" : "the control character 0x" + String(byte, radix: 16, uppercase: true)
                XCTAssertEqual(
                    problem(HTTPRequest(url: url, headers: ["A": String(decoding: bytes, as: UTF8.self)])),
                    "header \"A\" value has \(name) at byte \(offset)" + rule
                )
            }
        }
        let allowed = [0x09] + Array(0x20...0x7E)
        for byte in allowed.map(UInt8.init) {
            for offset in 0..<19 {
                var bytes = [UInt8](repeating: UInt8(ascii: "a"), count: 19)
                bytes[offset] = byte
                XCTAssertNil(problem(HTTPRequest(url: url, headers: ["A": String(decoding: bytes, as: UTF8.self)])), "\(byte) at \(offset)")
            }
        }
        XCTAssertNil(problem(HTTPRequest(url: url, headers: ["A": String(repeating: "é\u{7FF}\u{FFFF}\u{10FFFF}", count: 5)])))
        XCTAssertEqual(
            problem(HTTPRequest(url: url, headers: ["A": String(repeating: "é", count: 8) + "\t\u{1F}"])),
            "header \"A\" value has the control character 0x1F at byte 17" + rule
        )
    }

    func testMessagesNeverQuoteAHeaderValueOrTheURLBeyondSchemeAndPort() {
        let messages = [
            problem(HTTPRequest(url: URL(string: "https://user:s3cr3t@h:99999/p?token=s3cr3t")!)),
            problem(HTTPRequest(url: URL(string: "https://exa%20mple/s3cr3t?token=s3cr3t")!)),
            problem(HTTPRequest(url: url, headers: ["Authorization": "s3cr3t\n"])),
            // A framing field set from the wrong variable.
            problem(HTTPRequest(url: url, headers: ["Content-Length": "s3cr3t"])),
            problem(HTTPRequest(method: .post, url: url, headers: ["Content-Length": "3, s3cr3t"], body: Data("abc".utf8))),
        ]
        XCTAssertEqual(messages.compactMap { $0 }.count, 5)
        for message in messages { XCTAssertFalse(message?.contains("s3cr3t") ?? true, message ?? "") }
        // A whole line pasted as the name: quoted as events show the name.
        XCTAssertEqual(
            problem(HTTPRequest(url: url, headers: ["X-Debug-Authorization: Bearer s3cr3t": "1"])),
            #"header name "X-Debug-Authorization: Bearer [REDACTED]" is not a token: letters, digits and !#$%&'*+-.^_`|~ only"#
        )
    }

    func testAContentLengthTheCallerSetsMustBeTheBodysLength() async throws {
        let rule = ": leave it out, the transport sets it"
        XCTAssertNil(problem(HTTPRequest(method: .post, url: url, headers: ["Content-Length": "3"], body: Data("abc".utf8))))
        XCTAssertNil(problem(HTTPRequest(method: .post, url: url, headers: ["Content-Length": "3, 3"], body: Data("abc".utf8))))
        XCTAssertNil(problem(HTTPRequest(url: url, headers: ["Content-Length": "0"])))
        XCTAssertEqual(
            problem(HTTPRequest(method: .post, url: url, headers: ["Transfer-Encoding": "chunked"], body: Data("abc".utf8))),
            "header Transfer-Encoding is the transport's to set: leave it out (a streamed body of unknown length is sent chunked)"
        )
        // Sent with a body that never comes, a server waits for it: the exchange would hang.
        XCTAssertEqual(problem(HTTPRequest(url: url, headers: ["Content-Length": "1"])), "header Content-Length is not the body's length, 0 bytes" + rule)
        XCTAssertEqual(
            problem(HTTPRequest(method: .post, url: url, headers: ["Content-Length": "-5"], body: Data("abc".utf8))),
            "header Content-Length is not the body's length, 3 bytes" + rule
        )
        XCTAssertEqual(
            problem(HTTPRequest(method: .post, url: url, headers: ["Content-Length": "3, 4"], body: Data("abc".utf8))),
            "header Content-Length is not the body's length, 3 bytes" + rule
        )

        let transport = MockTransport()
        let client = HTTPTransportClient(transport: transport, dispatcher: HTTPEventDispatcher())
        let streamed = HTTPBody(AsyncThrowingStream { $0.finish() }, length: .unknown)
        do {
            try await client.send(HTTPRequest(method: .post, url: url, headers: ["Content-Length": "5"]), body: streamed) { _, _ in }
            XCTFail("expected an error")
        } catch let error as HTTPError {
            XCTAssertEqual(
                error.message,
                "header Content-Length is set for a streamed body of unknown length: give the body its length (HTTPBody(length:)) instead"
            )
        }
        try await client.send(HTTPRequest(method: .post, url: url, headers: ["Content-Length": "2"]), body: HTTPBody(Data("ab".utf8))) { _, _ in }
        XCTAssertEqual(transport.requests.count, 1)
    }

    func testATraceRequestHasNoBody() {
        XCTAssertEqual(
            problem(HTTPRequest(method: .trace, url: url, body: Data("x".utf8))),
            "body: a TRACE request has no body (RFC 9110, section 9.3.8)"
        )
        XCTAssertNil(problem(HTTPRequest(method: .trace, url: url, body: Data())))
    }

    func testTheClientRefusesAnInvalidRequestBeforeTheTransportWithEvents() async throws {
        let dispatcher = HTTPEventDispatcher()
        let recorder = RecordingObserver()
        dispatcher.subscribe(recorder)
        let transport = MockTransport()
        let client = HTTPTransportClient(transport: transport, dispatcher: dispatcher)
        let request = HTTPRequest(url: URL(string: "http://127.0.0.1:99999/")!)
        do {
            _ = try await client.send(request)
            XCTFail("expected an error")
        } catch let error as HTTPError {
            XCTAssertEqual(error, .transport(.invalidRequest, message: "port 99999 is out of range 1…65535"))
        }
        XCTAssertEqual(transport.requests.count, 0)
        let events = try await recorder.waitForTerminalEvents(count: 1)
        XCTAssertEqual(events.map(\.name), [.requestCreated, .requestFailed])
        XCTAssertEqual(events.last?.error?.message, "port 99999 is out of range 1…65535")
        XCTAssertEqual(events.last?.attempt, 0)
    }

    func testTheClientRefusesAnInvalidRequestWithoutObserversToo() async throws {
        let transport = MockTransport()
        let client = HTTPTransportClient(transport: transport, dispatcher: HTTPEventDispatcher())
        do {
            _ = try await client.send(HTTPRequest(url: url, timeout: .nan))
            XCTFail("expected an error")
        } catch let error as HTTPError {
            XCTAssertEqual(error.code, .invalidRequest)
        }
        XCTAssertEqual(transport.requests.count, 0)
    }

    func testARequestAMiddlewareBrokeIsRefusedBeforeTheTransport() async throws {
        struct InjectingMiddleware: HTTPMiddleware {
            func intercept(
                _ request: HTTPRequest, body: HTTPBody?, context: HTTPMiddlewareContext, next: HTTPMiddlewareNext
            ) async throws -> (HTTPResponse.Head, HTTPBody) {
                var request = request
                request.headers.add(name: "X-Trace", value: "a\r\nb")
                return try await next(request, body)
            }
        }
        let transport = MockTransport()
        for observed in [true, false] {
            let dispatcher = HTTPEventDispatcher()
            if observed { dispatcher.subscribe(RecordingObserver()) }
            let client = HTTPTransportClient(transport: transport, middlewares: [InjectingMiddleware()], dispatcher: dispatcher)
            do {
                _ = try await client.send(HTTPRequest(url: url))
                XCTFail("expected an error")
            } catch let error as HTTPError {
                XCTAssertEqual(error.message, #"header "X-Trace" value has CR at byte 1: values may not hold CR, LF, NUL or other control characters but tab"#)
            }
            // The streaming send checks what the middleware passes on too.
            do {
                try await client.send(HTTPRequest(url: url)) { _, _ in XCTFail("no response expected") }
                XCTFail("expected an error")
            } catch let error as HTTPError {
                XCTAssertEqual(error.message, #"header "X-Trace" value has CR at byte 1: values may not hold CR, LF, NUL or other control characters but tab"#)
            }
        }
        XCTAssertEqual(transport.requests.count, 0)
    }

    func testHeadersAMiddlewareKeptAreCheckedAgainForFramingAndOnesItChangedOrAddedWhole() async throws {
        /// Passes the request on with its headers and body changed by `change`.
        struct ChangingMiddleware: HTTPMiddleware {
            let change: @Sendable (inout HTTPRequest) -> Void
            func intercept(
                _ request: HTTPRequest, body: HTTPBody?, context: HTTPMiddlewareContext, next: HTTPMiddlewareNext
            ) async throws -> (HTTPResponse.Head, HTTPBody) {
                var request = request
                change(&request)
                return try await next(request, body)
            }
        }
        let caller = HTTPRequest(
            method: .post, url: url, headers: ["Accept": "*/*", "Content-Length": "2", "X-TenantK": "acme"], body: Data("{}".utf8)
        )
        let cases: [(String, @Sendable (inout HTTPRequest) -> Void, String)] = [
            ("a body of another length under the caller's Content-Length", { $0.body = Data("{\"a\":1}".utf8) },
             "header Content-Length is not the body's length, 7 bytes: leave it out, the transport sets it"),
            ("a kept field's value changed", { $0.headers["X-TenantK"] = "ac\u{0}me" },
             #"header "X-TenantK" value has NUL at byte 2: values may not hold CR, LF, NUL or other control characters but tab"#),
            ("a kept field's name respelled with the Kelvin sign, equal as a Swift string", { request in
                request.headers = HTTPHeaders(request.headers.map { $0.name == "X-TenantK" ? .init(name: "X-Tenant\u{212A}", value: $0.value) : $0 })
                XCTAssertEqual("X-TenantK", "X-Tenant\u{212A}")
            }, #"header name "X-Tenant\#u{212A}" is not a token: letters, digits and !#$%&'*+-.^_`|~ only"#),
            ("a field added after the kept ones", { $0.headers.add(name: "Bad Name", value: "x") },
             #"header name "Bad Name" is not a token: letters, digits and !#$%&'*+-.^_`|~ only"#),
        ]
        let transport = MockTransport()
        for (situation, change, message) in cases {
            let client = HTTPTransportClient(
                transport: transport, middlewares: [ChangingMiddleware(change: change)], dispatcher: HTTPEventDispatcher()
            )
            do {
                _ = try await client.send(caller)
                XCTFail("expected an error: \(situation)")
            } catch let error as HTTPError {
                XCTAssertEqual(error.message, message, situation)
            }
            do {
                try await client.send(caller) { _, _ in XCTFail("no response expected: \(situation)") }
                XCTFail("expected an error: \(situation)")
            } catch let error as HTTPError {
                XCTAssertEqual(error.message, message, "streamed: \(situation)")
            }
        }
        XCTAssertEqual(transport.requests.count, 0)
        let adding = ChangingMiddleware { $0.headers.add(name: "traceparent", value: "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01") }
        _ = try await HTTPTransportClient(transport: transport, middlewares: [adding], dispatcher: HTTPEventDispatcher()).send(caller)
        XCTAssertEqual(transport.requests.map { $0.headers.map(\.name) }, [["Accept", "Content-Length", "X-TenantK", "traceparent"]])
    }

    func testAURLAMiddlewareChangedIsCheckedAgainAndOneItKeptIsSentAsChecked() async throws {
        struct MovingMiddleware: HTTPMiddleware {
            let target: URL
            func intercept(
                _ request: HTTPRequest, body: HTTPBody?, context: HTTPMiddlewareContext, next: HTTPMiddlewareNext
            ) async throws -> (HTTPResponse.Head, HTTPBody) {
                var request = request
                request.url = target
                return try await next(request, body)
            }
        }
        let transport = MockTransport()
        for observed in [true, false] {
            let dispatcher = HTTPEventDispatcher()
            if observed { dispatcher.subscribe(RecordingObserver()) }
            let toFTP = MovingMiddleware(target: URL(string: "ftp://files.example.com/x")!)
            let refused = HTTPTransportClient(transport: transport, middlewares: [toFTP], dispatcher: dispatcher)
            do {
                _ = try await refused.send(HTTPRequest(url: url))
                XCTFail("expected an error")
            } catch let error as HTTPError {
                XCTAssertEqual(error.message, #"url scheme "ftp" is not supported: use http or https"#)
            }
            do {
                try await refused.send(HTTPRequest(url: url)) { _, _ in XCTFail("no response expected") }
                XCTFail("expected an error")
            } catch let error as HTTPError {
                XCTAssertEqual(error.message, #"url scheme "ftp" is not supported: use http or https"#)
            }
            let upper = MovingMiddleware(target: URL(string: "HTTP://api.example.com/moved")!)
            _ = try await HTTPTransportClient(transport: transport, middlewares: [upper], dispatcher: dispatcher).send(HTTPRequest(url: url))
            // A middleware that keeps the caller's URL passes it on as it was checked.
            _ = try await HTTPTransportClient(transport: transport, middlewares: [RetryMiddleware()], dispatcher: dispatcher)
                .send(HTTPRequest(url: URL(string: "HTTPS://api.example.com/kept")!))
        }
        XCTAssertEqual(
            transport.requests.map(\.url.absoluteString),
            ["http://api.example.com/moved", "https://api.example.com/kept", "http://api.example.com/moved", "https://api.example.com/kept"]
        )
    }

    func testAPolicysCorrelationHeaderThatIsNoTokenFailsTheRequestBeforeAnyTransportSeesIt() async throws {
        // The header the policy adds is checked with the caller's, with or without middlewares,
        // buffered or streamed: it used to be added after the check, so only a middleware's
        // request was checked with it.
        var policy = HTTPCorePolicy.debug
        policy.correlationHeaderName = "X Correlation ID"
        let passThrough = ClosureMiddleware { request, next in try await next(request) }
        for middlewares in [[], [passThrough]] as [[any HTTPMiddleware]] {
            let transport = MockTransport()
            let client = HTTPTransportClient(transport: transport, middlewares: middlewares, dispatcher: HTTPEventDispatcher(), policy: policy)
            var messages: [String] = []
            for streamed in [false, true] {
                do {
                    if streamed {
                        _ = try await client.send(HTTPRequest(url: url), body: nil)
                    } else {
                        _ = try await client.send(HTTPRequest(url: url))
                    }
                    XCTFail("sent with \(middlewares.count) middlewares, streamed: \(streamed)")
                } catch let error as HTTPError {
                    XCTAssertEqual(error.code, .invalidRequest)
                    messages.append(error.message ?? "")
                }
            }
            XCTAssertEqual(transport.requests.count, 0, "\(middlewares.count) middlewares")
            XCTAssertEqual(messages.count, 2)
            XCTAssertTrue(messages.allSatisfy { $0.contains("\"X Correlation ID\" is not a token") }, "\(messages)")
        }
    }

    func testAnInfiniteTimeoutReachesTheTransportAsNoDeadline() async throws {
        let transport = MockTransport()
        let client = HTTPTransportClient(transport: transport, dispatcher: HTTPEventDispatcher())
        _ = try await client.send(HTTPRequest(url: url, timeout: .infinity))
        _ = try await client.send(HTTPRequest(url: url, timeout: 1e300))
        _ = try await client.send(HTTPRequest(url: url, timeout: 30))
        XCTAssertEqual(transport.requests.map(\.timeout), [nil, nil, 30])
    }

    func testTheTransportGetsTheSchemeInLowercase() async throws {
        // FoundationNetworking takes `HTTP://` for an unsupported URL; RFC 3986 says it is `http://`.
        let transport = MockTransport()
        let client = HTTPTransportClient(transport: transport, dispatcher: HTTPEventDispatcher())
        _ = try await client.send(HTTPRequest(url: URL(string: "HTTPS://user:pw@Example.com:8443/a%20b?q=1#f")!))
        XCTAssertEqual(transport.requests.map(\.url.absoluteString), ["https://user:pw@Example.com:8443/a%20b?q=1#f"])
    }

    func testASchemeWithAnUppercaseLetterAnywhereReachesTheTransportInLowercaseAndALowercaseOneAsItWas() async throws {
        let transport = MockTransport()
        let client = HTTPTransportClient(transport: transport, dispatcher: HTTPEventDispatcher())
        let urls = [
            URL(string: "httP://example.com/last")!, URL(string: "hTtps://example.com/middle")!,
            URL(string: "b?q=1", relativeTo: URL(string: "HTTP://example.com/a/")!)!, URL(string: "https://example.com/as-it-was")!,
        ]
        for url in urls { _ = try await client.send(HTTPRequest(url: url)) }
        XCTAssertEqual(transport.requests.map(\.url.absoluteString), [
            "http://example.com/last", "https://example.com/middle", "http://example.com/a/b?q=1", "https://example.com/as-it-was",
        ])
        XCTAssertEqual(transport.requests.last?.url, urls.last, "a lowercase scheme's URL is handed over as the caller made it")
    }

    func testTheStreamingSendRefusesAnInvalidRequestWithEvents() async throws {
        let dispatcher = HTTPEventDispatcher()
        let recorder = RecordingObserver()
        dispatcher.subscribe(recorder)
        let transport = MockTransport()
        let client = HTTPTransportClient(transport: transport, dispatcher: dispatcher)
        do {
            try await client.send(HTTPRequest(url: URL(string: "ftp://example.com/")!)) { _, _ in XCTFail("no response expected") }
            XCTFail("expected an error")
        } catch let error as HTTPError {
            XCTAssertEqual(error.message, #"url scheme "ftp" is not supported: use http or https"#)
        }
        XCTAssertEqual(transport.requests.count, 0)
        let events = try await recorder.waitForTerminalEvents(count: 1)
        XCTAssertEqual(events.map(\.name), [.requestCreated, .requestFailed])
        do {
            try await client.send(HTTPRequest(method: .trace, url: url), body: HTTPBody(Data("x".utf8))) { _, _ in XCTFail("no response expected") }
            XCTFail("expected an error")
        } catch let error as HTTPError {
            XCTAssertEqual(error.message, "body: a TRACE request has no body (RFC 9110, section 9.3.8)")
        }
        XCTAssertEqual(transport.requests.count, 0)
    }

    /// What a request with both bodies is refused with.
    private let twoBodies = HTTPError.transport(
        .invalidRequest,
        message: "body: request.body and the streamed body are both set; a request has one body: leave request.body nil to stream one"
    )

    func testAStreamedSendOfARequestThatCarriesABodyTooIsRefusedBeforeTheTransportWithEvents() async throws {
        let dispatcher = HTTPEventDispatcher()
        let recorder = RecordingObserver()
        dispatcher.subscribe(recorder)
        let transport = MockTransport()
        let client = HTTPTransportClient(transport: transport, dispatcher: dispatcher)
        let request = HTTPRequest(method: .post, url: url, body: Data("kept".utf8))
        do {
            _ = try await client.send(request, body: HTTPBody(Data("streamed".utf8)))
            XCTFail("expected an error")
        } catch let error as HTTPError {
            XCTAssertEqual(error, twoBodies)
        }
        do {
            try await client.send(request, body: HTTPBody(Data("streamed".utf8))) { _, _ in XCTFail("no response expected") }
            XCTFail("expected an error")
        } catch let error as HTTPError {
            XCTAssertEqual(error, twoBodies)
        }
        XCTAssertEqual(transport.requests.count, 0)
        let events = try await recorder.waitForTerminalEvents(count: 2)
        XCTAssertEqual(events.map(\.name), [.requestCreated, .requestFailed, .requestCreated, .requestFailed])
        XCTAssertEqual(events.last?.error?.message, twoBodies.message)
        // Either body alone is sent.
        _ = try await client.send(request, body: nil)
        _ = try await client.send(HTTPRequest(method: .post, url: url), body: HTTPBody(Data("streamed".utf8)))
        XCTAssertEqual(transport.requests.map(\.body), [Data("kept".utf8), Data("streamed".utf8)])
    }

    func testAMiddlewareThatPassesOnBothBodiesIsRefusedBeforeTheTransport() async throws {
        /// Streams a body of its own and leaves the request's in place.
        struct StreamingMiddleware: HTTPMiddleware {
            func intercept(
                _ request: HTTPRequest, body: HTTPBody?, context: HTTPMiddlewareContext, next: HTTPMiddlewareNext
            ) async throws -> (HTTPResponse.Head, HTTPBody) {
                var request = request
                request.body = Data("kept".utf8)
                return try await next(request, HTTPBody(Data("streamed".utf8)))
            }
        }
        let transport = MockTransport()
        let client = HTTPTransportClient(transport: transport, middlewares: [StreamingMiddleware()], dispatcher: HTTPEventDispatcher())
        do {
            _ = try await client.send(HTTPRequest(method: .post, url: url))
            XCTFail("expected an error")
        } catch let error as HTTPError {
            XCTAssertEqual(error, twoBodies, "a buffered call")
        }
        do {
            try await client.send(HTTPRequest(method: .post, url: url)) { _, _ in XCTFail("no response expected") }
            XCTFail("expected an error")
        } catch let error as HTTPError {
            XCTAssertEqual(error, twoBodies, "a streamed call")
        }
        XCTAssertEqual(transport.requests.count, 0)
    }
}
