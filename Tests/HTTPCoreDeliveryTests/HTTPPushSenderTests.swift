import Foundation
import HTTPCore
import HTTPCoreConcurrency
import HTTPCoreDelivery
import HTTPCoreLoopback
import HTTPCoreURLSession
import XCTest

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The push sender against a real loopback server: each answer becomes one exact outcome,
/// whichever sink sends.
final class HTTPPushSenderTests: XCTestCase {
    private var server: LoopbackHTTPServer!
    private var session: URLSession!

    override func setUpWithError() throws {
        server = try LoopbackHTTPServer()
        session = URLSession(configuration: URLSessionClient.makeDefaultConfiguration())
    }

    override func tearDown() {
        server.stop()
        session.finishTasksAndInvalidate()
    }

    private func sender(
        to url: URL,
        timeout: TimeInterval = 10,
        transport: (any HTTPTransport)? = nil,
        redactor: Redactor = .standard,
        verifiesSuccess: @escaping @Sendable (HTTPResponse) -> String? = { _ in nil }
    ) -> HTTPPushSender<String> {
        HTTPPushSender(
            transport: transport ?? URLSessionTransport(session: session),
            url: { url },
            headers: ["Content-Type": "text/plain; charset=utf-8"],
            timeout: timeout,
            redactor: redactor,
            verifiesSuccess: verifiesSuccess
        ) { lines in Data(lines.joined(separator: "\n").utf8) }
    }

    private static func answer(_ status: Int, _ body: String = "", headers: HTTPHeaders = [:]) -> LoopbackResponse {
        LoopbackResponse(status: status, headers: headers, body: Data(body.utf8))
    }

    func testEachAnswerIsClassifiedAsOneExactOutcome() async throws {
        var notHTTP = LoopbackResponse()
        notHTTP.fault = .raw(Data("NOT HTTP AT ALL\r\n\r\n".utf8))
        let rows: [(name: String, answer: LoopbackResponse, expected: DeliveryOutcome)] = [
            ("200", Self.answer(200, "ok"), .delivered),
            ("201 with JSON", .json(#"{"id":"1"}"#, status: 201), .delivered),
            ("204", Self.answer(204), .delivered),
            ("400: refused, the body's start is the reason", Self.answer(400, " bad labels: {app=\"\"}\n"), .rejected(status: 400, reason: "bad labels: {app=\"\"}")),
            ("400 with a long body", Self.answer(400, String(repeating: "x", count: 500)), .rejected(status: 400, reason: String(repeating: "x", count: 200))),
            ("413", Self.answer(413), .rejected(status: 413, reason: "")),
            ("404", Self.answer(404, "not found"), .rejected(status: 404, reason: "not found")),
            ("408", Self.answer(408), .retryable(status: 408, retryAfter: nil)),
            ("429 with Retry-After", Self.answer(429, headers: ["Retry-After": "7"]), .retryable(status: 429, retryAfter: 7)),
            ("429 without Retry-After", Self.answer(429), .retryable(status: 429, retryAfter: nil)),
            ("500", Self.answer(500, "boom"), .retryable(status: 500, retryAfter: nil)),
            ("503: its Retry-After is not read", Self.answer(503, headers: ["Retry-After": "7"]), .retryable(status: 503, retryAfter: nil)),
            ("502 with a body that is not JSON", .json("{not json", status: 502), .retryable(status: 502, retryAfter: nil)),
            ("an answer that is not HTTP", notHTTP, .retryable(status: 0, retryAfter: nil)),
        ]
        for (index, row) in rows.enumerated() {
            server.route("/\(index)") { _ in row.answer }
            let outcome = await sender(to: server.url("/\(index)")).send(Data("line".utf8))
            XCTAssertEqual(outcome, row.expected, row.name)
        }
    }

    func testARefusedAnswerPassesTheSinksRedactorBeforeItsStartBecomesTheReason() async throws {
        let echo = "invalid push: Authorization: Bearer abc123def, stream_key=SK-991 from tenant team-a"
        let json = #"{"error":"bad credentials","password":"hunter2","hint":"\#(String(repeating: "x", count: 300))"}"#
        server.route("/text") { _ in Self.answer(400, echo) }
        server.route("/json") { _ in .json(json, status: 401) }
        let standard = await sender(to: server.url("/text")).send(Data("line".utf8))
        XCTAssertEqual(standard, .rejected(status: 400, reason: "invalid push: Authorization: Bearer [REDACTED], stream_key=SK-991 from tenant team-a"))
        let own = await sender(to: server.url("/text"), redactor: Redactor(sensitiveBodyKeys: ["stream_key"])).send(Data("line".utf8))
        XCTAssertEqual(own, .rejected(status: 400, reason: "invalid push: Authorization: Bearer [REDACTED], stream_key=[REDACTED] from tenant team-a"))
        let strict = await sender(to: server.url("/text"), redactor: .strict).send(Data("line".utf8))
        XCTAssertEqual(strict, .rejected(status: 400, reason: "[REDACTED: \(echo.utf8.count) bytes of unknown type]"), "at .strict a text body is only its size")
        // Redacted as its type, then cut at 200 bytes.
        let redactedJSON = #"{"error":"bad credentials","password":"[REDACTED]","hint":""# + String(repeating: "x", count: 300) + #""}"#
        let cut = await sender(to: server.url("/json")).send(Data("line".utf8))
        XCTAssertEqual(cut, .rejected(status: 401, reason: String(redactedJSON.prefix(200))))
    }

    func testNoAnswerIsUnreachableWithTheFailureAndTheHostAndPort() async throws {
        server.route("/reset") { _ in
            var response = LoopbackResponse()
            response.fault = .reset
            return response
        }
        let reset = await sender(to: server.url("/reset")).send(Data())
        XCTAssertEqual(reset, .unreachable(reason: "connection_lost at 127.0.0.1:\(server.port)"))

        let port = server.port
        server.stop()
        let refused = await sender(to: URL(string: "http://127.0.0.1:\(port)/push?token=secret")!).send(Data())
        XCTAssertEqual(refused, .unreachable(reason: "cannot_connect at 127.0.0.1:\(port)"))
    }

    func testAHangPastTheTimeoutIsUnreachable() async throws {
        server.route("/hang") { _ in
            var response = LoopbackResponse()
            response.delay = 30
            return response
        }
        let outcome = await sender(to: server.url("/hang"), timeout: 1).send(Data())
        XCTAssertEqual(outcome, .unreachable(reason: "timeout at 127.0.0.1:\(server.port)"))
    }

    func testATransportThatIgnoresTheTimeoutIsCutOffASecondAfterIt() async throws {
        let started = Date()
        let outcome = await sender(to: server.url("/push"), timeout: 0.2, transport: HangingTransport()).send(Data())
        XCTAssertEqual(outcome, .unreachable(reason: "timeout at 127.0.0.1:\(server.port)"))
        XCTAssertLessThan(Date().timeIntervalSince(started), 30, "bounded by the deadline, not by the transport")
    }

    func testASuccessTheSinkDoesNotRecognizeIsRejectedWithItsReason() async throws {
        server.route("/push") { _ in .text("<html>captive portal</html>") }
        let verifying = sender(to: server.url("/push")) { answer in
            answer.body.first == UInt8(ascii: "{") ? nil : "not the collector's answer"
        }
        let outcome = await verifying.send(Data())
        XCTAssertEqual(outcome, .rejected(status: 200, reason: "not the collector's answer"))
    }

    func testABatchIsOnePostWithTheHeadersBodyAndTheURLReadAtEachSend() async throws {
        server.route("/a") { _ in Self.answer(204) }
        server.route("/b") { _ in Self.answer(204) }
        let path = Locked("/a")
        let server = server!
        let sender = HTTPPushSender<String>(
            transport: URLSessionTransport(session: session),
            url: { server.url(path.withLock { $0 }) },
            headers: ["Content-Type": "text/plain; charset=utf-8", "X-Scope-OrgID": "team-a"],
            timeout: 10
        ) { lines in Data(lines.joined(separator: "\n").utf8) }

        let batch = sender.makeBatch(["first", "second"])
        let first = await sender.send(batch)
        path.withLock { $0 = "/b" }
        let second = await sender.send(batch)
        XCTAssertEqual([first, second], [.delivered, .delivered])

        let requests = server.requests
        XCTAssertEqual(requests.map(\.method), ["POST", "POST"])
        XCTAssertEqual(requests.map(\.path), ["/a", "/b"])
        XCTAssertEqual(requests.map(\.bodyText), ["first\nsecond", "first\nsecond"])
        XCTAssertEqual(requests.first?.headers["X-Scope-OrgID"], "team-a")
        XCTAssertEqual(requests.first?.headers["Content-Type"], "text/plain; charset=utf-8")
    }
}

/// A transport that never answers and ignores the request's timeout (it does honour
/// cancellation, which ends it).
private struct HangingTransport: HTTPBufferedTransport {
    func perform(_ request: HTTPRequest) async throws -> HTTPResponse {
        try await Task.sleep(nanoseconds: 3_600 * 1_000_000_000)
        throw CancellationError()
    }
}
