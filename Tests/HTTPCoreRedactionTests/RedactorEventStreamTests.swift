import Foundation
import HTTPCoreRedaction
import XCTest

/// A captured stream is masked the way it is parsed: server-sent events event by event with
/// their data lines joined (WHATWG), JSON lines line by line.
final class RedactorEventStreamTests: XCTestCase {
    private func masked(_ body: String, _ type: String = "text/event-stream", _ redactor: Redactor = .standard) -> String {
        String(decoding: redactor.redactedBody(Data(body.utf8), contentType: type), as: UTF8.self)
    }

    func testJSONSpreadOverTheDataLinesOfOneEventIsReadWhole() {
        let pretty = "data: {\ndata:   \"user\": \"ann\",\ndata:   \"password\": \"hunter2\"\ndata: }\n\n"
        XCTAssertEqual(masked(pretty), "data: {\ndata:   \"user\": \"ann\",\ndata:   \"password\": \"[REDACTED]\"\ndata: }\n\n")
        let keyThenValue = "event: login\ndata: {\"password\":\ndata: \"hunter2\"}\n\ndata: {\"n\":1}\n\n"
        XCTAssertEqual(masked(keyThenValue), "event: login\ndata: {\"password\":\ndata: \"[REDACTED]\"}\n\ndata: {\"n\":1}\n\n")
        let crlf = "data: {\"token\":\r\ndata: \"abc123\"}\r\n\r\n"
        XCTAssertEqual(masked(crlf), "data: {\"token\":\r\ndata: \"[REDACTED]\"}\r\n\r\n")
        let bareCR = "data: {\"token\":\rdata: \"abc123\"}\r\r"
        XCTAssertEqual(masked(bareCR), "data: {\"token\":\rdata: \"[REDACTED]\"}\r\r")
    }

    func testAnEventThatStaysUnchangedIsCopiedByteForByte() {
        let stream = "id: 7\nevent: message_start\ndata:{\"type\":\"message_start\",\"usage\":{\"input_tokens\":25}}\n\n: keep-alive\n\ndata: [DONE]\n\n"
        XCTAssertEqual(masked(stream), stream)
    }

    func testEventDataThatIsAJSONStringHoldingJSONWithEscapedKeyLettersIsMasked() {
        let stream = #"data: "{\"pass\\u0077ord\":\"hunter2\",\"n\":1}""# + "\n\n"
        let output = masked(stream)
        XCTAssertFalse(output.contains("hunter2"), output)
        XCTAssertTrue(output.contains(#"\"n\":1"#), output)
    }

    func testASecretNamedEventHasItsDataMasked() {
        XCTAssertEqual(masked("event: session_token\ndata: abc123def\n\n"), "event: session_token\ndata: [REDACTED]\n\n")
        XCTAssertEqual(
            masked("event: credentials\ndata: {\"user\":\"ann\",\"password\":\"x\"}\n\n"),
            "event: credentials\ndata: {\"user\":\"ann\",\"password\":\"[REDACTED]\"}\n\n"
        )
        XCTAssertEqual(masked("event: token_count\ndata: 12\n\n"), "event: token_count\ndata: 12\n\n")
        XCTAssertEqual(masked("event: token\ndata: Hel\n\n"), "event: token\ndata: [REDACTED]\n\n", "a token's, without exceptions")
        var exceptions = Redactor.standard
        exceptions.nameExceptions = NameExceptions(eventNames: ["token"])
        XCTAssertEqual(masked("event: token\ndata: Hel\n\n", "text/event-stream", exceptions), "event: token\ndata: Hel\n\n", "an ordinary event's")
        XCTAssertEqual(exceptions, .standard, "exceptions are no part of the redactor's equality")
        let message = Redactor.standard.redactedStreamData(Data("abc123def".utf8), isTruncated: false, eventType: "auth_token")
        XCTAssertEqual(String(decoding: message, as: UTF8.self), Redactor.mask)
    }

    func testAnEventCutByTheCaptureCapIsMaskedAsFarAsItGoes() {
        let output = Redactor.standard.redactedBody(
            Data("data: {\"a\":1}\n\ndata: {\"password\":\ndata: \"hun".utf8), contentType: "text/event-stream", isTruncated: true
        )
        XCTAssertEqual(String(decoding: output, as: UTF8.self), "data: {\"a\":1}\n\ndata: {\"password\":\ndata: \"[REDACTED]\"")
    }

    func testALineOfJSONLinesThatIsNotJSONGetsTheTextRules() {
        let lines = "{\"token\":\"abc\",\"n\":1}\nnot json: password=hunter2 and more\n{\"done\":true}\n"
        XCTAssertEqual(
            masked(lines, "application/x-ndjson"),
            "{\"token\":\"[REDACTED]\",\"n\":1}\nnot json: password=[REDACTED] and more\n{\"done\":true}\n"
        )
    }

    func testEveryMessageOfALongStreamIsMaskedAsItWouldBeAlone() {
        // Keys repeat across messages and many are new (more key bytes than a stream's key
        // memory keeps): each message is judged by its own keys all the same.
        func message(_ index: Int) -> (String, String) {
            let name = "field_\(index)_" + String(repeating: "x", count: 100)
            let input = #"{"\#(name)":"v\#(index)","password":"p\#(index)","token_type":"Bearer"}"#
            return (input, #"{"\#(name)":"v\#(index)","password":"[REDACTED]","token_type":"Bearer"}"#)
        }
        let messages = (0..<300).map(message)
        XCTAssertEqual(masked(messages.map { $0.0 + "\n" }.joined(), "application/x-ndjson"), messages.map { $0.1 + "\n" }.joined())
        XCTAssertEqual(masked(messages.map { "data: " + $0.0 + "\n\n" }.joined()), messages.map { "data: " + $0.1 + "\n\n" }.joined())
    }

    func testProviderKeysInStreamedDeltasAreMasked() {
        let key = "sk-proj-" + String(repeating: "Ab3", count: 16)
        let stream = "data: {\"choices\":[{\"delta\":{\"content\":\"use \(key) here\"}}]}\n\n"
        XCTAssertEqual(masked(stream), "data: {\"choices\":[{\"delta\":{\"content\":\"use [REDACTED] here\"}}]}\n\n")
    }
}
