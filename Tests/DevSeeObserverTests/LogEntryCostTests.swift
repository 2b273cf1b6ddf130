@testable import DevSeeObserver
import HTTPCore
import HTTPCoreObservation
import HTTPCoreGenAI
import Foundation
import XCTest
import DevSeeServer
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The cost per waiting log: a burst of ordinary exchanges fits the default buffer.
final class LogEntryCostTests: XCTestCase {
    func testFiveThousandLogsOfAOneKibibyteExchangeFitTheDefaultBuffer() async throws {
        let receiver = try DevSeeReceiver()
        receiver.stop()
        let harness = LoggerHarness(receiver: receiver) { $0.delivery.backoff.initial = 30; $0.delivery.backoff.maximum = 30 }
        XCTAssertEqual(harness.logger.configuration.delivery.bufferByteLimit, 16 * 1024 * 1024)
        var request = URLRequest(url: URL(string: "https://api.example.com/v2/orders/8412?include=items&page=1")!)
        request.httpMethod = "POST"
        for (name, value) in [
            ("Accept", "application/json"), ("Content-Type", "application/json"), ("Authorization", "Bearer eyJhbGciOiJIUzI1NiJ9.e30.sig"),
            ("User-Agent", "MyApp/3.2 (iPhone; iOS 18.1)"), ("Accept-Language", "en-GB,en;q=0.9"), ("X-Request-ID", "9c3b1f2e-5d"),
        ] {
            request.setValue(value, forHTTPHeaderField: name)
        }
        request.httpBody = Data(#"{"items":[{"sku":"A-1","quantity":2}]}"#.utf8)
        let response = try XCTUnwrap(HTTPURLResponse(url: request.url!, statusCode: 200, httpVersion: "HTTP/1.1", headerFields: [
            "Content-Type": "application/json; charset=utf-8", "Cache-Control": "no-store", "Date": "Mon, 23 Nov 2026 10:00:00 GMT",
            "ETag": "\"33a64df5\"", "Server": "nginx", "Vary": "Accept-Encoding", "X-Request-ID": "9c3b1f2e-5d", "Content-Length": "1024",
        ]))
        let body = Data(repeating: UInt8(ascii: "x"), count: 1024)
        for _ in 0..<5_000 {
            await harness.logger.log(request: request, response: response, responseBody: body, startedAt: Date())
        }
        let statistics = harness.logger.statistics
        XCTAssertEqual(statistics.dropped, 0, "\(statistics)")
        XCTAssertEqual(statistics.pending, 5_000)
        XCTAssertLessThanOrEqual(statistics.bufferedBytes, 16 * 1024 * 1024)
        XCTAssertFalse(harness.diagnostics.state.contains { $0.hasPrefix("buffer full") })
    }

    /// The messages of one stream share its request: the first counts it, the others only
    /// their own data, so ten messages of a 100 KiB prompt's answer and its exchange log fit a
    /// 512 KiB buffer (charged the prompt once per message, they weighed about 1 MiB).
    func testAStreamsMessagesShareTheCostOfTheirRequest() async throws {
        let receiver = try DevSeeReceiver()
        receiver.stop()
        let harness = LoggerHarness(receiver: receiver) { configuration in
            configuration.maxMessageLogsPerExchange = 10
            configuration.delivery.bufferByteLimit = 512 * 1024
            configuration.delivery.backoff.initial = 30
            configuration.delivery.backoff.maximum = 30
        }
        let request = HTTPRequest(
            method: .post, url: URL(string: "https://api.example.com/v1/chat")!, headers: ["Content-Type": "application/json"],
            body: Data(repeating: UInt8(ascii: "p"), count: 100 * 1024)
        )
        let response = HTTPResponse(
            requestID: request.id, statusCode: 200, headers: ["Content-Type": "text/event-stream"], body: Data(), url: request.url
        )
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        let messages = (0..<10).map { index in
            HTTPEvent.responseMessage("{\"t\":\"token \(index)\"}", index: index, of: response, to: request, startedAt: start, at: start + 1)
        }
        XCTAssertGreaterThan(messages.reduce(0) { $0 + $1.retainedByteCount }, 2 * 512 * 1024 - 1024)
        for message in messages { harness.logger.accept(message) }
        harness.logger.accept(.requestSucceeded(response, to: request, startedAt: start, endedAt: start + 2))
        let statistics = harness.logger.statistics
        XCTAssertEqual(statistics.dropped, 0, "\(statistics)")
        XCTAssertEqual(statistics.pending, 11)
    }

    func testAnAttachmentsEntryCountsWhatTheAttachmentKeeps() throws {
        func call(model: String, stopSequences: [String]? = nil) throws -> GenAIExchange {
            let request = HTTPRequest(method: .post, url: URL(string: "https://api.openai.com/v1/chat/completions")!)
            return GenAIExchange(
                recognition: try XCTUnwrap(GenAIRecognizer.standard.recognize(request)),
                request: GenAIRequestParameters(model: model, stopSequences: stopSequences),
                response: GenAIResponse()
            )
        }
        func cost(_ call: GenAIExchange) -> Int {
            let request = HTTPRequest(method: .post, url: URL(string: "https://api.openai.com/v1/chat/completions")!)
            let response = HTTPResponse(requestID: request.id, statusCode: 200, headers: [:], body: Data(), url: request.url)
            let start = Date(timeIntervalSince1970: 1_800_000_000)
            let event = HTTPEvent.requestSucceeded(response, to: request, startedAt: start, endedAt: start + 1, attachments: [call])
            return LogEntry(event: event, maxBodyBytes: 1024).byteCost
        }
        let short = try call(model: "gpt-4o")
        let longModel = try call(model: String(repeating: "m", count: 100_000))
        let longStop = try call(model: "gpt-4o", stopSequences: [String(repeating: "s", count: 1 << 20)])
        XCTAssertEqual(cost(longModel) - cost(short), longModel.retainedByteCount - short.retainedByteCount)
        XCTAssertGreaterThan(cost(longModel) - cost(short), 100_000, "the model's name")
        XCTAssertEqual(cost(longStop) - cost(short), longStop.retainedByteCount - short.retainedByteCount)
        XCTAssertGreaterThan(cost(longStop) - cost(short), 1 << 20, "a stop sequence is as long as the request body made it")
    }
}
