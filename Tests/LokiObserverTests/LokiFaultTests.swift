import Foundation
import HTTPCore
import HTTPCoreDelivery
import HTTPCoreTesting
import LokiObserver
import XCTest
import HTTPCoreConcurrency
import HTTPCoreTestPeers

/// The fault matrix of the dev-see delivery tests, against the Loki receiver: every line ends
/// delivered, rejected, failed, dropped or expired, counted, and reported once.
final class LokiFaultTests: XCTestCase {
    func testLokiDownThenUpIsUsedAgainWithoutRestart() async throws {
        let first = try LokiReceiver()
        let port = first.port
        first.stop()
        let harness = LokiHarness(receiver: first) {
            $0.delivery.batching = .single
            $0.delivery.maximumRetries = 0
        }
        for index in 0..<3 { harness.logger.info("line \(index)") }
        try await harness.waitForDiagnostic(containing: "unreachable")
        let receiver = try LokiReceiver(port: port)
        defer { receiver.stop() }
        let received = try await receiver.waitForEntries(3)
        XCTAssertEqual(Set(received.lines), ["msg=\"line 0\"", "msg=\"line 1\"", "msg=\"line 2\""])
        await harness.logger.flush()
        let diagnostics = harness.diagnostics.withLock { $0 }
        XCTAssertEqual(diagnostics.filter { $0.contains("unreachable") }.count, 1, "\(diagnostics)")
        XCTAssertEqual(diagnostics.last, "the destination is reachable again")
        let statistics = harness.logger.statistics
        XCTAssertEqual([statistics.delivered, statistics.failed, statistics.retried], [3, 0, 0], "probes are not retries")
    }

    func testAnOutageOfAHundredProbeIntervalsLosesNoLine() async throws {
        let first = try LokiReceiver()
        let port = first.port
        first.stop()
        let harness = LokiHarness(receiver: first) {
            $0.delivery.backoff = Backoff(initial: 0.001, maximum: 0.001, jitter: .none)
            $0.delivery.batching = .init(maximumCount: 5)
        }
        for index in 0..<20 { harness.logger.info("line \(index)") }
        try await waitUntil("100 probes, \(harness.logger.statistics)") { harness.logger.statistics.probes >= 100 }
        let receiver = try LokiReceiver(port: port)
        defer { receiver.stop() }
        let received = try await receiver.waitForEntries(20)
        XCTAssertEqual(received.lines.sorted(), (0..<20).map { "msg=\"line \($0)\"" }.sorted(), "each line exactly once")
        await harness.logger.flush()
        let statistics = harness.logger.statistics
        XCTAssertEqual([statistics.delivered, statistics.failed, statistics.dropped, statistics.pending], [20, 0, 0, 0])
        XCTAssertTrue(statistics.isBalanced)
    }

    func testLinesOlderThanTheMaximumAgeExpireDuringAnOutageAndTheRestAreDelivered() async throws {
        let first = try LokiReceiver()
        let port = first.port
        first.stop()
        let clock = Locked(DispatchTime.now().uptimeNanoseconds)
        let harness = LokiHarness(receiver: first) {
            $0.delivery.backoff = Backoff(initial: 0.001, maximum: 0.001, jitter: .none)
            $0.delivery.batching = .single
            $0.delivery.maximumAge = 600
            $0.delivery.uptimeNanoseconds = { clock.withLock { $0 } }
        }
        for index in 0..<3 { harness.logger.info("old \(index)") }
        try await harness.waitForDiagnostic(containing: "unreachable")
        clock.withLock { $0 += 601 * 1_000_000_000 }
        try await waitUntil("3 expired, \(harness.logger.statistics)") { harness.logger.statistics.expired == 3 }
        for index in 0..<2 { harness.logger.info("new \(index)") }
        let receiver = try LokiReceiver(port: port)
        defer { receiver.stop() }
        let received = try await receiver.waitForEntries(2)
        XCTAssertEqual(received.lines.sorted(), ["msg=\"new 0\"", "msg=\"new 1\""])
        await harness.logger.flush()
        let statistics = harness.logger.statistics
        XCTAssertEqual([statistics.expired, statistics.delivered, statistics.failed], [3, 2, 0])
        XCTAssertTrue(statistics.isBalanced)
    }

    func testServerErrorsAndGarbageAnswersAreRetriedUntilRecovery() async throws {
        let receiver = try LokiReceiver()
        defer { receiver.stop() }
        try await receiver.script([["status": 500], ["status": 502, "body": "<html>bad gateway</html>"]])
        let harness = LokiHarness(receiver: receiver)
        harness.logger.info("hello")
        await harness.logger.flush()
        let received = try await receiver.received()
        XCTAssertEqual(received.answers, ["500", "502", "204"])
        XCTAssertEqual(harness.logger.statistics.delivered, 1)
        XCTAssertEqual(harness.logger.statistics.retried, 2)
    }

    func testServerErrorsBeyondTheRetriesFailAndAreCounted() async throws {
        let receiver = try LokiReceiver()
        defer { receiver.stop() }
        try await receiver.script(Array(repeating: ["status": 503], count: 3))
        let harness = LokiHarness(receiver: receiver) { $0.delivery.maximumRetries = 2 }
        harness.logger.info("hello")
        await harness.logger.flush()
        let answers = try await receiver.received().answers
        XCTAssertEqual(answers, ["503", "503", "503"])
        let statistics = harness.logger.statistics
        XCTAssertEqual([statistics.failed, statistics.delivered], [1, 0])
        XCTAssertTrue(statistics.isBalanced)
    }

    func testTooManyRequestsWaitsForRetryAfter() async throws {
        let receiver = try LokiReceiver()
        defer { receiver.stop() }
        try await receiver.script([["status": 429, "retry_after": "1"]])
        let harness = LokiHarness(receiver: receiver) { $0.delivery.backoff = Backoff(initial: 0.01, maximum: 5, jitter: .none) }
        harness.logger.info("hello")
        await harness.logger.flush()
        let received = try await receiver.received()
        XCTAssertEqual(received.answers, ["429", "204"])
        let waited = received.attemptTimes[1] - received.attemptTimes[0]
        XCTAssertGreaterThanOrEqual(waited, 0.95, "waited for Retry-After, not the 10 ms backoff")
    }

    func testAClientErrorIsNotRetriedAndIsReportedOnce() async throws {
        let receiver = try LokiReceiver()
        defer { receiver.stop() }
        try await receiver.script(Array(repeating: ["status": 400, "body": "entry too far behind"], count: 2))
        let harness = LokiHarness(receiver: receiver) { $0.delivery.batching = .single; $0.delivery.maximumConcurrentSends = 1 }
        harness.logger.info("one")
        harness.logger.info("two")
        await harness.logger.flush()
        let answers = try await receiver.received().answers
        XCTAssertEqual(answers, ["400", "400"])
        XCTAssertEqual(harness.logger.statistics.rejected, 2)
        XCTAssertEqual(harness.logger.statistics.retried, 0)
        XCTAssertEqual(harness.diagnostics.withLock { $0 }, [
            "the destination refused a batch with status 400 (entry too far behind); such batches are dropped",
        ])
    }

    func testARefusalThatEchoesACredentialIsReportedRedactedByTheLoggersRedactor() async throws {
        let receiver = try LokiReceiver()
        defer { receiver.stop() }
        try await receiver.script([["status": 400, "body": "invalid push: Authorization: Bearer abc123def, stream_key=SK-991"]])
        let harness = LokiHarness(receiver: receiver) { $0.redactor = Redactor(sensitiveBodyKeys: ["stream_key"]) }
        harness.logger.info("one")
        await harness.logger.flush()
        XCTAssertEqual(harness.diagnostics.withLock { $0 }, [
            "the destination refused a batch with status 400 (invalid push: Authorization: Bearer [REDACTED], stream_key=[REDACTED]); "
                + "such batches are dropped",
        ])
    }

    func testAConnectionResetIsRetried() async throws {
        let receiver = try LokiReceiver()
        defer { receiver.stop() }
        try await receiver.script([["reset": true]])
        let harness = LokiHarness(receiver: receiver)
        harness.logger.info("hello")
        harness.logger.info("world")
        let received = try await receiver.waitForEntries(2)
        XCTAssertEqual(received.answers, ["reset", "204"])
        XCTAssertEqual(received.lines, ["msg=hello", "msg=world"], "the batch put back was sent whole, in order")
        await harness.logger.flush()
        XCTAssertEqual(harness.logger.statistics.delivered, 2)
    }

    func testAHangingServerTimesOutAndTheBatchIsRetried() async throws {
        let receiver = try LokiReceiver()
        defer { receiver.stop() }
        try await receiver.script([["delay": 10]])
        let harness = LokiHarness(receiver: receiver) { $0.timeout = 1 }
        harness.logger.info("hello")
        _ = try await receiver.waitForEntries(1)
        await harness.logger.flush()
        let statistics = harness.logger.statistics
        XCTAssertEqual([statistics.delivered, statistics.retried], [1, 0])
        XCTAssertGreaterThanOrEqual(statistics.probes, 1, "no answer: the line waits and is probed")
    }

    func testAFlushWhileLokiIsUnreachableReturnsPromptlyKeepingTheLinesAndShutdownGivesThemUp() async throws {
        let receiver = try LokiReceiver()
        receiver.stop()
        let harness = LokiHarness(receiver: receiver) {
            $0.delivery.backoff = Backoff(initial: 30, maximum: 30, jitter: .none)
            $0.delivery.batching = .single
        }
        for index in 0..<20 { harness.logger.info("line \(index)") }
        await harness.logger.flush()
        var statistics = harness.logger.statistics
        XCTAssertEqual([statistics.pending, statistics.failed], [20, 0], "an outage fails nothing")
        await harness.logger.shutdown()
        statistics = harness.logger.statistics
        XCTAssertEqual([statistics.pending, statistics.failed], [0, 20])
        XCTAssertTrue(statistics.isBalanced)
    }

    func testAHundredThousandLinesWithLokiDownStayWithinTheByteLimit() async throws {
        let receiver = try LokiReceiver()
        receiver.stop()
        let limit = 1024 * 1024
        let harness = LokiHarness(receiver: receiver) {
            $0.delivery.bufferByteLimit = limit
            $0.delivery.backoff = Backoff(initial: 30, maximum: 30, jitter: .none)
        }
        for index in 0..<100_000 { harness.logger.info("request \(index) finished", metadata: ["status": "200"]) }
        let statistics = harness.logger.statistics
        XCTAssertLessThanOrEqual(statistics.bufferedBytes, limit)
        XCTAssertGreaterThan(statistics.dropped, 90_000)
        XCTAssertTrue(statistics.isBalanced)
        XCTAssertTrue(harness.diagnostics.withLock { $0 }.contains { $0.hasPrefix("buffer full (10000 lines or 1024 KiB)") })
        await harness.logger.shutdown()
    }

    /// With Loki down, ten message lines of a 100 KiB prompt's answer and the exchange's line
    /// fit a 512 KiB buffer: the later messages share the request the first one counted
    /// (charged it each, they weighed about 1 MiB and pushed lines out).
    func testAStreamsMessagesShareTheCostOfTheirRequest() async throws {
        let receiver = try LokiReceiver()
        receiver.stop()
        let harness = LokiHarness(receiver: receiver) {
            $0.maxMessageLinesPerExchange = 10
            $0.delivery.bufferByteLimit = 512 * 1024
            $0.delivery.backoff = Backoff(initial: 30, maximum: 30, jitter: .none)
        }
        let observer = LokiObserver(logger: harness.logger)
        let request = HTTPRequest(method: .post, url: URL(string: "https://api.example.com/v1/chat")!, body: Data(count: 100 * 1024))
        let response = HTTPResponse(requestID: request.id, statusCode: 200, headers: [:], body: Data(), url: request.url)
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        for index in 0..<10 {
            observer.handle(.responseMessage("token \(index)", index: index, of: response, to: request, startedAt: start))
        }
        observer.handle(.requestSucceeded(response, to: request, startedAt: start, endedAt: start + 1))
        let statistics = harness.logger.statistics
        XCTAssertEqual([statistics.accepted, statistics.dropped, statistics.pending], [11, 0, 11], "\(statistics)")
        await harness.logger.shutdown()
    }
}
