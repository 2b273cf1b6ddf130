import Foundation
import HTTPCore
import HTTPCoreObservation
import HTTPCoreLoopback

/// What every ``/HTTPCore/HTTPTransport`` adapter owes its callers, as checks run against a real
/// loopback server: one list that the URLSession adapter, the AsyncHTTPClient adapter and
/// yours can all be held to.
///
/// ```swift
/// func testConformance() async throws {
///     let failures = await TransportConformance.run(transport: { MyTransport() })
///     XCTAssertEqual(failures, [])
/// }
/// ```
///
/// Each check gets a fresh loopback server and a fresh dispatcher with a
/// ``RecordingObserver``; the client is made by the closure for that dispatcher. A check
/// passes, or fails with a line that names it and says what differed.
public enum TransportConformance {
    /// One check: its name and what it does.
    public struct Check: Sendable {
        /// What the check is about, for reports and for the `only` names of the `run` methods.
        public let name: String
        /// Runs the check; throws a `Failure` when the client does not behave.
        package let run: @Sendable (Harness) async throws -> Void
    }

    /// What a check works with.
    package struct Harness: Sendable {
        /// The loopback server the requests go to.
        package let server: LoopbackHTTPServer
        /// The client under test, sending its events to ``recorder``.
        package let client: any HTTPClient
        /// Every event of the client.
        package let recorder: RecordingObserver
    }

    /// What a check throws when the client does not behave: what differed.
    package struct Failure: Error, CustomStringConvertible, Equatable {
        /// What differed.
        package let description: String

        /// Creates a failure with a description.
        package init(_ description: String) {
            self.description = description
        }
    }

    /// Runs every check, the streaming ones included (or the named ones), against a
    /// transport's one method, ``/HTTPCore/HTTPTransport/perform(_:body:)``, through an
    /// ``/HTTPCoreObservation/HTTPTransportClient`` around it.
    ///
    /// The client races no timer of its own, so the deadline checks hold the transport to its
    /// contract: the exchange ends by the request's timeout.
    ///
    /// - Parameters:
    ///   - names: The names of the checks to run; `nil` runs them all.
    ///   - makeTransport: Makes the transport of each check.
    /// - Returns: One line per check that failed, its name and what differed; empty when the
    ///   transport conforms.
    public static func run<Transport: HTTPTransport>(
        only names: Set<String>? = nil,
        transport makeTransport: @escaping @Sendable () -> Transport
    ) async -> [String] {
        await run(checks + streamingChecks(), only: names) { HTTPTransportClient(transport: makeTransport(), dispatcher: $0) }
    }

    /// Every check, in order.
    public static let checks: [Check] = [
        Check(name: "status codes are responses") { harness in
            for status in [200, 201, 204, 400, 404, 500, 503] {
                harness.server.route("/status/\(status)") { _ in LoopbackResponse(status: status, body: status == 204 ? Data() : Data("s".utf8)) }
                let response = try await harness.client.send(HTTPRequest(url: harness.server.url("/status/\(status)")))
                try expect(response.statusCode, status, "status")
            }
        },
        Check(name: "repeated headers both ways") { harness in
            harness.server.route("/headers") { request in
                var response = LoopbackResponse(body: Data(request.headers.values(for: "X-Tag").joined(separator: "|").utf8))
                response.headers.add(name: "X-Multi", value: "a")
                response.headers.add(name: "X-Multi", value: "b")
                return response
            }
            var headers: HTTPHeaders = [:]
            headers.add(name: "X-Tag", value: "one")
            headers.add(name: "X-Tag", value: "two")
            let response = try await harness.client.send(HTTPRequest(url: harness.server.url("/headers"), headers: headers))
            // Two fields, or one joined with a comma (URLSession joins them): the same to HTTP
            // (RFC 9110, section 5.3).
            func listed(_ values: [String]) -> [String] {
                values.flatMap { $0.split(whereSeparator: { $0 == "|" || $0 == "," }) }.map { $0.trimmingCharacters(in: .whitespaces) }
            }
            try expect(listed([String(decoding: response.body, as: UTF8.self)]), ["one", "two"], "request header values the server got")
            try expect(listed(response.headers.values(for: "X-Multi")), ["a", "b"], "response header values")
        },
        Check(name: "methods and bodies") { harness in
            harness.server.route("/echo") { request in LoopbackResponse(body: Data("\(request.method) ".utf8) + request.body) }
            for method in [HTTPMethod.post, .put, .patch, .delete] {
                let response = try await harness.client.send(HTTPRequest(method: method, url: harness.server.url("/echo"), body: Data("body".utf8)))
                try expect(String(decoding: response.body, as: UTF8.self), "\(method.rawValue) body", "echo")
            }
        },
        Check(name: "redirects end at the final URL") { harness in
            harness.server.route("/old") { _ in .redirect(to: "/new") }
            harness.server.route("/new") { _ in .text("new") }
            let response = try await harness.client.send(HTTPRequest(url: harness.server.url("/old")))
            try expect(response.statusCode, 200, "status")
            try expect(response.url, harness.server.url("/new"), "final URL")
        },
        Check(name: "a 50 MB response arrives whole") { harness in
            let size = 50 * 1024 * 1024
            harness.server.route("/large") { _ in LoopbackResponse(body: Data(repeating: 0x61, count: size)) }
            let response = try await harness.client.send(HTTPRequest(url: harness.server.url("/large"), timeout: 120))
            try expect(response.body.count, size, "body bytes")
        },
        Check(name: "the deadline is a timeout") { harness in
            harness.server.route("/slow") { _ in
                var response = LoopbackResponse.text("late")
                response.delay = 10
                return response
            }
            let started = Date()
            do {
                _ = try await harness.client.send(HTTPRequest(url: harness.server.url("/slow"), timeout: 0.5))
                throw Failure("no error")
            } catch let error as HTTPError {
                try expect(error, .timeout, "error")
            }
            guard Date().timeIntervalSince(started) < 8 else { throw Failure("the timeout came after \(Date().timeIntervalSince(started)) s") }
        },
        Check(name: "a refused connection cannot connect, without the query in its message") { harness in
            let closed = try LoopbackHTTPServer()
            let url = closed.url("/x?token=S3CR3T")
            closed.stop()
            do {
                _ = try await harness.client.send(HTTPRequest(url: url, timeout: 10))
                throw Failure("no error")
            } catch let error as HTTPError {
                guard error.code == .cannotConnect, let message = error.message else { throw Failure("got \(error)") }
                guard !message.contains("S3CR3T") else { throw Failure("the message shows the query: \(message)") }
            }
        },
        Check(name: "a connection closed before the response is complete is connection_lost") { harness in
            // Wherever the server stops, the caller learns the same thing: the request may have
            // been processed and the answer never came. RetryMiddleware then repeats a GET and
            // not a POST, on every transport alike.
            let cuts: [(place: String, fault: LoopbackResponse.Fault)] = [
                ("without a byte of answer", .raw(Data())),
                ("with a reset", .reset),
                ("inside the status line", .raw(Data("HTTP/1.1 200 O".utf8))),
                // Cut after a Content-Length line: FoundationNetworking in Swift 6.3 crashes the
                // process when a head without one ends after a complete line
                // (swift-corelibs-foundation issue 5285).
                ("inside the headers", .raw(Data("HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Ty".utf8))),
                ("after the head", .closeAfterHead),
                ("inside the body", .closeAfterBodyBytes(2)),
            ]
            for (index, cut) in cuts.enumerated() {
                harness.server.route("/cut/\(index)") { _ in
                    var response = LoopbackResponse(body: Data("hello".utf8))
                    response.fault = cut.fault
                    return response
                }
                for method in [HTTPMethod.get, .post] {
                    let request = HTTPRequest(
                        method: method, url: harness.server.url("/cut/\(index)"), body: method == .post ? Data("order".utf8) : nil, timeout: 10
                    )
                    do {
                        _ = try await harness.client.send(request)
                        throw Failure("a \(method) closed \(cut.place): no error")
                    } catch let error as HTTPError {
                        guard error.code == .connectionLost else {
                            throw Failure("a \(method) closed \(cut.place): expected connection_lost, got \(error)")
                        }
                    }
                }
            }
            try expect(harness.server.requests.count, cuts.count * 2, "requests the server read (each sent once, none repeated)")
        },
        Check(name: "an answer that is not HTTP is invalid_response") { harness in
            let answers: [(what: String, bytes: String)] = [
                ("not HTTP at all", "NOT HTTP AT ALL\r\n\r\n"),
                ("a status code that is not a number", "HTTP/1.1 2X0 OK\r\nContent-Length: 2\r\n\r\nok"),
            ]
            for (index, answer) in answers.enumerated() {
                harness.server.route("/garbage/\(index)") { _ in
                    var response = LoopbackResponse()
                    response.fault = .raw(Data(answer.bytes.utf8))
                    return response
                }
                do {
                    _ = try await harness.client.send(HTTPRequest(url: harness.server.url("/garbage/\(index)"), timeout: 10))
                    throw Failure("\(answer.what): no error")
                } catch let error as HTTPError {
                    try expect(error, .invalidResponse, answer.what)
                }
            }
        },
        Check(name: "1,000 concurrent requests, some cancelled, each ends once") { harness in
            harness.server.route("/work") { _ in
                var response = LoopbackResponse.text("done")
                response.delay = 0.02
                return response
            }
            var random = SeededRandomNumberGenerator(seed: 1_000)
            let cancelled = Set((0..<1_000).filter { _ in random.next(below: 5) == 0 })
            let client = harness.client
            let url = harness.server.url("/work")
            let outcomes = await withTaskGroup(of: String.self) { group in
                for index in 0..<1_000 {
                    let call = Task { () -> String in
                        do {
                            return "\(try await client.send(HTTPRequest(url: url, timeout: 60)).statusCode)"
                        } catch {
                            return "\(error)"
                        }
                    }
                    if cancelled.contains(index) { call.cancel() }
                    group.addTask { await call.value }
                }
                return await group.reduce(into: [String: Int]()) { $0[$1, default: 0] += 1 }.map { $0 }
            }
            let counts = Dictionary(uniqueKeysWithValues: outcomes)
            let unexpected = counts.keys.filter { $0 != "200" && $0 != "cancelled" }
            guard unexpected.isEmpty else { throw Failure("unexpected outcomes \(counts)") }
            try expect(counts.values.reduce(0, +), 1_000, "outcomes")
            guard (counts["cancelled"] ?? 0) <= cancelled.count else { throw Failure("more cancelled than asked: \(counts)") }
            let terminal = try await harness.recorder.waitForTerminalEvents(count: 1_000, timeout: 60).filter(\.name.isTerminal)
            try expect(terminal.count, 1_000, "terminal events")
            try expect(Set(terminal.map(\.requestID)).count, 1_000, "requests with a terminal event")
        },
    ]


    package static func expect<Value: Equatable>(_ actual: Value, _ expected: Value, _ what: String) throws {
        guard actual == expected else { throw Failure("\(what): expected \(expected), got \(actual)") }
    }
}
