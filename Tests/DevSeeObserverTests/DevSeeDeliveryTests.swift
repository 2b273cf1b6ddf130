import DevSeeObserver
import Foundation
import HTTPCore
import HTTPCoreTesting
import XCTest
import DevSeeServer
import HTTPCoreConcurrency
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Delivery to a real loopback receiver that answers like the dev-see server.
final class DevSeeDeliveryTests: XCTestCase {
    private var receiver: DevSeeReceiver!

    override func setUpWithError() throws {
        receiver = try DevSeeReceiver()
    }

    override func tearDown() {
        receiver.stop()
    }

    func testEveryLogArrivesExactlyOnce() async throws {
        let harness = LoggerHarness(receiver: receiver)
        for index in 0..<50 {
            await harness.logger.log(request: request("GET", "https://api.example.com/items/\(index)"), response: response(200))
        }
        await harness.logger.flush()
        let urls = receiver.storedObjects().compactMap { $0["url"] as? String }
        XCTAssertEqual(urls, (0..<50).map { "https://api.example.com/items/\($0)" }, "the viewer lists them in the order they were logged")
        XCTAssertEqual(receiver.postCount, 50)
        let statistics = harness.logger.statistics
        XCTAssertEqual(statistics.accepted, 50)
        XCTAssertEqual(statistics.delivered, 50)
        XCTAssertEqual(statistics.retried, 0)
        XCTAssertEqual(statistics.pending, 0)
        XCTAssertTrue(statistics.isBalanced)
    }

    /// A large log held in flight does not hold back the small logs after it, which still
    /// arrive in order; the large one arrives once let through.
    func testALargeLogInFlightDoesNotHoldBackTheSmallOnesBehindIt() async throws {
        let harness = LoggerHarness(receiver: receiver) { $0.maxBodyBytes = 512 * 1024 }
        let gate = receiver.makeGate()
        receiver.script([.held(gate)])
        let large = Data(String(repeating: "a", count: 300 * 1024).utf8)
        await harness.logger.log(request: request("GET", "https://api.example.com/export"), response: response(200), responseBody: large)
        try await receiver.waitForPosts(count: 1)
        for index in 0..<3 {
            await harness.logger.log(request: request("GET", "https://api.example.com/items/\(index)"), response: response(200))
        }
        try await receiver.waitForLogs(count: 3)
        XCTAssertEqual(receiver.storedObjects().compactMap { $0["url"] as? String }, (0..<3).map { "https://api.example.com/items/\($0)" })
        gate.open()
        await harness.logger.flush()
        XCTAssertEqual(receiver.storedObjects().last?["url"] as? String, "https://api.example.com/export")
        XCTAssertEqual((receiver.storedObjects().last?["responseBody"] as? String)?.utf8.count, large.count)
        XCTAssertEqual(harness.logger.statistics.delivered, 4)
        XCTAssertTrue(harness.logger.statistics.isBalanced)
    }

    func testServerDownThenUpIsUsedAgainWithoutRestart() async throws {
        let port = receiver.port
        receiver.stop()
        let harness = LoggerHarness(receiver: receiver) { $0.delivery.maximumRetries = 0 }
        for index in 0..<5 {
            await harness.logger.log(request: request("GET", "https://api.example.com/\(index)"), response: response(200))
        }
        try await harness.waitForDiagnostic(containing: "unreachable")
        receiver = try DevSeeReceiver(port: port)
        try await receiver.waitForLogs(count: 5)
        await harness.logger.flush()
        XCTAssertEqual(receiver.storedLogs.count, 5)
        try await harness.waitForDiagnostic(containing: "reachable again")
        XCTAssertEqual(harness.diagnostics.state.filter { $0.contains("unreachable") }.count, 1, "one line, not one per log")
        let statistics = harness.logger.statistics
        XCTAssertEqual([statistics.delivered, statistics.failed, statistics.retried], [5, 0, 0], "probes are not retries")
        XCTAssertTrue(statistics.isBalanced)
    }

    func testAnOutageOfAHundredProbeIntervalsLosesNoLog() async throws {
        let port = receiver.port
        receiver.stop()
        let harness = LoggerHarness(receiver: receiver) {
            $0.delivery.backoff.initial = 0.001
            $0.delivery.backoff.maximum = 0.001
        }
        for index in 0..<20 {
            await harness.logger.log(request: request("GET", "https://api.example.com/\(index)"), response: response(200))
        }
        try await waitUntil("100 probes, \(harness.logger.statistics)") { harness.logger.statistics.probes >= 100 }
        receiver = try DevSeeReceiver(port: port)
        try await receiver.waitForLogs(count: 20)
        await harness.logger.flush()
        let urls = receiver.storedObjects().compactMap { $0["url"] as? String }
        XCTAssertEqual(urls.sorted(), (0..<20).map { "https://api.example.com/\($0)" }.sorted(), "each log exactly once")
        let statistics = harness.logger.statistics
        XCTAssertEqual([statistics.delivered, statistics.failed, statistics.dropped, statistics.pending], [20, 0, 0, 0])
        XCTAssertTrue(statistics.isBalanced)
    }

    func testLogsOlderThanTheMaximumAgeExpireDuringAnOutageAndTheRestAreDelivered() async throws {
        let port = receiver.port
        receiver.stop()
        let clock = Locked(DispatchTime.now().uptimeNanoseconds)
        let harness = LoggerHarness(receiver: receiver) {
            $0.delivery.backoff.initial = 0.001
            $0.delivery.backoff.maximum = 0.001
            $0.delivery.maximumAge = 600
            $0.delivery.uptimeNanoseconds = { clock.withLock { $0 } }
        }
        for index in 0..<3 {
            await harness.logger.log(request: request("GET", "https://api.example.com/old/\(index)"), response: response(200))
        }
        try await harness.waitForDiagnostic(containing: "unreachable")
        clock.withLock { $0 += 601 * 1_000_000_000 }
        try await waitUntil("3 expired, \(harness.logger.statistics)") { harness.logger.statistics.expired == 3 }
        for index in 0..<2 {
            await harness.logger.log(request: request("GET", "https://api.example.com/new/\(index)"), response: response(200))
        }
        receiver = try DevSeeReceiver(port: port)
        try await receiver.waitForLogs(count: 2)
        await harness.logger.flush()
        let urls = receiver.storedObjects().compactMap { $0["url"] as? String }
        XCTAssertEqual(urls.sorted(), ["https://api.example.com/new/0", "https://api.example.com/new/1"])
        let statistics = harness.logger.statistics
        XCTAssertEqual([statistics.expired, statistics.delivered, statistics.failed], [3, 2, 0])
        XCTAssertTrue(statistics.isBalanced)
        // Reported once, with the count of the first expiry: the three may expire at one probe or at two.
        let expiries = harness.diagnostics.state.filter { $0.contains("waited longer than the maximum age") }
        XCTAssertEqual(expiries.count, 1, "\(expiries)")
    }

    func testServerErrorsAreRetriedUntilRecovery() async throws {
        receiver.script([.status(500), .status(503)])
        let harness = LoggerHarness(receiver: receiver)
        await harness.logger.log(request: request(), response: response(200))
        await harness.logger.flush()
        XCTAssertEqual(receiver.storedLogs.count, 1)
        XCTAssertEqual(receiver.postCount, 3)
        XCTAssertEqual(harness.logger.statistics.retried, 2)
        XCTAssertEqual(harness.logger.statistics.delivered, 1)
    }

    func testServerErrorsBeyondRetriesFailAndAreCounted() async throws {
        receiver.script([.status(500), .status(500), .status(500)])
        let harness = LoggerHarness(receiver: receiver) { $0.delivery.maximumRetries = 2 }
        await harness.logger.log(request: request(), response: response(200))
        await harness.logger.flush()
        XCTAssertEqual(receiver.storedLogs.count, 0)
        XCTAssertEqual(receiver.postCount, 3)
        XCTAssertEqual(harness.logger.statistics.failed, 1)
        XCTAssertTrue(harness.logger.statistics.isBalanced)
    }

    func testTooManyRequestsHonoursRetryAfter() async throws {
        receiver.script([.tooManyRequests(retryAfter: 1)])
        let harness = LoggerHarness(receiver: receiver) { $0.delivery.backoff.maximum = 5 }
        let started = Date()
        await harness.logger.log(request: request(), response: response(200))
        await harness.logger.flush()
        XCTAssertGreaterThanOrEqual(Date().timeIntervalSince(started), 0.95, "waited for Retry-After, not the 20 ms backoff")
        XCTAssertEqual(receiver.storedLogs.count, 1)
        XCTAssertEqual(harness.logger.statistics.retried, 1)
    }

    func testClientErrorIsNotRetriedAndReportedOnce() async throws {
        receiver.script([.status(400), .status(400)])
        let harness = LoggerHarness(receiver: receiver)
        await harness.logger.log(request: request(), response: response(200))
        await harness.logger.log(request: request(), response: response(200))
        await harness.logger.flush()
        XCTAssertEqual(receiver.postCount, 2)
        XCTAssertEqual(receiver.storedLogs.count, 0)
        let statistics = harness.logger.statistics
        XCTAssertEqual(statistics.rejected, 2)
        XCTAssertEqual(statistics.retried, 0)
        XCTAssertEqual(harness.diagnostics.state.filter { $0.contains("400") }.count, 1)
    }

    func testARefusalThatEchoesACredentialIsReportedRedactedByTheLoggersRedactor() async throws {
        receiver.script([.body(status: 403, contentType: "application/json", body: #"{"error":"forbidden","api_key":"sk-live-991","app":"x"}"#)])
        let harness = LoggerHarness(receiver: receiver) { $0.redactor = Redactor(sensitiveBodyKeys: ["app"]) }
        await harness.logger.log(request: request(), response: response(200))
        await harness.logger.flush()
        XCTAssertEqual(harness.logger.statistics.rejected, 1)
        XCTAssertEqual(harness.diagnostics.state, [
            #"the destination refused a batch with status 403 ({"error":"forbidden","api_key":"[REDACTED]","app":"[REDACTED]"}); "#
                + "such batches are dropped",
        ])
    }

    func testAnswerThatIsNotDevSeeIsRejected() async throws {
        receiver.script([.body(status: 200, contentType: "text/html", body: "<html>hello</html>")])
        let harness = LoggerHarness(receiver: receiver)
        await harness.logger.log(request: request(), response: response(200))
        await harness.logger.flush()
        XCTAssertEqual(harness.logger.statistics.rejected, 1)
        XCTAssertEqual(harness.logger.statistics.delivered, 0)
    }

    func testInvalidJSONServerErrorIsRetried() async throws {
        receiver.script([.body(status: 502, contentType: "application/json", body: "{not json")])
        let harness = LoggerHarness(receiver: receiver)
        await harness.logger.log(request: request(), response: response(200))
        await harness.logger.flush()
        XCTAssertEqual(harness.logger.statistics.delivered, 1)
        XCTAssertEqual(harness.logger.statistics.retried, 1)
    }

    func testAConnectionResetIsProbedAndTheLogDelivered() async throws {
        receiver.script([.reset])
        let harness = LoggerHarness(receiver: receiver)
        await harness.logger.log(request: request(), response: response(200))
        try await receiver.waitForLogs(count: 1)
        await harness.logger.flush()
        let statistics = harness.logger.statistics
        XCTAssertEqual([statistics.delivered, statistics.probes, statistics.retried], [1, 1, 0])
    }

    func testAHangingServerTimesOutAndTheLogIsProbedAgain() async throws {
        receiver.script([.delay(30)])
        // The probe runs under the same timeout: 3 s, so a slow machine's probe is not a second one.
        let harness = LoggerHarness(receiver: receiver) { $0.uploadTimeout = 3 }
        await harness.logger.log(request: request(), response: response(200))
        try await receiver.waitForLogs(count: 1, timeout: 60)
        await harness.logger.flush()
        let statistics = harness.logger.statistics
        XCTAssertEqual([statistics.delivered, statistics.probes, statistics.retried], [1, 1, 0])
    }

    func testAFlushWhileUnreachableReturnsPromptlyKeepingTheLogsAndShutdownGivesThemUp() async throws {
        receiver.stop()
        let harness = LoggerHarness(receiver: receiver) { $0.delivery.backoff.maximum = 30; $0.delivery.backoff.initial = 30 }
        for _ in 0..<20 { await harness.logger.log(request: request(), response: response(200)) }
        try await harness.waitForDiagnostic(containing: "unreachable")
        await harness.logger.flush()
        var statistics = harness.logger.statistics
        XCTAssertEqual([statistics.pending, statistics.failed], [20, 0], "an outage fails nothing")
        await harness.logger.shutdown()
        statistics = harness.logger.statistics
        XCTAssertEqual([statistics.pending, statistics.failed], [0, 20])
        XCTAssertTrue(statistics.isBalanced)
        let givenUp = harness.diagnostics.state.filter { $0.contains("given up") }
        XCTAssertFalse(givenUp.isEmpty, "shutdown reports what it gave up")
    }

    func testHundredThousandLogsWithServerDownStayWithinTheByteLimit() async throws {
        receiver.stop()
        let limit = 1024 * 1024
        let harness = LoggerHarness(receiver: receiver) {
            $0.delivery.bufferByteLimit = limit
            $0.delivery.bufferLimit = 1_000_000
        }
        let body = Data(repeating: UInt8(ascii: "x"), count: 1024)
        let template = request("POST", "https://api.example.com/upload", headers: ["Content-Type": "text/plain"], body: body)
        var peak = 0
        for index in 0..<100_000 {
            await harness.logger.log(request: template, response: nil)
            if index % 1000 == 0 { peak = max(peak, harness.logger.statistics.bufferedBytes) }
        }
        let statistics = harness.logger.statistics
        peak = max(peak, statistics.bufferedBytes)
        XCTAssertLessThanOrEqual(peak, limit)
        XCTAssertEqual(statistics.accepted, 100_000)
        XCTAssertGreaterThan(statistics.dropped, 90_000)
        XCTAssertTrue(statistics.isBalanced, "\(statistics)")
        await harness.logger.shutdown()
    }

    func testCountLimitDropsOldestFirst() async throws {
        let port = receiver.port
        receiver.stop()
        let harness = LoggerHarness(receiver: receiver) { $0.delivery.bufferLimit = 3; $0.delivery.maximumConcurrentSends = 1 }
        for index in 0..<10 {
            await harness.logger.log(request: request("GET", "https://a.example/\(index)"), response: response(200))
        }
        let whileDown = harness.logger.statistics
        XCTAssertGreaterThanOrEqual(whileDown.dropped, 6)
        XCTAssertTrue(whileDown.isBalanced)
        receiver = try DevSeeReceiver(port: port)
        try await receiver.waitForLogs(count: 3)
        await harness.logger.flush()
        let delivered = Set(receiver.storedObjects().compactMap { ($0["url"] as? String)?.split(separator: "/").last.map(String.init) })
        XCTAssertTrue(delivered.isSuperset(of: ["7", "8", "9"]), "\(delivered)")
        XCTAssertTrue(delivered.isSubset(of: ["0", "7", "8", "9"]), "only the first log, taken by the worker before the drops, may survive: \(delivered)")
        // A flush returns early if the server drops a connection meanwhile: await the last log.
        try await waitUntil("nothing pending, \(harness.logger.statistics)") { harness.logger.statistics.pending == 0 }
        let statistics = harness.logger.statistics
        XCTAssertEqual(statistics.delivered + statistics.dropped, 10, "\(statistics)")
    }

    func testDisabledLoggerIsInert() async throws {
        let harness = LoggerHarness(receiver: receiver) { $0.isEnabled = false }
        XCTAssertFalse(harness.logger.isEnabled)
        let token = harness.logger.beginRequest(request())
        await harness.logger.logCompleted(token: token, request: request(), response: response(200))
        await harness.logger.log(request: request(), response: response(200))
        await harness.logger.flush()
        XCTAssertEqual(harness.logger.statistics, .init())
        XCTAssertEqual(receiver.postCount, 0)
    }

    func testEnabledByDefaultOnlyInDebugBuilds() {
        #if DEBUG
        XCTAssertTrue(DevSeeLoggerConfiguration(appId: "a").isEnabled)
        #else
        XCTAssertFalse(DevSeeLoggerConfiguration(appId: "a").isEnabled)
        #endif
    }

    func testHundredIdenticalRequestsInFlightAreToldApartByTheirTokens() async throws {
        let harness = LoggerHarness(receiver: receiver)
        let base = Date(timeIntervalSince1970: 1_800_000_000)
        let shared = request("GET", "https://api.example.com/same")
        let tokens = await withTaskGroup(of: (Int, DevSeeRequestToken).self) { group in
            for index in 0..<100 {
                group.addTask { (index, harness.logger.beginRequest(shared, at: base.addingTimeInterval(Double(index) / 1000))) }
            }
            return await group.reduce(into: [Int: DevSeeRequestToken]()) { $0[$1.0] = $1.1 }
        }
        XCTAssertEqual(Set(tokens.values).count, 100)
        await withTaskGroup(of: Void.self) { group in
            for (_, token) in tokens {
                group.addTask {
                    await harness.logger.logCompleted(token: token, request: shared, response: response(200), endedAt: base.addingTimeInterval(1))
                }
            }
        }
        await harness.logger.flush()
        let logs = receiver.storedObjects()
        XCTAssertEqual(logs.count, 100)
        var durationByID: [String: Double] = [:]
        for log in logs { durationByID[log["requestId"] as? String ?? ""] = log["duration"] as? Double }
        for (index, token) in tokens {
            XCTAssertEqual(try XCTUnwrap(durationByID[token.description]), 1000 - Double(index), accuracy: 0.01)
        }
    }

    func testNilOrUnknownTokenStillLogsWithDurationZero() async throws {
        let harness = LoggerHarness(receiver: receiver)
        let other = LoggerHarness(receiver: receiver).logger
        let foreign = other.beginRequest(request(), at: Date().addingTimeInterval(-10))
        await harness.logger.logCompleted(token: nil, request: request(), response: response(200))
        await harness.logger.logCompleted(token: foreign, request: request(), response: response(204))
        await harness.logger.flush()
        let logs = receiver.storedObjects()
        XCTAssertEqual(logs.compactMap { $0["statusCode"] as? Int }.sorted(), [200, 204])
        XCTAssertEqual(logs.compactMap { $0["duration"] as? Double }, [0, 0])
    }

    func testOpenTokensBeyondTheLimitForgetTheOldest() async throws {
        let harness = LoggerHarness(receiver: receiver)
        let started = Date(timeIntervalSince1970: 1_800_000_000)
        let tokens = (0...DevSeeLogger.maximumOpenTokens).map { _ in harness.logger.beginRequest(request(), at: started) }
        let ended = started.addingTimeInterval(2)
        await harness.logger.logCompleted(token: tokens.first, request: request("GET", "https://a.example/oldest"), response: response(200), endedAt: ended)
        await harness.logger.logCompleted(token: tokens.last, request: request("GET", "https://a.example/newest"), response: response(200), endedAt: ended)
        await harness.logger.flush()
        var durations: [String: Double] = [:]
        for log in receiver.storedObjects() { durations[log["url"] as? String ?? ""] = log["duration"] as? Double }
        XCTAssertEqual(durations, ["https://a.example/oldest": 0, "https://a.example/newest": 2000])
    }

    /// Two uploads at once by default: one small log at a time, in order, and a large one beside it.
    func testSmallLogsGoOneAtATimeAndALargeOneGoesBesideThem() async throws {
        let gate = receiver.makeGate()
        receiver.script([.held(gate)])
        let harness = LoggerHarness(receiver: receiver) { $0.maxBodyBytes = 512 * 1024 }
        await harness.logger.log(request: request("GET", "https://api.example.com/items/0"), response: response(200))
        try await receiver.waitForPosts(count: 1)
        for index in 1..<3 {
            await harness.logger.log(request: request("GET", "https://api.example.com/items/\(index)"), response: response(200))
        }
        let large = Data(String(repeating: "a", count: 300 * 1024).utf8)
        await harness.logger.log(request: request("GET", "https://api.example.com/export"), response: response(200), responseBody: large)
        try await receiver.waitForLogs(count: 1)
        XCTAssertEqual(receiver.storedObjects().compactMap { $0["url"] as? String }, ["https://api.example.com/export"])
        XCTAssertEqual(receiver.postCount, 2, "items/1 and items/2 wait behind items/0, held")
        gate.open()
        await harness.logger.flush()
        XCTAssertEqual(
            receiver.storedObjects().compactMap { $0["url"] as? String },
            ["https://api.example.com/export"] + (0..<3).map { "https://api.example.com/items/\($0)" }
        )
    }

    func testLogReturnsWhileTheServerIsSlow() async throws {
        receiver.script(Array(repeating: .delay(30), count: 4))
        let harness = LoggerHarness(receiver: receiver)
        for _ in 0..<200 { await harness.logger.log(request: request(), response: response(200)) }
        XCTAssertEqual(receiver.storedLogs.count, 0, "every log call returned while the server held every upload")
        XCTAssertEqual(harness.logger.statistics.accepted, 200)
    }
}
