import DevSeeObserver
import Foundation
import HTTPCore
import HTTPCoreObservation
import HTTPCoreConsole
import HTTPCoreTesting
import HTTPCoreURLSession
import XCTest
import DevSeeServer
import HTTPCoreConcurrency
import HTTPCoreLoopback

/// One secret in every place the privacy rules cover, sent through `URLSessionClient` and
/// `DevSeeObserver`: it must appear nowhere in what the receiver stored or observers saw.
final class PrivacyEndToEndTests: XCTestCase {
    private let secret = "S3cr3tV4lue"

    func testSecretAppearsNowhereOutsideTheProcess() async throws {
        let api = try LoopbackHTTPServer()
        let receiver = try DevSeeReceiver()
        defer {
            api.stop()
            receiver.stop()
        }
        let secret = secret
        api.route("/echo") { request in
            var response = LoopbackResponse.json(#"{"access_token":"\#(secret)","refresh_token":"\#(secret)","user":"roy"}"#)
            response.headers.add(name: "Set-Cookie", value: "session=\(secret); HttpOnly")
            response.headers.add(name: "X-Auth-Token", value: secret)
            return response
        }
        api.route("/fail") { _ in
            var response = LoopbackResponse()
            response.fault = .reset
            return response
        }

        let harness = LoggerHarness(receiver: receiver)
        let dispatcher = HTTPEventDispatcher()
        let recorder = RecordingObserver()
        let printed = Locked<[String]>([])
        dispatcher.subscribe(recorder)
        dispatcher.subscribe(DevSeeObserver(logger: harness.logger))
        dispatcher.subscribe(ConsoleObserver(minimumLevel: .debug, format: .blocks, body: .text) { line in printed.withLock { $0.append(line) } })
        let client = URLSessionClient(dispatcher: dispatcher, policy: .debug)

        var url = URLComponents(url: api.url("/echo"), resolvingAgainstBaseURL: false)!
        url.user = "roy"
        url.password = secret
        url.percentEncodedQuery = "token=\(secret)&api_key=\(secret)&page=1"
        url.fragment = "access_token=\(secret)&state=ok"
        let headers: HTTPHeaders = [
            "Authorization": "Bearer \(secret)", "Proxy-Authorization": "Basic \(secret)", "Cookie": "sid=\(secret)",
            "X-Api-Key": secret, "X-Auth-Token": secret, "X-Vault-Token": secret, "X-Client-Secret": secret,
        ]
        let boundary = "b0undary"
        let bodies: [(String, String)] = [
            ("application/json", #"{"user":"roy","password":"\#(secret)","card":{"cvv":"\#(secret)","card_number":"\#(secret)"},"list":[{"ssn":"\#(secret)"}]}"#),
            ("application/x-www-form-urlencoded", "user=roy&password=\(secret)&client_secret=\(secret)"),
            ("multipart/form-data; boundary=\(boundary)",
             "--\(boundary)\r\nContent-Disposition: form-data; name=\"password\"\r\n\r\n\(secret)\r\n--\(boundary)--\r\n"),
            ("application/json", #"{"query":"mutation { login(password: \"\#(secret)\", pin: 4242) { token } }","variables":{"token":"\#(secret)"}}"#),
            ("application/graphql", #"query { user(apiKey: "\#(secret)") { name } }"#),
            ("application/json", #"{"newPassword":"\#(secret)","auth_token":"\#(secret)","user":{"pa\u017f\u017fword":"\#(secret)"}}"#),
            ("application/json", #"{"query":"query($v: String) { a(password: $v) }","variables":{"v":"\#(secret)"}}"#),
            ("application/json", #"{"next":"https://a.example/cb?code=\#(secret)&x=1","header":"Bearer \#(secret)"}"#),
            ("application/xml", "<login><user>roy</user><password>\(secret)</password><t token=\"\(secret)\"/></login>"),
            ("text/plain", "name=Zo\u{00EB}&password=\(secret) 2"),
            ("text/plain", #"{"body":"{\"password\":\"\#(secret)\"}"}"#),
        ]
        for (type, body) in bodies {
            var requestHeaders = headers
            requestHeaders.add(name: "Content-Type", value: type)
            let response = try await client.send(HTTPRequest(method: .post, url: url.url!, headers: requestHeaders, body: Data(body.utf8)))
            // Observing alters nothing the app sees: its response keeps every secret.
            XCTAssertTrue(String(decoding: response.body, as: UTF8.self).contains(secret))
            XCTAssertEqual(response.headers["X-Auth-Token"], secret)
        }
        XCTAssertTrue(api.requests.allSatisfy { $0.headers["Authorization"] == "Bearer \(secret)" }, "the server got the request as sent")
        var failing = URLComponents(url: api.url("/fail"), resolvingAgainstBaseURL: false)!
        failing.percentEncodedQuery = "session=\(secret)"
        _ = try? await client.send(HTTPRequest(url: failing.url!, headers: headers))

        await dispatcher.flush()
        await harness.logger.flush()

        XCTAssertEqual(receiver.storedLogs.count, bodies.count + 1)
        XCTAssertTrue(receiver.rejections.isEmpty)
        for log in receiver.storedLogs {
            let text = String(decoding: log, as: UTF8.self)
            XCTAssertFalse(text.contains(secret), text)
            XCTAssertTrue(text.contains("[REDACTED]"))
        }
        XCTAssertTrue(receiver.storedLogs.contains { String(decoding: $0, as: UTF8.self).contains("***") }, "GraphQL literals masked")
        XCTAssertFalse(recorder.events.isEmpty)
        for event in recorder.events {
            let exposed = [
                event.request.url, event.request.headers.description, event.request.body.map { String(decoding: $0, as: UTF8.self) } ?? "",
                event.response?.url ?? "", event.response?.headers.description ?? "",
                event.response?.body.map { String(decoding: $0, as: UTF8.self) } ?? "", event.error?.description ?? "",
            ].joined(separator: "\n")
            XCTAssertFalse(exposed.contains(secret), exposed)
        }
        XCTAssertFalse(printed.withLock { $0 }.isEmpty)
        for line in printed.withLock({ $0 }) {
            XCTAssertFalse(line.contains(secret), line)
        }
    }

    /// The secrets a streamed answer can carry, each in the shape that once leaked: JSON spread
    /// over the data lines of one event, JSON in a JSON string with an escaped key letter, an
    /// event named like a secret, a provider key in a delta. None reaches an output; the
    /// token counts next to them stay readable.
    func testSecretsInAStreamedAnswerAppearNowhereOutsideTheProcess() async throws {
        let api = try LoopbackHTTPServer()
        let receiver = try DevSeeReceiver()
        defer {
            api.stop()
            receiver.stop()
        }
        let key = "sk-proj-Qw3rT9" + String(repeating: "xY7", count: 14)
        let stream = "event: message\ndata: {\ndata:   \"password\":\r\ndata:   \"\(secret)\"\ndata: }\n\n"
            + #"data: "{\"pass\\u0077ord\":\"\#(secret)\"}""# + "\n\n"
            + "event: session_token\ndata: \(secret)\n\n"
            + #"data: {"choices":[{"delta":{"content":"use \#(key) here"}}]}"# + "\n\n"
            + #"data: {"usage":{"prompt_tokens":9,"completion_tokens":12,"max_tokens":256}}"# + "\n\n"
        api.route("/v1/chat") { _ in
            LoopbackResponse(headers: ["Content-Type": "text/event-stream"], body: Data(stream.utf8))
        }
        let harness = LoggerHarness(receiver: receiver) { $0.maxMessageLogsPerExchange = 10 }
        let dispatcher = HTTPEventDispatcher()
        let recorder = RecordingObserver()
        let printed = Locked<[String]>([])
        dispatcher.subscribe(recorder)
        dispatcher.subscribe(DevSeeObserver(logger: harness.logger))
        dispatcher.subscribe(ConsoleObserver(minimumLevel: .debug, format: .blocks, body: .text) { line in printed.withLock { $0.append(line) } })
        let client = URLSessionClient(dispatcher: dispatcher, policy: .debug)
        let request = HTTPRequest(method: .post, url: api.url("/v1/chat"), body: Data(#"{"stream":true}"#.utf8))
        let read = try await client.send(request, body: nil) { _, body in try await body.collect(upTo: 1 << 20) }
        XCTAssertEqual(String(decoding: read, as: UTF8.self), stream, "the app reads the stream as sent")
        await dispatcher.flush()
        await harness.logger.flush()
        try await receiver.waitForLogs(count: 6)

        var outputs = receiver.storedLogs.map { String(decoding: $0, as: UTF8.self) }
        for event in recorder.events {
            outputs.append(event.response?.body.map { String(decoding: $0, as: UTF8.self) } ?? "")
            outputs.append(event.message?.data ?? "")
        }
        outputs += printed.withLock { $0 }
        for output in outputs {
            XCTAssertFalse(output.contains(secret), output)
            XCTAssertFalse(output.contains("Qw3rT9"), output)
        }
        let captured = try XCTUnwrap(recorder.events.last { $0.name.isTerminal }?.response?.body)
        let capturedText = String(decoding: captured, as: UTF8.self)
        XCTAssertTrue(capturedText.contains(#"{"usage":{"prompt_tokens":9,"completion_tokens":12,"max_tokens":256}}"#), capturedText)
        XCTAssertTrue(capturedText.contains("data:   \"password\":\r\ndata:   \"[REDACTED]\""), capturedText)
        XCTAssertEqual(recorder.events.compactMap { $0.message?.data }.last, #"{"usage":{"prompt_tokens":9,"completion_tokens":12,"max_tokens":256}}"#)
    }
}
