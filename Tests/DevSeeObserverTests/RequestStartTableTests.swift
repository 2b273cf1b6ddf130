import DevSeeObserver
import Foundation
import XCTest
import DevSeeServer
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `markRequestStarted`: a start without a token, matched by the identical request.
final class RequestStartTableTests: XCTestCase {
    private var receiver: DevSeeReceiver!
    private let base = Date(timeIntervalSince1970: 1_800_000_000)

    override func setUpWithError() throws {
        receiver = try DevSeeReceiver()
    }

    override func tearDown() {
        receiver.stop()
    }

    private func durations(byURL logs: [[String: Any]]) -> [String: [Double]] {
        var result: [String: [Double]] = [:]
        for log in logs { result[log["url"] as? String ?? "", default: []].append(log["duration"] as? Double ?? -1) }
        // Two uploads run at once: delivery order is not log order.
        return result.mapValues { $0.sorted() }
    }

    func testAMarkedStartGivesTheLogItsDurationAndRequestID() async throws {
        let harness = LoggerHarness(receiver: receiver)
        let call = request("POST", "https://api.example.com/orders", body: Data("{}".utf8))
        harness.logger.markRequestStarted(call, at: base)
        await harness.logger.log(request: call, response: response(201), endedAt: base.addingTimeInterval(0.25))
        await harness.logger.flush()
        let log = try receiver.onlyLog()
        XCTAssertEqual(log["duration"] as? Double, 250)
        XCTAssertEqual(log["timestamp"] as? Int, 1_800_000_000_000)
        XCTAssertTrue((log["requestId"] as? String)?.hasPrefix("devsee-") ?? false)
    }

    func testIdenticalRequestsTakeTheirMarksEarliestFirstAndOthersDoNot() async throws {
        let harness = LoggerHarness(receiver: receiver)
        let same = request("GET", "https://api.example.com/same")
        harness.logger.markRequestStarted(same, at: base)
        harness.logger.markRequestStarted(same, at: base.addingTimeInterval(1))
        let otherBody = request("GET", "https://api.example.com/same", body: Data("x".utf8))
        let otherURL = request("GET", "https://api.example.com/other")
        let ended = base.addingTimeInterval(3)
        await harness.logger.log(request: same, response: response(200), endedAt: ended)
        await harness.logger.logCompleted(token: nil, request: same, response: response(200), endedAt: ended)
        await harness.logger.log(request: same, response: response(200), endedAt: ended)
        await harness.logger.log(request: otherBody, response: response(200), endedAt: ended)
        await harness.logger.log(request: otherURL, response: response(200), endedAt: ended)
        await harness.logger.flush()
        XCTAssertEqual(durations(byURL: receiver.storedObjects()), [
            "https://api.example.com/same": [0, 0, 2000, 3000],
            "https://api.example.com/other": [0],
        ])
    }

    func testAnExplicitStartOrTokenWinsOverAMark() async throws {
        let harness = LoggerHarness(receiver: receiver)
        let call = request("GET", "https://api.example.com/a")
        harness.logger.markRequestStarted(call, at: base)
        await harness.logger.log(request: call, response: response(200), startedAt: base.addingTimeInterval(2), endedAt: base.addingTimeInterval(3))
        await harness.logger.log(request: call, response: response(200), endedAt: base.addingTimeInterval(4))
        await harness.logger.flush()
        XCTAssertEqual(durations(byURL: receiver.storedObjects()), ["https://api.example.com/a": [1000, 4000]], "the mark is still there for the next log")
    }

    func testMarksBeyondTheLimitForgetTheOldest() async throws {
        let harness = LoggerHarness(receiver: receiver)
        let call = request("GET", "https://api.example.com/a")
        harness.logger.markRequestStarted(call, at: base)
        for _ in 0..<DevSeeLogger.maximumOpenTokens {
            harness.logger.markRequestStarted(call, at: base.addingTimeInterval(1))
        }
        await harness.logger.log(request: call, response: response(200), endedAt: base.addingTimeInterval(2))
        await harness.logger.flush()
        XCTAssertEqual(try receiver.onlyLog()["duration"] as? Double, 1000, "the oldest mark was forgotten")
    }
}
