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

    func testAnLLMCallsLineShowsItsSummaryBeforeTheStreamsAnswer() throws {
        let plain = LogLineFormatter(usesColor: false, isVerbose: false)
        let summary = "claude-sonnet-4-20250514 · 3,097 in, 15 out tokens · first chunk 500 ms · stop"
        let log = try stored([
            "method": "POST", "url": "https://api.anthropic.com/v1/messages", "statusCode": 200, "duration": 812.4,
            "timestamp": 1_800_000_000_000, "requestId": "7", "streamed": true, "responseBodyBytes": 1004, "streamMessageCount": 8,
            "streamAnswer": "Hello! How can I help?", "genAI": ["gen_ai.provider.name": "anthropic", "gen_ai.usage.output_tokens": 15],
            "responseBody": "[genAI] \(summary)\n[stream] 8 messages in 1004 bytes, the Anthropic answer:\nHello! How can I help?\n\n[events]\n",
        ])
        XCTAssertEqual(
            plain.format(log),
            "\(time(1_800_000_000_000))  POST    200       812 ms  https://api.anthropic.com/v1/messages  req 7  genAI: \(summary)"
                + "  streamed 8 messages, 1004 bytes  answer: Hello! How can I help?"
        )
        let failed = try stored([
            "method": "POST failed after 200", "url": "https://api.anthropic.com/v1/messages", "statusCode": 599, "duration": 30000,
            "timestamp": 1_800_000_000_000, "error": "timed out", "genAI": ["gen_ai.provider.name": "anthropic"],
            "responseBody": "[error] timed out after 30 s\n[genAI] claude-sonnet-4-20250514 · 3,097 in tokens · error timeout\n[stream] 2 messages in 300 bytes",
        ])
        XCTAssertEqual(
            plain.format(failed),
            "\(time(1_800_000_000_000))  POST failed after 200  failed    30.0 s  https://api.anthropic.com/v1/messages  (timed out)"
                + "  genAI: claude-sonnet-4-20250514 · 3,097 in tokens · error timeout"
        )
    }

    /// DevSeeObserver leaves a JSON body as captured and puts its notes in `x-devsee-note-*`
    /// headers; a text body leads with them as well, and each note is read once.
    func testNotesAreReadFromTheNoteHeadersOnceAsWellAsFromTheBodysFirstLines() throws {
        let summary = "gpt-4o-mini · 12 in, 3 out tokens · stop"
        let json = try stored([
            "method": "POST", "url": "https://api.openai.com/v1/chat/completions", "statusCode": 200, "duration": 5,
            "timestamp": 1_800_000_000_000, "genAI": ["gen_ai.provider.name": "openai"],
            "responseHeaders": ["x-devsee-note-genai": "[genAI] \(summary)", "content-type": "application/json"],
            "responseBody": "{\"id\":\"chatcmpl-1\"}",
        ])
        XCTAssertEqual(json.notes, [StoredLog.Note(name: "genAI", summary: summary)])
        let text = try stored([
            "method": "POST", "url": "https://api.openai.com/v1/chat/completions", "statusCode": 200, "duration": 5,
            "timestamp": 1_800_000_000_000, "genAI": ["gen_ai.provider.name": "openai"],
            "responseHeaders": ["x-devsee-note-genai": "[genAI] \(summary)"],
            "responseBody": "[genAI] \(summary)\nplain text",
        ])
        XCTAssertEqual(text.notes, [StoredLog.Note(name: "genAI", summary: summary)])
    }

    func testABodyLineThatLooksLikeASummaryIsNoneWithoutAGenAIField() throws {
        let log = try stored([
            "method": "POST", "url": "https://a.example/x", "statusCode": 200, "duration": 5, "timestamp": 1_800_000_000_000,
            "responseBody": "[genAI] not a call",
        ])
        XCTAssertEqual(log.notes, [])
        XCTAssertEqual(LogLineFormatter(usesColor: false, isVerbose: false).format(log), "\(time(1_800_000_000_000))  POST    200       5.0 ms  https://a.example/x")
    }

    /// Any interpreter's note reads as the LLM call's does: by its name, never a vendor's.
    func testEveryNoteWithItsAttributesObjectShowsByItsNameInOrder() throws {
        let log = try stored([
            "method": "GET", "url": "https://cdn.example/a.js", "statusCode": 200, "duration": 5, "timestamp": 1_800_000_000_000,
            "cache": ["status": "HIT", "cache.age": 42], "edgeCache": ["pop": "fra"],
            "responseBody": "[attempt 2, the last: 503 first] x\n[cache] HIT, age 42\n[edgeCache] fra\n[other] no object\nbody",
        ])
        XCTAssertEqual(log.notes, [StoredLog.Note(name: "cache", summary: "HIT, age 42"), StoredLog.Note(name: "edgeCache", summary: "fra")])
        XCTAssertEqual(
            LogLineFormatter(usesColor: false, isVerbose: false).format(log),
            "\(time(1_800_000_000_000))  GET     200       5.0 ms  https://cdn.example/a.js  cache: HIT, age 42  edgeCache: fra"
        )
    }

    func testAWebSocketConnectionReadsAsItsOpeningItsMessagesAndItsEnd() throws {
        let plain = LogLineFormatter(usesColor: false, isVerbose: false)
        let url = "wss://rt.example.com/live"
        let openNote = "[websocket] open: messages flow; a closing row with its messages follows when the connection ends"
        let opening = try stored([
            "method": "WS", "url": url, "statusCode": 101, "duration": 12, "timestamp": 1_800_000_000_000, "requestId": "9",
            "websocket": ["state": "open"], "responseHeaders": ["x-devsee-note-websocket": openNote, "Upgrade": "websocket"],
            "responseBody": openNote,
        ])
        XCTAssertEqual(
            plain.format(opening),
            "\(time(1_800_000_000_000))  WS      101        12 ms  \(url)  websocket: open: messages flow; a closing row with its messages follows when the connection ends"
        )
        let sent = try stored([
            "method": "WS ↑ #0", "url": url + "#message-0", "statusCode": 101, "duration": 49, "timestamp": 1_800_000_001_000, "requestId": "9",
            "streamMessage": ["index": 0, "kind": "websocket", "direction": "sent", "opcode": "text", "byteCount": 20],
            "requestBody": #"{"type":"subscribe"}"#,
        ])
        XCTAssertEqual(plain.format(sent), "\(time(1_800_000_001_000))  WS ↑    #0         49 ms  \(url)  [text] {\"type\":\"subscribe\"}  req 9")
        let closeNote = "[websocket] closed 1000 by the client after 30.1 s · ↑ 2 messages, 40 bytes · ↓ 3 messages, 18 bytes"
        let closing = try stored([
            "method": "WS", "url": url, "statusCode": 101, "duration": 30_100, "timestamp": 1_800_000_000_000, "requestId": "9",
            "websocket": ["state": "closed", "closeCode": 1000], "responseHeaders": ["x-devsee-note-websocket": closeNote],
            "responseBody": closeNote + "\n[messages] 1 of 5: ↑ sent, ↓ received, time since the connection opened\n↑ +49 ms text hi",
        ])
        XCTAssertEqual(plain.format(closing), "\(time(1_800_000_000_000))  WS      101       30.1 s  \(url)  websocket: " + closeNote.dropFirst(12))
        XCTAssertEqual(
            LogLineFormatter(usesColor: false, isVerbose: true).format(closing).split(separator: "\n").last,
            "    <   ↑ +49 ms text hi"
        )
        XCTAssertTrue(LogLineFormatter(usesColor: true, isVerbose: false).format(closing).contains("\u{1B}[36m101   \u{1B}[0m"))
    }
}
