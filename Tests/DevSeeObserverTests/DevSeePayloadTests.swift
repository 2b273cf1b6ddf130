import DevSeeObserver
import Foundation
import HTTPCore
import XCTest
import DevSeeServer
import HTTPCoreTestPeers
import HTTPCoreTesting
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What a log looks like once the dev-see receiver (which validates like the real server)
/// has stored it.
final class DevSeePayloadTests: XCTestCase {
    private var receiver: DevSeeReceiver!

    override func setUpWithError() throws {
        receiver = try DevSeeReceiver()
    }

    override func tearDown() {
        receiver.stop()
    }

    private func logOne(
        _ configure: (inout DevSeeLoggerConfiguration) -> Void = { _ in },
        _ body: (DevSeeLogger) async -> Void
    ) async throws -> [String: Any] {
        let harness = LoggerHarness(receiver: receiver, configure)
        await body(harness.logger)
        await harness.logger.flush()
        XCTAssertEqual(harness.logger.statistics.delivered, 1, "\(harness.logger.statistics) \(receiver.rejections)")
        return try receiver.onlyLog()
    }

    func testEveryFieldIsMapped() async throws {
        let ended = Date(timeIntervalSince1970: 1_760_000_000.5)
        let started = ended.addingTimeInterval(-0.124)
        let log = try await logOne { logger in
            await logger.log(
                request: request("POST", "https://api.example.com/users?page=1", headers: [
                    "Accept": "application/json", "Authorization": "Bearer abc", "Content-Type": "application/json",
                ]),
                response: response(201, "https://api.example.com/users?page=1", headers: [
                    "Content-Type": "application/json", "Set-Cookie": "session=1",
                ]),
                responseBody: Data(#"{"id":42,"name":"Roy"}"#.utf8),
                requestBody: Data(#"{"name":"Roy","password":"hunter2"}"#.utf8),
                startedAt: started,
                endedAt: ended
            )
        }
        XCTAssertEqual(log["type"] as? String, "api_log")
        XCTAssertEqual(log["appId"] as? String, "com.example.tests")
        XCTAssertEqual(log["method"] as? String, "POST")
        XCTAssertEqual(log["url"] as? String, "https://api.example.com/users?page=1")
        XCTAssertEqual(log["statusCode"] as? Int, 201)
        XCTAssertEqual(try XCTUnwrap(log["duration"] as? Double), 124, accuracy: 0.01)
        XCTAssertEqual(log["timestamp"] as? Int, 1_760_000_000_376)
        XCTAssertEqual(log["requestHeaders"] as? [String: String], [
            "Accept": "application/json", "Authorization": "[REDACTED]", "Content-Type": "application/json",
        ])
        XCTAssertEqual(log["responseHeaders"] as? [String: String], ["Content-Type": "application/json", "Set-Cookie": "[REDACTED]"])
        XCTAssertEqual(log["requestBody"] as? String, #"{"name":"Roy","password":"[REDACTED]"}"#)
        XCTAssertEqual(log["responseBody"] as? String, #"{"id":42,"name":"Roy"}"#)
        XCTAssertNil(log["error"], "no error key when there is no error")
        XCTAssertNil(log["id"], "never a field named id")
        XCTAssertTrue((log["requestId"] as? String)?.hasPrefix("devsee-") ?? false)
        XCTAssertNil(log["correlationId"])
    }

    func testFallbacksWithoutResponseStartOrExplicitBody() async throws {
        let log = try await logOne { logger in
            var request = request("", "https://api.example.com/login?token=abc&lang=en", body: Data("from httpBody".utf8))
            request.httpMethod = ""
            await logger.log(request: request, response: nil, error: URLError(.cannotConnectToHost))
        }
        XCTAssertEqual(log["method"] as? String, "GET failed", "the list's method chip says the call failed")
        XCTAssertEqual(log["statusCode"] as? Int, 599)
        XCTAssertNil(log["reportedStatusCode"], "no status came")
        XCTAssertEqual(log["duration"] as? Double, 0)
        XCTAssertEqual(log["url"] as? String, "https://api.example.com/login?token=[REDACTED]&lang=en")
        XCTAssertEqual(log["requestBody"] as? String, "from httpBody")
        XCTAssertEqual(
            log["responseBody"] as? String,
            "[no response] transport error [cannot_connect]: could not connect to the host (api.example.com, URLError -1004)",
            "the viewer shows no error field: the body says why there is no response; no start, no duration"
        )
        XCTAssertEqual(log["error"] as? String, "transport error [cannot_connect]: could not connect to the host (api.example.com, URLError -1004)",
                       "the same wording as a failed URLSessionClient call")
    }

    func testURLComesFromResponseWhenRequestHasNone() async throws {
        let log = try await logOne { logger in
            var request = URLRequest(url: URL(string: "https://placeholder")!)
            request.url = nil
            await logger.log(request: request, response: response(200, "https://final.example.com/done"))
        }
        XCTAssertEqual(log["url"] as? String, "https://final.example.com/done")
    }

    func testUserinfoAndSensitiveQueryValuesAreRedacted() async throws {
        let log = try await logOne { logger in
            await logger.log(request: request("GET", "https://bob:pw@api.example.com/a?api_key=k&x=1"), response: response(200))
        }
        XCTAssertEqual(log["url"] as? String, "https://api.example.com/a?api_key=[REDACTED]&x=1")
    }

    func testBodyIsCutAtALimitWithoutSplittingACharacter() async throws {
        let log = try await logOne({ $0.maxBodyBytes = 10 }) { logger in
            // "aaaaaaaaa" is 9 bytes; "é" takes bytes 10 and 11, so the cut falls inside it.
            await logger.log(request: request("POST", body: Data("aaaaaaaaaéééé".utf8)), response: response(200))
        }
        XCTAssertEqual(log["requestBody"] as? String, "aaaaaaaaa…[truncated: 17 bytes in all]")
    }

    func testABodyOverTheLimitShowsItsFirstBytesAndOneMarker() async throws {
        let body = Data((#"{"blob":""# + String(repeating: "a", count: 2 * 1024 * 1024) + #""}"#).utf8)
        let log = try await logOne { logger in
            await logger.log(
                request: request("POST", headers: ["Content-Type": "application/json"], body: body), response: response(200)
            )
        }
        let shown = #"{"blob":""# + String(repeating: "a", count: 64 * 1024 - 9) + "…[truncated: 2097163 bytes in all]"
        let requestBody = try XCTUnwrap(log["requestBody"] as? String)
        XCTAssertTrue(requestBody == shown, "\(requestBody.prefix(40))…\(requestBody.suffix(60)) (\(requestBody.utf8.count) bytes)")
    }

    func testEveryBodyKindCutAtTheLimitIsMaskedAsFarAsItGoes() async throws {
        let multipartHead = "--b\r\nContent-Disposition: form-data; name=\"meta\"\r\nContent-Type: application/json\r\n\r\n"
        let cases: [(type: String, body: Data, limit: Int, shown: String)] = [
            ("application/json", Data(#"{"user":"roy","password":"hunter2-S3CRET"}"#.utf8), 30, #"{"user":"roy","password":"[REDACTED]""#),
            ("application/json", Data(#"{"user":"roy","note":"hunter2-S3CRET"}"#.utf8), 30, #"{"user":"roy","note":"hunter2-"#),
            ("application/x-www-form-urlencoded", Data("user=roy&password=hunter2-S3CRET".utf8), 22, "user=roy&password=[REDACTED]"),
            ("application/xml", Data("<login><user>roy</user><password>hunter2</password></login>".utf8), 37,
             "<login><user>roy</user><password>[REDACTED]"),
            ("text/plain; charset=utf-8", Data("plain text that goes on".utf8), 10, "plain text"),
            ("multipart/form-data; boundary=b", Data((multipartHead + #"{"token":"hunter2-S3CRET"}"# + "\r\n--b--\r\n").utf8),
             multipartHead.utf8.count + 14, multipartHead + #"{"token":"[REDACTED]""#),
            ("application/graphql", Data(#"mutation { login(password: "hunter2") }"#.utf8), 31, "mutation { login(password: ***"),
            ("application/octet-stream", Data([0xFF, 0x00, 0xFE, 0x01, 0x80, 0x7F]), 4, "base64:/wD+AQ=="),
        ]
        for (index, item) in cases.enumerated() {
            let log = try await logOne({ $0.maxBodyBytes = item.limit }) { logger in
                await logger.log(
                    request: request("POST", "https://api.example.com/case/\(index)", headers: ["Content-Type": item.type], body: item.body),
                    response: response(200)
                )
            }
            XCTAssertEqual(log["requestBody"] as? String, item.shown + "…[truncated: \(item.body.count) bytes in all]", item.type)
            XCTAssertFalse((log["requestBody"] as? String ?? "").contains("S3CRET"), item.type)
            receiver.stop()
            receiver = try DevSeeReceiver()
        }
    }

    private struct DecodingFailed: LocalizedError {
        var errorDescription: String? { "expected an array at https://api.example.com/feed?token=abc" }
    }

    func testAnErrorThatCameWithAResponseIsANoteHeaderAboveItsJSONBodyLeftWhole() async throws {
        let started = Date(timeIntervalSince1970: 1_800_000_000)
        let log = try await logOne { logger in
            await logger.log(
                request: request("GET", "https://api.example.com/feed?token=abc"),
                response: response(200, headers: ["Content-Type": "application/json"]),
                responseBody: Data(#"{"items":[],"token":"t0k"}"#.utf8),
                error: DecodingFailed(),
                startedAt: started, endedAt: started.addingTimeInterval(0.018)
            )
        }
        // A failure after a 200 is red in the list, and says which status came first.
        XCTAssertEqual(log["statusCode"] as? Int, 599)
        XCTAssertEqual(log["method"] as? String, "GET failed after 200")
        XCTAssertEqual(log["reportedStatusCode"] as? Int, 200)
        let error = try XCTUnwrap(log["error"] as? String)
        XCTAssertEqual(log["responseBody"] as? String, #"{"items":[],"token":"[REDACTED]"}"#, "JSON, for the viewer to pretty-print")
        XCTAssertEqual((log["responseHeaders"] as? [String: String])?["x-devsee-note-error"], "[error] \(error) after 18 ms")
        XCTAssertEqual(error, "DecodingFailed: expected an array at https://api.example.com/feed?[REDACTED]", "the query goes, whole")

        receiver.stop()
        receiver = try DevSeeReceiver()
        let bodiless = try await logOne { logger in
            await logger.log(request: request("GET"), response: response(204), error: HTTPError.invalidResponse, startedAt: started, endedAt: started)
        }
        XCTAssertEqual(bodiless["responseBody"] as? String, "[error] \(bodiless["error"] as? String ?? "?") after 0 µs")
    }

    func testAManualErrorQuotingTheQueryDecodedLosesItAsAClientsErrorsDo() async throws {
        struct Rejected: LocalizedError {
            var errorDescription: String? { "the server rejected 'S3CR/3T x' for ada" }
        }
        let log = try await logOne { logger in
            await logger.log(request: request("GET", "https://api.example.com/feed?token=S3CR%2F3T+x"), response: nil, error: Rejected())
        }
        XCTAssertEqual(log["error"] as? String, "Rejected: the server rejected '[REDACTED]' for ada")
    }

    func testAFastFailureSaysHowFastInAUnitThatShowsIt() async throws {
        let started = Date(timeIntervalSince1970: 1_800_000_000)
        let log = try await logOne { logger in
            await logger.log(request: request("GET"), response: nil, error: URLError(.cannotConnectToHost), startedAt: started, endedAt: started.addingTimeInterval(0.0009))
        }
        let body = try XCTUnwrap(log["responseBody"] as? String)
        XCTAssertTrue(body.hasPrefix("[no response] transport error [cannot_connect]"), body)
        XCTAssertTrue(body.hasSuffix(" after 0.9 ms"), body)
    }

    func testABase64BodyCutToFitThePayloadStillDecodes() async throws {
        var generator = SeededRandomNumberGenerator(seed: 7)
        let bytes = Data((0..<1_000_000).map { _ in UInt8.random(in: 0...255, using: &generator) } + [0xFF])
        let harness = LoggerHarness(receiver: receiver) { $0.maxBodyBytes = 2 * 1024 * 1024 }
        // Four URL lengths move the cut through every position modulo 4.
        for length in 0..<4 {
            let url = "https://api.example.com/blob/" + String(repeating: "x", count: length)
            await harness.logger.log(request: request("GET", url), response: response(200), responseBody: bytes)
        }
        await harness.logger.flush()
        XCTAssertEqual(receiver.storedObjects().count, 4, "\(receiver.rejections.map(\.reason))")
        for log in receiver.storedObjects() {
            let body = try XCTUnwrap(log["responseBody"] as? String)
            XCTAssertTrue(body.hasPrefix("base64:"))
            let marker = "…[truncated: \(bytes.count) bytes in all]"
            XCTAssertTrue(body.hasSuffix(marker), String(body.suffix(60)))
            let encoded = String(body.dropFirst("base64:".count).dropLast(marker.count))
            let decoded = try XCTUnwrap(Data(base64Encoded: encoded), "\(encoded.utf8.count) characters of base64 must decode")
            XCTAssertGreaterThan(decoded.count, 500_000)
            XCTAssertEqual(decoded, bytes.prefix(decoded.count))
        }
    }

    func testBinaryBodyIsBase64() async throws {
        let bytes = Data([0xFF, 0x00, 0xFE, 0x01, 0x80])
        let log = try await logOne { logger in
            await logger.log(request: request("GET"), response: response(200), responseBody: bytes)
        }
        XCTAssertEqual(log["responseBody"] as? String, "base64:" + bytes.base64EncodedString())
    }

    func testHugeBodyLimitStillFitsTheServersOneMebibyteLimit() async throws {
        // Control characters take six bytes each once escaped in JSON.
        let body = Data(repeating: 0x01, count: 3 * 1024 * 1024)
        let log = try await logOne({ $0.maxBodyBytes = 8 * 1024 * 1024 }) { logger in
            await logger.log(request: request("POST", body: body), response: response(200), responseBody: body)
        }
        XCTAssertTrue(receiver.rejections.isEmpty)
        XCTAssertLessThanOrEqual(try XCTUnwrap(receiver.storedLogs.first).count, 1_048_576)
        XCTAssertTrue((log["requestBody"] as? String)?.hasSuffix("…[truncated: 3145728 bytes in all]") ?? false)
    }

    func testCorrelationHeaderBecomesCorrelationId() async throws {
        let log = try await logOne { logger in
            await logger.log(request: request("GET", headers: ["X-Correlation-ID": "c-1"]), response: response(200))
        }
        XCTAssertEqual(log["correlationId"] as? String, "c-1")
    }

    func testOutOfRangeStatusIsSentAs599WithTheReportedCode() async throws {
        let log = try await logOne { logger in
            await logger.log(request: request("GET"), response: response(999))
        }
        XCTAssertEqual(log["statusCode"] as? Int, 599)
        XCTAssertEqual(log["reportedStatusCode"] as? Int, 999)
    }

    func testEndBeforeStartGivesDurationZero() async throws {
        let log = try await logOne { logger in
            await logger.log(request: request("GET"), response: response(200), startedAt: Date(), endedAt: Date().addingTimeInterval(-5))
        }
        XCTAssertEqual(log["duration"] as? Double, 0)
    }

    func testHugeAndHostileHeadersStillFitAndPassValidation() async throws {
        var headers: [String: String] = ["__proto__": "x", "constructor": "y"]
        for index in 0..<150 { headers["X-Big-\(index)"] = String(repeating: "\u{1}", count: 8 * 1024) }
        headers[String(repeating: "N", count: 2_000_000)] = "long name"
        let responseHeaders = Dictionary(uniqueKeysWithValues: (0..<150).map { ("X-Resp-\($0)", String(repeating: "\"", count: 9000)) })
        let log = try await logOne { logger in
            await logger.log(
                request: request("POST", headers: headers, body: Data(repeating: UInt8(ascii: "b"), count: 60_000)),
                response: response(200, headers: responseHeaders),
                responseBody: Data(repeating: UInt8(ascii: "r"), count: 60_000)
            )
        }
        XCTAssertTrue(receiver.rejections.isEmpty, "\(receiver.rejections.map(\.reason))")
        XCTAssertLessThanOrEqual(try XCTUnwrap(receiver.storedLogs.first).count, 1_000_000)
        let requestHeaders = try XCTUnwrap(log["requestHeaders"] as? [String: String])
        XCTAssertNil(requestHeaders["__proto__"])
        XCTAssertNil(requestHeaders["constructor"])
        XCTAssertTrue(requestHeaders.keys.allSatisfy { $0.utf8.count <= 256 + 3 })
        XCTAssertEqual(log["requestBody"] as? String, String(repeating: "b", count: 60_000), "bodies keep the room the headers leave")
    }

    func testNegativeBodyLimitIsTreatedAsZero() async throws {
        let log = try await logOne({ $0.maxBodyBytes = -5 }) { logger in
            await logger.log(request: request("POST", body: Data("abc".utf8)), response: response(200))
        }
        XCTAssertEqual(log["requestBody"] as? String, "…[truncated: 3 bytes in all]")
    }

    func testAbsurdDatesGiveAValidTimestampInsteadOfACrash() async throws {
        let log = try await logOne { logger in
            await logger.log(
                request: request("GET"), response: response(200),
                startedAt: Date(timeIntervalSince1970: 1e300), endedAt: Date(timeIntervalSince1970: 1_800_000_000)
            )
        }
        XCTAssertEqual(log["timestamp"] as? Int, 1_800_000_000_000)
        XCTAssertEqual(log["duration"] as? Double, 0)
    }

    func testTheManualAPIReportsAnAppSetCorrelationHeader() async throws {
        func correlationID(_ headers: [String: String], _ configure: @escaping (inout DevSeeLoggerConfiguration) -> Void = { _ in }) async throws -> String? {
            let harness = LoggerHarness(receiver: receiver, configure)
            var request = URLRequest(url: URL(string: "https://api.example.com/a")!)
            headers.forEach { request.setValue($0.value, forHTTPHeaderField: $0.key) }
            await harness.logger.log(request: request, response: nil, error: URLError(.timedOut))
            await harness.logger.flush()
            XCTAssertEqual(harness.logger.statistics.delivered, 1)
            return receiver.storedObjects().last?["correlationId"] as? String
        }
        let value = try await correlationID(["X-Request-ID": "req-7"])
        XCTAssertEqual(value, "req-7")
        let traceparent = try await correlationID(["traceparent": "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"])
        XCTAssertEqual(traceparent, "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01")
        let strict = try await correlationID(["X-Request-ID": "req-7"]) { $0.redactor = .strict }
        XCTAssertEqual(strict, "[REDACTED]")
        let custom = try await correlationID(["X-Trace": "t-1", "X-Request-ID": "r"]) { $0.correlationHeaderNames = ["X-Trace"] }
        XCTAssertEqual(custom, "t-1")
        let absent = try await correlationID(["X-Other": "o"])
        XCTAssertNil(absent)
    }
}
