import DevSeeObserver
import Foundation
import HTTPCore
import HTTPCoreObservation
import HTTPCoreTesting
import HTTPCoreURLSession
import XCTest
import DevSeeServer
import HTTPCoreLoopback
import HTTPCoreTestPeers

/// The client path under faults, with dev-see logging on: what the app sees, what is
/// delivered, and what is dropped and counted.
final class FaultInjectionTests: XCTestCase {
    private var api: LoopbackHTTPServer!
    private var receiver: DevSeeReceiver!
    private var harness: LoggerHarness!
    private var dispatcher: HTTPEventDispatcher!
    private var recorder: RecordingObserver!
    private var client: URLSessionClient!

    override func setUpWithError() throws {
        api = try LoopbackHTTPServer()
        receiver = try DevSeeReceiver()
        harness = LoggerHarness(receiver: receiver)
        dispatcher = HTTPEventDispatcher()
        recorder = RecordingObserver()
        dispatcher.subscribe(recorder)
        dispatcher.subscribe(DevSeeObserver(logger: harness.logger))
        client = URLSessionClient(dispatcher: dispatcher, policy: .debug)
    }

    override func tearDown() {
        api.stop()
        receiver.stop()
    }

    private func settle() async {
        await dispatcher.flush()
        await harness.logger.flush()
    }

    func testFiftyMegabyteResponseArrivesWholeWhileLogsStaySmall() async throws {
        let size = 50 * 1024 * 1024
        let large = Data(repeating: UInt8(ascii: "a"), count: size)
        api.route("/large") { _ in LoopbackResponse(headers: ["Content-Type": "text/plain"], body: large) }
        let response = try await client.send(HTTPRequest(url: api.url("/large")))
        XCTAssertEqual(response.body.count, size)
        await settle()

        let terminal = try XCTUnwrap(recorder.events.last)
        XCTAssertEqual(terminal.responseBodyByteCount, size)
        XCTAssertEqual(terminal.response?.body?.count, 64 * 1024, "events carry the policy's capture, not the body")
        XCTAssertEqual(terminal.response?.isBodyTruncated, true)
        let stored = try XCTUnwrap(receiver.storedLogs.first)
        XCTAssertLessThan(stored.count, 70 * 1024)
        let log = try receiver.onlyLog()
        XCTAssertTrue((log["responseBody"] as? String)?.hasSuffix("…[truncated: \(size) bytes in all]") ?? false)
        XCTAssertEqual(harness.logger.statistics.delivered, 1)
    }

    func testServerClosingMidBodyIsAFailureLoggedOnce() async throws {
        api.route("/cut") { _ in
            var response = LoopbackResponse(body: Data(repeating: 1, count: 100_000))
            response.fault = .closeAfterBodyBytes(10_000)
            return response
        }
        let error: HTTPError
        do {
            _ = try await client.send(HTTPRequest(url: api.url("/cut")))
            return XCTFail("expected a failure for a cut body")
        } catch let caught as HTTPError {
            error = caught
        }
        XCTAssertEqual(error.code, .connectionLost)
        await settle()
        let log = try receiver.onlyLog()
        XCTAssertEqual(log["statusCode"] as? Int, 599)
        XCTAssertEqual(log["error"] as? String, error.description)
    }

    func testThousandConcurrentRequestsWithRandomCancellations() async throws {
        api.route("/work") { request in
            var response = LoopbackResponse.json(#"{"ok":true}"#)
            response.delay = Double(Int(request.query?.dropFirst(2) ?? "0") ?? 0) / 1000
            return response
        }
        var random = SeededRandomNumberGenerator(seed: 20_261_122)
        let plan = (0..<1000).map { _ in (delay: Int(random.next() % 20), cancelAfterYields: random.next() % 10 < 3 ? Int(random.next() % 50) : nil) }
        let client = client!
        let api = api!
        let outcomes = await withTaskGroup(of: (HTTPRequest.ID, Result<Int, any Error>).self) { group in
            for step in plan {
                let request = HTTPRequest(url: api.url("/work?d=\(step.delay)"), timeout: 30)
                let call = Task { try await client.send(request).statusCode }
                if let yields = step.cancelAfterYields {
                    group.addTask {
                        for _ in 0..<yields { await Task.yield() }
                        call.cancel()
                        return (request.id, await call.result)
                    }
                } else {
                    group.addTask { (request.id, await call.result) }
                }
            }
            return await group.reduce(into: [:]) { $0[$1.0] = $1.1 }
        }
        XCTAssertEqual(outcomes.count, 1000)
        for (_, outcome) in outcomes {
            switch outcome {
            case .success(let status): XCTAssertEqual(status, 200)
            case .failure(HTTPError.cancelled): break
            case .failure(let error): XCTFail("expected cancelled, got \(error)")
            }
        }
        let cancelledCount = outcomes.values.filter { if case .failure = $0 { true } else { false } }.count
        XCTAssertGreaterThan(cancelledCount, 0)

        try await recorder.waitForTerminalEvents(count: 1000, timeout: 60)
        await settle()
        for (id, outcome) in outcomes {
            let terminal = recorder.events(for: id).filter(\.name.isTerminal)
            XCTAssertEqual(terminal.count, 1)
            let expected: HTTPEvent.Name
            if case .success = outcome { expected = .requestSucceeded } else { expected = .requestCancelled }
            XCTAssertEqual(terminal.first?.name, expected)
        }
        let logs = receiver.storedObjects()
        XCTAssertEqual(logs.count, 1000, "every request logged exactly once")
        XCTAssertEqual(Set(logs.compactMap { $0["requestId"] as? String }), Set(outcomes.keys.map { $0.description }))
        XCTAssertEqual(logs.filter { ($0["error"] as? String) == "cancelled" && ($0["statusCode"] as? Int) == 599 }.count, cancelledCount)
        let statistics = harness.logger.statistics
        XCTAssertEqual(statistics.delivered, 1000)
        XCTAssertTrue(statistics.isBalanced)
    }
}
