import Foundation
import HTTPCore
import HTTPCoreLoopback
import XCTest

/// The secrets of an ordinary JSON exchange that the red team found shown, made for real over
/// loopback and read in every output: a password change's object under `password`, a key
/// written with a `\u` escape, a bcrypt hash, a Slack webhook URL; beside them a request id
/// that must stay as it was.
final class OutputsRedactionTests: XCTestCase {
    private static let requestBody = #"{"password":{"old":"hunter2xyz","new":"hunter3abc"},"note":"\u0073k-proj-AbCdEf12GhIj34KlMnOp56QrStUv78WxYz90"}"#
    private static let responseBody = #"{"hash":"$2b$12$R9h/cIPz0gi.URNNX3kh2OPST9/PgBkqquzi.Ss7KIUgO2t0jWMUW","#
        + #""hook":"https://hooks.slack.com/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX","request_id":"3f2b9c1e-8a7d-4c2b-9e1f-0a1b2c3d4e5f"}"#
    /// What the bodies must read as, wherever they are shown.
    private static let maskedRequestBody = #"{"password":{"old":"[REDACTED]","new":"[REDACTED]"},"note":"[REDACTED]"}"#
    private static let maskedResponseBody = #"{"hash":"[REDACTED]","hook":"https://hooks.slack.com/services/[REDACTED]","#
        + #""request_id":"3f2b9c1e-8a7d-4c2b-9e1f-0a1b2c3d4e5f"}"#
    /// A piece of each secret: none may appear in any output.
    private static let secretPieces = ["hunter2xyz", "hunter3abc", "AbCdEf12GhIj34", "u0073k", "R9h/cIPz0gi", "PgBkqquzi", "T00000000", "XXXXXXXXXXXX"]

    func testEverySecretOfAJSONExchangeIsMaskedInEveryOutputAndItsRequestIdKept() async throws {
        let outputs = try Outputs()
        defer { outputs.stop() }
        outputs.api.route("POST", "/v1/account") { _ in LoopbackResponse.json(Self.responseBody) }
        let request = HTTPRequest(
            method: .post, url: outputs.api.url("/v1/account"), headers: ["Content-Type": "application/json"], body: Data(Self.requestBody.utf8)
        )
        _ = try await outputs.client().send(request)
        let shown = try await outputs.shown(logs: 1, lines: 1)

        let log = try XCTUnwrap(shown.devSee.first)
        XCTAssertEqual(log["requestBody"] as? String, Self.maskedRequestBody, "dev-see")
        XCTAssertEqual(log["responseBody"] as? String, Self.maskedResponseBody, "dev-see")
        let entry = try XCTUnwrap(shown.har.first)
        XCTAssertEqual((entry["request"] as? [String: Any]).flatMap { $0["postData"] as? [String: Any] }?["text"] as? String, Self.maskedRequestBody, "HAR")
        XCTAssertEqual((entry["response"] as? [String: Any]).flatMap { $0["content"] as? [String: Any] }?["text"] as? String, Self.maskedResponseBody, "HAR")
        let printed = shown.console.joined(separator: "\n")
        XCTAssertTrue(printed.contains(Self.maskedRequestBody) && printed.contains(Self.maskedResponseBody), "console: \(printed)")
        // Every output, whole: the HAR document, the Loki line, devsee-tail's line, the console.
        let everything = [
            String(decoding: try JSONSerialization.data(withJSONObject: shown.har), as: UTF8.self),
            String(decoding: try JSONSerialization.data(withJSONObject: shown.devSee), as: UTF8.self),
            printed,
        ] + shown.loki + shown.tail
        for piece in Self.secretPieces {
            XCTAssertFalse(everything.contains { $0.contains(piece) || $0.contains(piece.replacingOccurrences(of: "/", with: #"\/"#)) }, piece)
        }
    }
}
