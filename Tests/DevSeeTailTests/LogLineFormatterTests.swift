import Foundation
import XCTest

@testable import devsee_tail

final class LogLineFormatterTests: XCTestCase {
    private func stored(_ object: [String: Any]) throws -> StoredLog {
        try XCTUnwrap(StoredLog(json: JSONSerialization.data(withJSONObject: object)))
    }

    private func time(_ milliseconds: Double) -> String {
        let formatter = DateFormatter()
        formatter.dateFormat = "HH:mm:ss.SSS"
        return formatter.string(from: Date(timeIntervalSince1970: milliseconds / 1000))
    }

    func testOneLinePerExchange() throws {
        let plain = LogLineFormatter(usesColor: false, isVerbose: false)
        let success = try stored([
            "method": "GET", "url": "https://api.example.com/users/42?token=[REDACTED]", "statusCode": 200, "duration": 124.4,
            "timestamp": 1_800_000_000_118, "correlationId": "c-7",
        ])
        XCTAssertEqual(plain.format(success), "\(time(1_800_000_000_118))  GET     200       124 ms  https://api.example.com/users/42?token=[REDACTED]  corr c-7")
        let failure = try stored([
            "method": "POST", "url": "https://api.example.com/orders", "statusCode": 599, "duration": 2003, "timestamp": 1_800_000_000_000,
            "error": "timed out", "responseBody": "[no response] timed out after 2.0 s", "attempt": 2,
        ])
        XCTAssertEqual(plain.format(failure), "\(time(1_800_000_000_000))  POST    failed     2.0 s  https://api.example.com/orders  (timed out)  attempt 2")
        let fast = try stored([
            "method": "GET", "url": "https://api.example.com/feed", "statusCode": 200, "duration": 0.9, "timestamp": 1_800_000_000_000,
            "error": "DecodingFailed: expected an array", "responseBody": "[error] DecodingFailed: expected an array after 0.9 ms\n{}",
        ])
        XCTAssertEqual(
            plain.format(fast), "\(time(1_800_000_000_000))  GET     200       0.9 ms  https://api.example.com/feed  (DecodingFailed: expected an array)",
            "an error that came with a response is shown too"
        )
        let colored = LogLineFormatter(usesColor: true, isVerbose: false).format(success)
        XCTAssertTrue(colored.contains("\u{1B}[32m200   \u{1B}[0m"), colored)
    }

    func testVerboseShowsHeadersAndBodies() throws {
        let verbose = LogLineFormatter(usesColor: false, isVerbose: true)
        let log = try stored([
            "method": "POST", "url": "https://a.example/x", "statusCode": 201, "duration": 5, "timestamp": 1_800_000_000_000,
            "requestHeaders": ["Content-Type": "application/json", "Authorization": "[REDACTED]"], "requestBody": "{\"a\":1}",
            "responseHeaders": ["Location": "/x/1", "X-Count": 3], "responseBody": "line 1\nline 2",
        ])
        XCTAssertEqual(verbose.format(log).split(separator: "\n").dropFirst(), [
            "    > Authorization: [REDACTED]", "    > Content-Type: application/json", "    >   {\"a\":1}",
            "    < Location: /x/1", "    < X-Count: 3", "    <   line 1", "    <   line 2",
        ])
    }
}
