import DevSeeObserver
import DevSeeServer
import Foundation
import HTTPCore
import HTTPCoreObservation
import HTTPCoreLoopback
import HTTPCoreURLSession
import XCTest

/// Redaction configured in one place: an exchange's log shows what its client's policy
/// exposes, and the logger's own redactor masks only what its manual API logs.
final class DevSeeRedactionTests: XCTestCase {
    private var api: LoopbackHTTPServer!

    override func setUpWithError() throws {
        api = try LoopbackHTTPServer()
    }

    override func tearDown() {
        api.stop()
    }

    /// The payload dev-see stored for each logger's one log of a POST to `/orders`, sent once
    /// through a `URLSessionClient` under `policy`, each logger behind its own receiver.
    private func storedPayloads(
        policy: HTTPCorePolicy, request: HTTPRequest, loggers configurations: [(inout DevSeeLoggerConfiguration) -> Void]
    ) async throws -> [(sent: String, log: [String: Any])] {
        let receivers = try configurations.map { _ in try DevSeeReceiver() }
        defer { receivers.forEach { $0.stop() } }
        let harnesses = zip(receivers, configurations).map { LoggerHarness(receiver: $0, $1) }
        let dispatcher = HTTPEventDispatcher()
        for harness in harnesses { dispatcher.subscribe(DevSeeObserver(logger: harness.logger)) }
        _ = try await URLSessionClient(dispatcher: dispatcher, policy: policy).send(request)
        await dispatcher.flush()
        var payloads: [(sent: String, log: [String: Any])] = []
        for harness in harnesses {
            await harness.logger.flush()
            try await harness.receiver.waitForLogs(count: 1)
            XCTAssertEqual(harness.receiver.rejections.count, 0, "dev-see accepts the log")
            payloads.append((String(decoding: try XCTUnwrap(harness.receiver.storedLogs.first), as: UTF8.self), try harness.receiver.onlyLog()))
        }
        return payloads
    }

    func testAStricterLoggerRedactorLeavesAnExchangesLogAsThePolicyExposedIt() async throws {
        api.route("/orders") { _ in .json(#"{"id":7,"customer":"Ada","token":"t0k"}"#) }
        let request = HTTPRequest(
            method: .post, url: api.url("/orders?page=2&token=abc"),
            headers: ["Content-Type": "application/json", "X-Request-ID": "req-7", "Authorization": "Bearer s3cret"],
            body: Data(#"{"item":"tea","password":"hunter2"}"#.utf8), metadata: ["route": "/orders"]
        )
        let payloads = try await storedPayloads(
            policy: HTTPCorePolicy(bodyCapture: .captured(maxBytes: 64 * 1024)), request: request,
            loggers: [{ _ in }, { $0.redactor = Redactor(level: .strict) }]
        )
        let (standard, strict) = (payloads[0], payloads[1])
        XCTAssertEqual(strict.sent, standard.sent, "the same payload, byte for byte, whatever the logger's redactor")
        // What `.standard`, the policy's level, shows, and the strict logger would have masked.
        let log = strict.log
        XCTAssertEqual(log["url"] as? String, api.url("/orders").absoluteString + "?page=2&token=[REDACTED]")
        XCTAssertEqual(log["correlationId"] as? String, "req-7")
        XCTAssertEqual((log["requestHeaders"] as? [String: String])?["Authorization"], "[REDACTED]")
        XCTAssertEqual((log["requestHeaders"] as? [String: String])?["X-Request-ID"], "req-7")
        XCTAssertEqual(log["requestBody"] as? String, #"{"item":"tea","password":"[REDACTED]"}"#)
        XCTAssertEqual(log["responseBody"] as? String, #"{"id":7,"customer":"Ada","token":"[REDACTED]"}"#)
        XCTAssertEqual(log["metadata"] as? [String: String], ["route": "/orders"])
    }

    func testAStricterLoggerRedactorMasksWhatTheManualAPILogs() async throws {
        let receiver = try DevSeeReceiver()
        defer { receiver.stop() }
        let harness = LoggerHarness(receiver: receiver) { $0.redactor = Redactor(level: .strict) }
        // The header spelled as Foundation on Linux spells it back.
        await harness.logger.log(
            request: request("GET", "https://api.example.com/search?page=2", headers: ["X-Request-Id": "req-7"]),
            response: response(200, "https://api.example.com/search?page=2"),
            responseBody: Data(#"{"customer":"Ada"}"#.utf8)
        )
        await harness.logger.flush()
        let log = try receiver.onlyLog()
        XCTAssertEqual(log["url"] as? String, "https://api.example.com/search?page=[REDACTED]")
        XCTAssertEqual(log["correlationId"] as? String, "[REDACTED]")
        XCTAssertEqual(log["requestHeaders"] as? [String: String], ["X-Request-Id": "[REDACTED]"])
        XCTAssertEqual(log["responseBody"] as? String, #"{"customer":"[REDACTED]"}"#)
    }

    func testASecretThePolicyNamesIsMaskedInTheLogOfAnExchange() async throws {
        api.route("/seats") { _ in .json(#"{"seat":"window-quokka","price":40}"#) }
        let policy = HTTPCorePolicy(
            redactor: Redactor(sensitiveHeaderNames: ["X-Tenant"], sensitiveQueryNames: ["voucher"], sensitiveBodyKeys: ["seat"]),
            bodyCapture: .captured(maxBytes: 64 * 1024)
        )
        let request = HTTPRequest(
            method: .post, url: api.url("/seats?voucher=V-BANJO&row=12"),
            headers: ["Content-Type": "application/json", "X-Tenant": "tenant-kiwi"], body: Data(#"{"seat":"window-quokka","count":1}"#.utf8)
        )
        let payloads = try await storedPayloads(policy: policy, request: request, loggers: [{ _ in }])
        let (sent, log) = try XCTUnwrap(payloads.first)
        XCTAssertEqual(log["url"] as? String, api.url("/seats").absoluteString + "?voucher=[REDACTED]&row=12")
        XCTAssertEqual((log["requestHeaders"] as? [String: String])?["X-Tenant"], "[REDACTED]")
        XCTAssertEqual(log["requestBody"] as? String, #"{"seat":"[REDACTED]","count":1}"#)
        XCTAssertEqual(log["responseBody"] as? String, #"{"seat":"[REDACTED]","price":40}"#)
        for secret in ["V-BANJO", "tenant-kiwi", "window-quokka"] {
            XCTAssertFalse(sent.contains(secret), "\(secret) left the process: \(sent)")
        }
    }
}
