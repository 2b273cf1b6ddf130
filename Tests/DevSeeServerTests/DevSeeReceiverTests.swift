import Foundation
import XCTest
@testable import DevSeeServer
import HTTPCoreTestPeers
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

final class DevSeeReceiverTests: XCTestCase {
    private var session: URLSession!
    private var receiver: DevSeeReceiver!

    private static let validLog = """
        {"type":"api_log","appId":"com.example.myapp","method":"GET","url":"https://api.example.com/users/42",\
        "statusCode":200,"duration":124,"timestamp":1760000000123,"requestHeaders":{"Accept":"application/json"},\
        "requestBody":"{\\"id\\":42}","responseHeaders":{"content-type":"application/json"},\
        "responseBody":"{\\"name\\":\\"Roy\\"}"}
        """

    override func setUpWithError() throws {
        try super.setUpWithError()
        session = URLSession(configuration: .ephemeral)
        receiver = try DevSeeReceiver()
    }

    override func tearDown() {
        receiver.stop()
        receiver = nil
        session.invalidateAndCancel()
        session = nil
        super.tearDown()
    }

    // MARK: - Helpers

    private struct Answer {
        var status: Int
        var headers: [String: String]
        var body: Data
        var json: [String: Any]? { try? JSONSerialization.jsonObject(with: body) as? [String: Any] }
        var text: String { String(decoding: body, as: UTF8.self) }
    }

    private func post(
        _ body: String,
        contentType: String? = "application/json",
        path: String = "/api/logs"
    ) async throws -> Answer {
        try await send("POST", path, body: Data(body.utf8), contentType: contentType)
    }

    private func send(
        _ method: String,
        _ pathAndQuery: String,
        body: Data? = nil,
        contentType: String? = nil
    ) async throws -> Answer {
        var request = URLRequest(url: try XCTUnwrap(URL(string: receiver.baseURL.absoluteString + pathAndQuery)))
        request.httpMethod = method
        request.httpBody = body
        if let contentType { request.setValue(contentType, forHTTPHeaderField: "Content-Type") }
        let (data, response) = try await session.data(for: request)
        let http = try XCTUnwrap(response as? HTTPURLResponse)
        var headers: [String: String] = [:]
        for case let (name as String, value as String) in http.allHeaderFields {
            headers[name.lowercased()] = value
        }
        return Answer(status: http.statusCode, headers: headers, body: data)
    }

    /// A valid log with one field replaced (`nil` removes it), as JSON text.
    private func log(setting field: String, to value: String?) -> String {
        var fields: [(String, String)] = [
            ("method", #""GET""#), ("url", #""https://api.example.com/x""#),
            ("statusCode", "200"), ("duration", "12.5"),
        ]
        fields.removeAll { $0.0 == field }
        if let value { fields.append((field, value)) }
        return "{" + fields.map { "\"\($0.0)\":\($0.1)" }.joined(separator: ",") + "}"
    }

    private func assertValidationFails(
        _ body: String,
        contentType: String = "application/json",
        saying details: [String],
        file: StaticString = #filePath,
        line: UInt = #line
    ) async throws {
        let answer = try await post(body, contentType: contentType)
        XCTAssertEqual(answer.status, 400, file: file, line: line)
        XCTAssertEqual(answer.json?["error"] as? String, "Validation failed", file: file, line: line)
        XCTAssertEqual(answer.json?["details"] as? [String], details, file: file, line: line)
        XCTAssertEqual(receiver.storedLogs, [], file: file, line: line)
        XCTAssertEqual(receiver.rejections.last?.status, 400, file: file, line: line)
        XCTAssertEqual(receiver.rejections.last?.body, Data(body.utf8), file: file, line: line)
    }

    // MARK: - Accepting

    func test_validLog_isStoredAndAnswered201WithIdAndTheClientsTimestamp() async throws {
        let answer = try await post(Self.validLog)

        XCTAssertEqual(answer.status, 201)
        XCTAssertEqual(answer.headers["content-type"], "application/json")
        let entry = try XCTUnwrap(answer.json)
        let id = try XCTUnwrap(entry["id"] as? String)
        XCTAssertNotNil(UUID(uuidString: id))
        XCTAssertEqual(id, id.lowercased())
        XCTAssertEqual(entry["timestamp"] as? Int, 1_760_000_000_123, "the client's timestamp wins")
        XCTAssertEqual(entry["statusCode"] as? Int, 200)
        XCTAssertEqual(entry["appId"] as? String, "com.example.myapp")
        XCTAssertEqual(answer.text.prefix(7), #"{"id":""#, "the id comes first, as in {id, timestamp, ...body}")
        XCTAssertEqual(receiver.storedLogs, [Data(Self.validLog.utf8)])
        XCTAssertEqual(receiver.storedObjects().first?["url"] as? String, "https://api.example.com/users/42")
        XCTAssertEqual(receiver.postCount, 1)
        XCTAssertEqual(receiver.rejections, [])
    }

    func test_logWithoutTimestamp_getsTheServersISOTimestamp() async throws {
        let answer = try await post(log(setting: "method", to: #""POST""#))

        XCTAssertEqual(answer.status, 201)
        let timestamp = try XCTUnwrap(answer.json?["timestamp"] as? String)
        XCTAssertNotNil(ISO8601DateFormatter.withFractionalSeconds.date(from: timestamp), timestamp)
    }

    func test_contentTypeWithCharsetParameter_isAccepted() async throws {
        let answer = try await post(log(setting: "url", to: #""/relative""#), contentType: "application/json; charset=utf-8")

        XCTAssertEqual(answer.status, 201)
        XCTAssertEqual(receiver.storedLogs.count, 1)
    }

    func test_optionalFieldsOfTheRightType_areAccepted() async throws {
        let body = #"{"method":"GET","url":"u","statusCode":599,"duration":0,"error":"timed out","requestHeaders":{},"responseHeaders":{"a":"b"},"requestBody":null,"responseBody":[1,true],"correlationId":"c-1"}"#

        let answer = try await post(body)

        XCTAssertEqual(answer.status, 201)
        XCTAssertEqual(answer.json?["correlationId"] as? String, "c-1")
    }

    // MARK: - Rejecting

    func test_wrongContentType_is415() async throws {
        for type in ["application/x-www-form-urlencoded", "text/html", "application/jsonx"] {
            let answer = try await post(Self.validLog, contentType: type)
            XCTAssertEqual(answer.status, 415, type)
            XCTAssertEqual(answer.json?["code"] as? String, "FST_ERR_CTP_INVALID_MEDIA_TYPE", type)
        }
        XCTAssertEqual(receiver.rejections.map(\.status), [415, 415, 415])
        XCTAssertEqual(receiver.storedLogs, [])
        XCTAssertEqual(receiver.postCount, 3)
    }

    func test_textPlainBody_reachesValidationAsAString_andIs400NotAnObject() async throws {
        // Fastify parses text/plain into a string, which the route never reads as JSON.
        for body in ["not json", Self.validLog, ""] {
            try await assertValidationFails(body, contentType: "text/plain; charset=utf-8", saying: ["Request body must be a valid JSON object"])
        }
        XCTAssertEqual(receiver.rejections.map(\.status), [400, 400, 400])
    }

    func test_textPlainBodyOverOneMebibyte_is413() async throws {
        let answer = try await post(String(repeating: "x", count: 1_048_577), contentType: "text/plain")
        XCTAssertEqual(answer.status, 413)
    }

    func test_jsonThatIsNotAnObjectOrArray_is400NotAnObject() async throws {
        for body in ["null", "42", #""text""#, "true", "false", "0"] {
            try await assertValidationFails(body, saying: ["Request body must be a valid JSON object"])
        }
    }

    func test_noContentTypeAndNoBody_is400NotAnObject() throws {
        let connection = try RawHTTPConnection(port: receiver.port)
        try connection.send("POST /api/logs HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n")

        let answer = try connection.readResponse()
        XCTAssertEqual(answer.status, 400)
        XCTAssertEqual(receiver.rejections.map(\.reason), ["Validation failed: Request body must be a valid JSON object"])
    }

    func test_durationOfAnyNonNegativeNumber_isAccepted() async throws {
        for value in ["0", "1e300", "1e400", "0.001"] {
            let answer = try await post(log(setting: "duration", to: value))
            XCTAssertEqual(answer.status, 201, value)
        }
    }

    func test_aNumberOutOfDoubleRange_isAcceptedAsInfinity_andServedAsNull() async throws {
        // JSON.parse reads 1e400 as Infinity, which passes `duration >= 0`; JSON.stringify
        // writes Infinity as null, in the 201 and in GET /api/logs alike.
        let body = #"{"method":"GET","url":"u","statusCode":200,"duration":1e400,"sizes":[-1e400,1]}"#

        let answer = try await post(body)

        XCTAssertEqual(answer.status, 201)
        let stored = #","method":"GET","url":"u","statusCode":200,"duration":null,"sizes":[null,1]}"#
        XCTAssertTrue(answer.text.hasSuffix(stored), answer.text)
        let id = try XCTUnwrap(answer.json?["id"] as? String)
        let served = try await send("GET", "/api/logs/\(id)")
        XCTAssertEqual(served.text, answer.text)
        XCTAssertEqual(receiver.storedLogs, [Data(body.utf8)], "the body as sent")
        let object = try XCTUnwrap(receiver.storedObjects().first, "JSONSerialization alone refuses 1e400")
        XCTAssertTrue(object["duration"] is NSNull, "\(object)")
    }

    func test_infiniteNumbers_areComparedAsJavaScriptComparesThem() async throws {
        try await assertValidationFails(log(setting: "duration", to: "-1e400"), saying: [#"Field "duration" must be >= 0"#])
        try await assertValidationFails(
            log(setting: "statusCode", to: "1e400"),
            saying: [#"Field "statusCode" must be between 100 and 599"#]
        )
    }

    func test_aLeadingByteOrderMark_isSkippedAsSecureJSONParseSkipsIt() async throws {
        let body = Data([0xEF, 0xBB, 0xBF]) + Data(log(setting: "method", to: #""PUT""#).utf8)

        let answer = try await send("POST", "/api/logs", body: body, contentType: "application/json")

        XCTAssertEqual(answer.status, 201)
        XCTAssertEqual(answer.json?["method"] as? String, "PUT")
        XCTAssertEqual(receiver.storedLogs, [body])
        XCTAssertEqual(receiver.storedObjects().first?["method"] as? String, "PUT")
    }

    // MARK: - Invalid UTF-8

    /// A valid log whose URL ends in `bytes`, which may be invalid UTF-8.
    private func log(urlEndingIn bytes: [UInt8]) -> Data {
        Data(#"{"method":"GET","url":"https://x/"#.utf8) + bytes + Data(#"","statusCode":200,"duration":1}"#.utf8)
    }

    /// Posts `body` as JSON in one chunk, without a Content-Length (which URLSession always sends).
    private func postChunked(_ body: Data) throws -> RawHTTPConnection.Response {
        let connection = try RawHTTPConnection(port: receiver.port)
        let head = "POST /api/logs HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"
        try connection.send(Data(head.utf8) + Data((String(body.count, radix: 16) + "\r\n").utf8) + body + Data("\r\n0\r\n\r\n".utf8))
        return try connection.readResponse()
    }

    func test_invalidUTF8SentChunked_isAccepted_withOneReplacementCharacterPerMaximalIllFormedSubsequence() throws {
        // Fastify reads the body as text (Node's UTF-8 decoding) before JSON.parse; chunked,
        // there is no declared length to compare the text with.
        let body = log(urlEndingIn: [0xFF, 0xC0, 0xAF, 0xF0, 0x9F, 0x98])

        let answer = try postChunked(body)

        XCTAssertEqual(answer.status, 201)
        let entry = try XCTUnwrap(JSONSerialization.jsonObject(with: answer.body) as? [String: Any])
        XCTAssertEqual(entry["url"] as? String, "https://x/\u{FFFD}\u{FFFD}\u{FFFD}\u{FFFD}", "FF, C0 AF as two, F0 9F 98 as one")
        XCTAssertEqual(receiver.storedLogs, [body], "the body as sent")
        XCTAssertEqual(receiver.storedObjects().first?["url"] as? String, entry["url"] as? String, "JSONSerialization alone refuses it")
    }

    func test_invalidUTF8WithAContentLength_isAcceptedOnlyWhenTheDecodedTextKeepsThatLength() async throws {
        // Fastify compares Content-Length with the decoded text's UTF-8 length: U+FFFD is
        // three bytes, so only 3-byte ill-formed subsequences (a cut 4-byte character) keep it.
        let kept = try await send("POST", "/api/logs", body: log(urlEndingIn: [0xF0, 0x9F, 0x98]), contentType: "application/json")
        let grown = try await send("POST", "/api/logs", body: log(urlEndingIn: [0xFF]), contentType: "application/json")

        XCTAssertEqual(kept.status, 201)
        XCTAssertEqual(kept.json?["url"] as? String, "https://x/\u{FFFD}")
        XCTAssertEqual(grown.status, 400)
        XCTAssertEqual(grown.json?["code"] as? String, "FST_ERR_CTP_INVALID_CONTENT_LENGTH")
        XCTAssertEqual(grown.json?["message"] as? String, "Request body size did not match Content-Length")
        XCTAssertEqual(receiver.storedLogs, [log(urlEndingIn: [0xF0, 0x9F, 0x98])])
        XCTAssertEqual(receiver.rejections.map(\.status), [400])
    }

    func test_invalidUTF8ThatDecodesPastOneMebibyte_is413() throws {
        // Fastify limits the decoded text: one FF, a byte on the wire, is three.
        let skeleton = log(urlEndingIn: [0xFF])
        let padding = Data(repeating: UInt8(ascii: "x"), count: 1_048_576 - skeleton.count)
        let body = log(urlEndingIn: Array(padding) + [0xFF])

        let answer = try postChunked(body)

        XCTAssertEqual(body.count, 1_048_576)
        XCTAssertEqual(answer.status, 413)
        XCTAssertEqual(receiver.rejections.map(\.status), [413])
    }

    func test_missingContentType_is415() throws {
        // URLSession on Linux adds `application/x-www-form-urlencoded` to bodies without a
        // content type, so the request is sent by hand.
        let connection = try RawHTTPConnection(port: receiver.port)
        try connection.send("POST /api/logs HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\n{}")

        XCTAssertEqual(try connection.readResponse().status, 415)
        XCTAssertEqual(receiver.rejections.map(\.status), [415])
    }

    func test_emptyBody_is400() async throws {
        let answer = try await post("")

        XCTAssertEqual(answer.status, 400)
        XCTAssertEqual(answer.json?["code"] as? String, "FST_ERR_CTP_EMPTY_JSON_BODY")
        XCTAssertEqual(receiver.rejections.map(\.status), [400])
    }

    func test_invalidJSON_is400() async throws {
        let answer = try await post(#"{"method":"GET","#)

        XCTAssertEqual(answer.status, 400)
        XCTAssertEqual(answer.json?["code"] as? String, "FST_ERR_CTP_INVALID_JSON_BODY")
        XCTAssertEqual(receiver.storedLogs, [])
    }

    func test_jsonArray_isAnObjectToJavaScript_andFailsEveryFieldCheck() async throws {
        try await assertValidationFails("[\(Self.validLog)]", saying: [
            #"Field "method" is required and must be a string"#, #"Field "url" is required and must be a string"#,
            #"Field "statusCode" is required and must be a number"#, #"Field "duration" is required and must be a number"#,
        ])
    }

    func test_missingMethod_is400() async throws {
        try await assertValidationFails(log(setting: "method", to: nil), saying: [#"Field "method" is required and must be a string"#])
    }

    func test_emptyMethod_is400() async throws {
        try await assertValidationFails(log(setting: "method", to: #""""#), saying: [#"Field "method" is required and must be a string"#])
    }

    func test_missingURL_is400() async throws {
        try await assertValidationFails(log(setting: "url", to: nil), saying: [#"Field "url" is required and must be a string"#])
    }

    func test_emptyURL_is400() async throws {
        try await assertValidationFails(log(setting: "url", to: #""""#), saying: [#"Field "url" is required and must be a string"#])
    }

    func test_missingStatusCode_is400() async throws {
        try await assertValidationFails(log(setting: "statusCode", to: nil), saying: [#"Field "statusCode" is required and must be a number"#])
    }

    func test_statusCodeAsString_is400() async throws {
        try await assertValidationFails(log(setting: "statusCode", to: #""200""#), saying: [#"Field "statusCode" is required and must be a number"#])
    }

    func test_statusCodeAsBoolean_is400() async throws {
        try await assertValidationFails(log(setting: "statusCode", to: "true"), saying: [#"Field "statusCode" is required and must be a number"#])
    }

    func test_statusCodeOutOfRange_is400() async throws {
        try await assertValidationFails(log(setting: "statusCode", to: "99"), saying: [#"Field "statusCode" must be between 100 and 599"#])
        try await assertValidationFails(log(setting: "statusCode", to: "600"), saying: [#"Field "statusCode" must be between 100 and 599"#])
    }

    func test_missingDuration_is400() async throws {
        try await assertValidationFails(log(setting: "duration", to: nil), saying: [#"Field "duration" is required and must be a number"#])
    }

    func test_negativeDuration_is400() async throws {
        try await assertValidationFails(log(setting: "duration", to: "-1"), saying: [#"Field "duration" must be >= 0"#])
    }

    func test_durationAsBoolean_is400() async throws {
        try await assertValidationFails(log(setting: "duration", to: "false"), saying: [#"Field "duration" is required and must be a number"#])
    }

    func test_errorNull_is400() async throws {
        try await assertValidationFails(log(setting: "error", to: "null"), saying: [#"Field "error" must be a string"#])
    }

    func test_headersThatAreNotObjectsToJavaScript_are400() async throws {
        try await assertValidationFails(log(setting: "requestHeaders", to: #""a: b""#), saying: [#"Field "requestHeaders" must be an object"#])
        try await assertValidationFails(log(setting: "responseHeaders", to: "12"), saying: [#"Field "responseHeaders" must be an object"#])
        try await assertValidationFails(log(setting: "requestHeaders", to: "true"), saying: [#"Field "requestHeaders" must be an object"#])
    }

    func test_headersThatAreNullOrArrays_areAcceptedAsTheRealServerDoes() async throws {
        for value in ["null", #"["a"]"#] {
            let answer = try await post(log(setting: "requestHeaders", to: value))
            XCTAssertEqual(answer.status, 201, value)
            let other = try await post(log(setting: "responseHeaders", to: value))
            XCTAssertEqual(other.status, 201, value)
        }
        XCTAssertEqual(receiver.storedLogs.count, 4)
        XCTAssertTrue(receiver.storedObjects()[0]["requestHeaders"] is NSNull, "stored as sent")
    }

    func test_headerObjectsWithNullOrNonStringValues_areAcceptedAsTheRealServerDoes() async throws {
        let answer = try await post(log(setting: "requestHeaders", to: #"{"a":null,"b":1,"c":["x"]}"#))
        XCTAssertEqual(answer.status, 201)
        XCTAssertEqual(receiver.storedLogs.count, 1)
    }

    func test_prototypePoisoningAnywhere_is400() async throws {
        let poisoned = [
            log(setting: "__proto__", to: #"{"x":1}"#),
            log(setting: "responseBody", to: #"{"a":[{"__proto__":{"admin":true}}]}"#),
            log(setting: "requestHeaders", to: #"{"constructor":{"prototype":{"admin":true}}}"#),
            log(setting: "extra", to: #"[[{"b":{"constructor":{"prototype":1}}}]]"#),
        ]
        for body in poisoned {
            let answer = try await post(body)
            XCTAssertEqual(answer.status, 400, body)
            XCTAssertEqual(answer.json?["message"] as? String, "Object contains forbidden prototype property", body)
        }
        let harmless = try await post(log(setting: "requestHeaders", to: #"{"constructor":"x","prototype":"y"}"#))
        XCTAssertEqual(harmless.status, 201, "a constructor key without a prototype inside is fine")
        XCTAssertEqual(receiver.storedLogs.count, 1)
    }

    func test_everyMissingRequiredField_isListed() async throws {
        let answer = try await post("{}")

        XCTAssertEqual(answer.status, 400)
        let details = answer.json?["details"] as? [String] ?? []
        XCTAssertEqual(details, [
            #"Field "method" is required and must be a string"#, #"Field "url" is required and must be a string"#,
            #"Field "statusCode" is required and must be a number"#, #"Field "duration" is required and must be a number"#,
        ])
    }

    func test_bodyOverOneMebibyte_is413() async throws {
        let padding = String(repeating: "x", count: 1_048_576)
        let body = log(setting: "responseBody", to: "\"\(padding)\"")

        let answer = try await post(body)

        XCTAssertEqual(answer.status, 413)
        XCTAssertEqual(receiver.rejections.map(\.status), [413])
        XCTAssertEqual(receiver.rejections.first?.body.count, body.utf8.count)
    }

    func test_bodyOfExactlyOneMebibyte_isAccepted() async throws {
        let skeleton = log(setting: "responseBody", to: #""""#)
        let padding = String(repeating: "x", count: 1_048_576 - skeleton.utf8.count)
        let body = log(setting: "responseBody", to: "\"\(padding)\"")

        let answer = try await post(body)

        XCTAssertEqual(body.utf8.count, 1_048_576)
        XCTAssertEqual(answer.status, 201)
    }

    // MARK: - Stored objects

    /// A stored log read as `storedObjects()` read every log on every call before it kept its
    /// objects: the receiver's parse, non-finite numbers as `null`, then JSONSerialization.
    private func objectReadAfresh(_ body: Data) throws -> NSDictionary {
        let log = try DevSeeLogValidator.parse(body)
        let text = Data(log.nonFiniteNumbersAsNull.serialized.utf8)
        return try XCTUnwrap(JSONSerialization.jsonObject(with: text) as? NSDictionary)
    }

    func test_storedObjects_parsesEachLogOnce_andReturnsWhatReadingItAfreshReturns() async throws {
        let infinite = #"{"method":"GET","url":"u","statusCode":200,"duration":1e400,"sizes":[-1e400,1]}"#
        let infiniteAnswer = try await post(infinite)
        let invalidUTF8Answer = try postChunked(log(urlEndingIn: [0xFF, 0xC0, 0xAF]))
        XCTAssertEqual([infiniteAnswer.status, invalidUTF8Answer.status], [201, 201])

        let first = receiver.storedObjects()
        let second = receiver.storedObjects()

        XCTAssertEqual(receiver.parsedLogCount, 2, "each log parsed once, by the first call")
        XCTAssertEqual(first.count, 2)
        XCTAssertTrue(first[0]["duration"] is NSNull, "\(first[0])")
        XCTAssertEqual(first[0]["sizes"] as? NSArray, [NSNull(), 1])
        XCTAssertEqual(first[1]["url"] as? String, "https://x/\u{FFFD}\u{FFFD}\u{FFFD}", "FF, then C0 AF as two")
        let readAfresh = try receiver.storedLogs.map(objectReadAfresh)
        XCTAssertEqual(first.map { NSDictionary(dictionary: $0) }, readAfresh, "first call")
        XCTAssertEqual(second.map { NSDictionary(dictionary: $0) }, readAfresh, "second call")

        let validAnswer = try await post(Self.validLog)
        XCTAssertEqual(validAnswer.status, 201)
        XCTAssertEqual(receiver.storedObjects().map { $0["method"] as? String }, ["GET", "GET", "GET"])
        XCTAssertEqual(receiver.parsedLogCount, 3, "only the new log parsed")
    }

    // MARK: - Scripted answers

    func test_scriptedAnswers_areUsedInOrderThenNormalHandlingResumes() async throws {
        receiver.script([
            .status(500),
            .tooManyRequests(retryAfter: 7),
            .body(status: 502, contentType: "text/html", body: "<html>bad gateway</html>"),
            .body(status: 200, contentType: "application/json", body: "{not json"),
        ])

        let failed = try await post(Self.validLog)
        let limited = try await post(Self.validLog)
        let html = try await post(Self.validLog)
        let garbage = try await post(Self.validLog)
        let stored = try await post(Self.validLog)

        XCTAssertEqual(failed.status, 500)
        XCTAssertEqual(limited.status, 429)
        XCTAssertEqual(limited.headers["retry-after"], "7")
        XCTAssertEqual(html.status, 502)
        XCTAssertEqual(html.headers["content-type"], "text/html")
        XCTAssertEqual(html.text, "<html>bad gateway</html>")
        XCTAssertEqual(garbage.status, 200)
        XCTAssertEqual(garbage.text, "{not json")
        XCTAssertEqual(stored.status, 201)
        XCTAssertEqual(receiver.rejections.map(\.status), [500, 429, 502, 200])
        XCTAssertEqual(receiver.storedLogs.count, 1)
        XCTAssertEqual(receiver.postCount, 5)
    }

    func test_scriptedReset_resetsTheConnectionAndStoresNothing() async throws {
        receiver.script([.reset])

        do {
            _ = try await post(Self.validLog)
            XCTFail("a reset must fail the request")
        } catch {
            XCTAssertNotNil(error as? URLError)
        }
        XCTAssertEqual(receiver.rejections.map(\.status), [0])
        XCTAssertEqual(receiver.storedLogs, [])
        XCTAssertEqual(receiver.postCount, 1)
    }

    func test_scriptedDelay_delaysThenHandlesNormally() async throws {
        receiver.script([.delay(0.2)])
        let started = Date()

        let answer = try await post(Self.validLog)

        XCTAssertEqual(answer.status, 201)
        XCTAssertGreaterThanOrEqual(Date().timeIntervalSince(started), 0.2)
        XCTAssertEqual(receiver.storedLogs.count, 1)
    }

    func test_scriptedStatus_onlyAppliesToPostsOfLogs() async throws {
        receiver.script([.status(503)])

        let list = try await send("GET", "/api/logs")
        let answer = try await post(Self.validLog)

        XCTAssertEqual(list.status, 200)
        XCTAssertEqual(answer.status, 503)
    }

    // MARK: - Waiting

    func test_waitForLogs_returnsOnceEnoughLogsAreStored() async throws {
        let session = session!
        let url = try XCTUnwrap(URL(string: receiver.baseURL.absoluteString + "/api/logs"))
        let body = Data(Self.validLog.utf8)
        let senders = Task {
            for _ in 0..<3 {
                var request = URLRequest(url: url)
                request.httpMethod = "POST"
                request.httpBody = body
                request.setValue("application/json", forHTTPHeaderField: "Content-Type")
                _ = try await session.data(for: request)
            }
        }

        try await receiver.waitForLogs(count: 3)

        XCTAssertGreaterThanOrEqual(receiver.storedLogs.count, 3)
        try await senders.value
    }

    func test_waitForLogs_whenLogsAreAlreadyStored_returnsAtOnce() async throws {
        _ = try await post(Self.validLog)

        try await receiver.waitForLogs(count: 1, timeout: 0)
    }

    func test_waitForLogs_throwsTimeoutSayingHowManyArrived() async throws {
        _ = try await post(Self.validLog)

        do {
            try await receiver.waitForLogs(count: 2, timeout: 0.1)
            XCTFail("only one log was sent")
        } catch let timeout as DevSeeReceiver.Timeout {
            XCTAssertEqual(timeout, DevSeeReceiver.Timeout(expected: 2, arrived: 1, timeout: 0.1))
            XCTAssertEqual(timeout.description, "DevSeeReceiver: waited 0.1 s for 2 stored logs, but only 1 arrived")
        }
    }

    func test_waitForLogs_whenCancelled_throwsCancellationError() async throws {
        let receiver = receiver!
        let waiting = Task { try await receiver.waitForLogs(count: 1, timeout: 60) }

        waiting.cancel()

        do {
            try await waiting.value
            XCTFail("the wait was cancelled")
        } catch {
            XCTAssertTrue(error is CancellationError, "\(error)")
        }
    }

    // MARK: - Other endpoints

    func test_getLogs_returnsTheNewestEntriesUpToLimit_andDeleteClearsThem() async throws {
        for method in ["GET", "POST", "PUT"] {
            _ = try await post(log(setting: "method", to: "\"\(method)\""))
        }

        let limited = try await send("GET", "/api/logs?limit=2")
        let badLimit = try await send("GET", "/api/logs?limit=zero")
        let deleted = try await send("DELETE", "/api/logs")
        let afterDelete = try await send("GET", "/api/logs")

        XCTAssertEqual(limited.status, 200)
        XCTAssertEqual(limited.json?["count"] as? Int, 2)
        let logs = limited.json?["logs"] as? [[String: Any]] ?? []
        XCTAssertEqual(logs.compactMap { $0["method"] as? String }, ["POST", "PUT"])
        XCTAssertEqual(badLimit.status, 400)
        XCTAssertEqual(deleted.status, 200)
        XCTAssertEqual(afterDelete.json?["count"] as? Int, 0)
        XCTAssertEqual(receiver.storedLogs.count, 3, "the test history survives DELETE")
    }

    func test_getLogs_readsLimitAsDevSeesParseIntDoes_andAnswersWithItsBodies() async throws {
        for method in ["GET", "POST", "PUT"] {
            _ = try await post(log(setting: "method", to: "\"\(method)\""))
        }
        func count(_ query: String) async throws -> Int? {
            try await send("GET", "/api/logs" + query).json?["count"] as? Int
        }
        let counts = [
            try await count("?limit=10abc"), try await count("?limit=%202"), try await count("?limit="),
            try await count("?limit=1.9"), try await count("?limit=1&limit=2"),
        ]
        XCTAssertEqual(counts, [3, 2, 3, 1, 1])
        for bad in ["zero", "0", "-1", "0x10", "%20"] {
            let answer = try await send("GET", "/api/logs?limit=\(bad)")
            XCTAssertEqual(answer.status, 400, bad)
            XCTAssertEqual(answer.text, #"{"error":"Invalid limit parameter","details":["limit must be a positive number"]}"#, bad)
        }
        let missing = try await send("GET", "/api/logs/nope")
        XCTAssertEqual(missing.text, #"{"error":"Log not found","details":["No log found with id: nope"]}"#)
        let deleted = try await send("DELETE", "/api/logs")
        XCTAssertEqual(deleted.text, #"{"message":"All logs cleared"}"#)
    }

    func test_getLogById_returnsTheEntryOr404() async throws {
        let created = try await post(Self.validLog)
        let id = try XCTUnwrap(created.json?["id"] as? String)

        let found = try await send("GET", "/api/logs/\(id)")
        let missing = try await send("GET", "/api/logs/nope")

        XCTAssertEqual(found.status, 200)
        XCTAssertEqual(found.json?["id"] as? String, id)
        XCTAssertEqual(missing.status, 404)
    }

    // MARK: - Lifecycle

    func test_restartOnTheSamePortAfterStop_succeeds() async throws {
        _ = try await post(Self.validLog)
        let port = receiver.port
        receiver.stop()

        receiver = try DevSeeReceiver(port: port)
        let answer = try await post(Self.validLog)

        XCTAssertEqual(receiver.port, port)
        XCTAssertEqual(answer.status, 201)
        XCTAssertEqual(receiver.storedLogs.count, 1)
    }
}

extension ISO8601DateFormatter {
    fileprivate static var withFractionalSeconds: ISO8601DateFormatter {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter
    }
}
