import Foundation
import HTTPCore
import HTTPCoreObservation
import HTTPCoreTesting
import XCTest

final class HTTPCorePolicyTests: XCTestCase {
    private func terminalEvent(
        policy: HTTPCorePolicy,
        request: HTTPRequest,
        reply: MockTransport.Reply = .status(200)
    ) async throws -> (HTTPEvent, MockTransport) {
        let dispatcher = HTTPEventDispatcher()
        let recorder = RecordingObserver()
        dispatcher.subscribe(recorder)
        let transport = MockTransport(default: reply)
        _ = try? await HTTPTransportClient(transport: transport, dispatcher: dispatcher, policy: policy).send(request)
        let events = try await recorder.waitForTerminalEvents(count: 1)
        return (try XCTUnwrap(events.last), transport)
    }

    func testSensitiveHeadersAreRedactedCaseInsensitivelyAndOthersKept() async throws {
        let request = HTTPRequest(url: URL(string: "https://api.example.com")!, headers: [
            "AUTHORIZATION": "Bearer abc", "proxy-authorization": "Basic x", "Cookie": "s=1", "X-Api-Key": "k",
            "Accept": "application/json",
        ])
        let reply = MockTransport.Reply.status(200, headers: ["set-cookie": "s=2", "Content-Type": "text/plain"])
        let (event, transport) = try await terminalEvent(policy: .debug, request: request, reply: reply)
        XCTAssertEqual(event.request.headers, [
            "AUTHORIZATION": "[REDACTED]", "proxy-authorization": "[REDACTED]", "Cookie": "[REDACTED]",
            "X-Api-Key": "[REDACTED]", "Accept": "application/json",
        ])
        XCTAssertEqual(event.response?.headers, ["set-cookie": "[REDACTED]", "Content-Type": "text/plain"])
        XCTAssertEqual(transport.requests.first?.headers["Authorization"], "Bearer abc", "the request itself is not altered")
    }

    func testConfiguredSensitiveHeaderIsRedacted() async throws {
        let policy = HTTPCorePolicy(redactor: Redactor(sensitiveHeaderNames: ["X-Session"]))
        let request = HTTPRequest(url: URL(string: "https://a.example")!, headers: ["x-session": "abc", "X-Other": "1"])
        let (event, _) = try await terminalEvent(policy: policy, request: request)
        XCTAssertEqual(event.request.headers, ["x-session": "[REDACTED]", "X-Other": "1"])
    }

    func testURLUserinfoIsRemovedAndSensitiveQueryValuesMasked() async throws {
        let url = URL(string: "https://bob:pw@api.example.com/v1/items?Token=abc&page=2&api_key=k#frag")!
        let (event, _) = try await terminalEvent(policy: .debug, request: HTTPRequest(url: url))
        XCTAssertEqual(event.request.url, "https://api.example.com/v1/items?Token=[REDACTED]&page=2&api_key=[REDACTED]#frag")
        XCTAssertEqual(event.response?.url, event.request.url)
    }

    func testReleasePresetOmitsBodiesButKeepsByteCounts() async throws {
        let request = HTTPRequest(method: .post, url: URL(string: "https://a.example")!, body: Data("hello".utf8))
        let (event, _) = try await terminalEvent(policy: .release, request: request, reply: .status(200, body: Data("world!".utf8)))
        XCTAssertNil(event.request.body)
        XCTAssertNil(event.response?.body)
        XCTAssertEqual(event.requestBodyByteCount, 5)
        XCTAssertEqual(event.responseBodyByteCount, 6)
    }

    func testDebugPresetCapturesRedactedBodies() async throws {
        let request = HTTPRequest(
            method: .post,
            url: URL(string: "https://a.example/login")!,
            headers: ["Content-Type": "application/json"],
            body: Data(#"{"user":"bob","password":"hunter2"}"#.utf8)
        )
        let (event, _) = try await terminalEvent(
            policy: .debug, request: request,
            reply: .status(200, body: Data(#"{"token":"t0k","id":7}"#.utf8), headers: ["Content-Type": "application/json"])
        )
        XCTAssertEqual(event.request.body.map { String(decoding: $0, as: UTF8.self) }, #"{"user":"bob","password":"[REDACTED]"}"#)
        XCTAssertEqual(event.response?.body.map { String(decoding: $0, as: UTF8.self) }, #"{"token":"[REDACTED]","id":7}"#)
        XCTAssertEqual(HTTPCorePolicy.debug.bodyCapture, .captured(maxBytes: 65536))
        XCTAssertEqual(HTTPCorePolicy.release.bodyCapture, .omitted)
    }

    func testBodyCapIsApplied() async throws {
        let policy = HTTPCorePolicy(bodyCapture: .captured(maxBytes: 4))
        let request = HTTPRequest(method: .post, url: URL(string: "https://a.example")!, body: Data("abcdefgh".utf8))
        let (event, _) = try await terminalEvent(policy: policy, request: request, reply: .status(200, body: Data("xyz".utf8)))
        XCTAssertEqual(event.request.body, Data("abcd".utf8))
        XCTAssertTrue(event.request.isBodyTruncated)
        XCTAssertEqual(event.response?.body, Data("xyz".utf8))
        XCTAssertEqual(event.response?.isBodyTruncated, false)
        XCTAssertEqual(event.requestBodyByteCount, 8)
    }

    func testABodyCutInsideASecretIsMaskedAndNeverCutInsideTheMask() async throws {
        let policy = HTTPCorePolicy(bodyCapture: .captured(maxBytes: 30))
        let body = Data(#"{"user":"roy","password":"hunter2-S3CRET","a":1}"#.utf8)
        let request = HTTPRequest(method: .post, url: URL(string: "https://a.example")!, headers: ["Content-Type": "application/json"], body: body)
        let reply = MockTransport.Reply.status(200, body: Data(#"{"id":7,"name":"Roy Smith"}"#.utf8), headers: ["Content-Type": "application/json"])
        let (event, _) = try await terminalEvent(policy: policy, request: request, reply: reply)
        XCTAssertEqual(event.request.body.map { String(decoding: $0, as: UTF8.self) }, #"{"user":"roy","password":""#,
                       "the mask would pass the cap: cut before it, never inside it")
        XCTAssertEqual(event.request.isBodyTruncated, true)
        XCTAssertEqual(event.response?.body.map { String(decoding: $0, as: UTF8.self) }, #"{"id":7,"name":"Roy Smith"}"#)

        let roomy = HTTPCorePolicy(bodyCapture: .captured(maxBytes: 40))
        let (cut, _) = try await terminalEvent(policy: roomy, request: request)
        XCTAssertEqual(cut.request.body.map { String(decoding: $0, as: UTF8.self) }, #"{"user":"roy","password":"[REDACTED]""#)
    }

    func testCorrelationHeaderIsAddedSentAndReported() async throws {
        let policy = HTTPCorePolicy(correlationHeaderName: HTTPCorePolicy.defaultCorrelationHeaderName)
        let (event, transport) = try await terminalEvent(policy: policy, request: HTTPRequest(url: URL(string: "https://a.example")!))
        let sent = try XCTUnwrap(transport.requests.first?.headers["X-Correlation-ID"])
        XCTAssertNotNil(UUID(uuidString: sent))
        XCTAssertEqual(event.correlationID, sent)
        XCTAssertEqual(event.request.headers["x-correlation-id"], sent)
    }

    func testExistingCorrelationHeaderIsKept() async throws {
        let policy = HTTPCorePolicy(correlationHeaderName: "X-Trace")
        let request = HTTPRequest(url: URL(string: "https://a.example")!, headers: ["x-trace": "given"])
        let (event, transport) = try await terminalEvent(policy: policy, request: request)
        XCTAssertEqual(transport.requests.first?.headers.values(for: "X-Trace"), ["given"])
        XCTAssertEqual(event.correlationID, "given")
    }

    func testNoCorrelationHeaderByDefault() async throws {
        let (event, transport) = try await terminalEvent(policy: .debug, request: HTTPRequest(url: URL(string: "https://a.example")!))
        XCTAssertNil(event.correlationID)
        XCTAssertEqual(transport.requests.first?.headers, [:])
    }

    func testNoneLevelExposesEverything() async throws {
        let url = URL(string: "https://u:p@a.example/?token=abc")!
        let request = HTTPRequest(url: url, headers: ["Authorization": "Bearer abc"])
        let (event, _) = try await terminalEvent(policy: HTTPCorePolicy(redactor: .none), request: request)
        XCTAssertEqual(event.request.url, url.absoluteString)
        XCTAssertEqual(event.request.headers["Authorization"], "Bearer abc")
    }

    func testNegativeCapCapturesNothingAndDoesNotCrash() async throws {
        let policy = HTTPCorePolicy(bodyCapture: .captured(maxBytes: -1))
        let request = HTTPRequest(method: .post, url: URL(string: "https://a.example")!, body: Data("abc".utf8))
        let (event, _) = try await terminalEvent(policy: policy, request: request)
        XCTAssertEqual(event.request.body, Data())
        XCTAssertTrue(event.request.isBodyTruncated)
    }
}
