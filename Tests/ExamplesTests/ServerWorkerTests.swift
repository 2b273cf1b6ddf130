import Foundation
import HTTPCore
import XCTest

@testable import server_worker
import HTTPCoreConcurrency

final class ServerWorkerTests: XCTestCase {
    func testBoundedRunEndsByItselfWithEveryExchangeAccountedFor() async throws {
        let lines = Locked<[String]>([])
        let options = try ServerWorker.Options(arguments: ["--rounds", "2", "--requests", "10", "--no-devsee"])
        let status = await ServerWorker.run(options: options, stop: StopSignal()) { line in lines.withLock { $0.append(line) } }
        XCTAssertEqual(status, 0)
        let output = lines.withLock { $0 }
        XCTAssertEqual(output.prefix(2).map { $0.prefix(while: { $0 != "," }) }, ["round 1: 10 exchanges so far", "round 2: 20 exchanges so far"])
        let traces = output.prefix(2).map { String($0.split(separator: " ").last ?? "") }
        XCTAssertEqual(traces.map(\.count), [32, 32])
        XCTAssertNotEqual(traces[0], traces[1], "one trace per round")
        // Per round of 10: paths cycle users, users, missing, broken, slow (10 s, timeout 0.3 s; the others 30 s), flaky (503 then 200,
        // retried once); index 6 is cancelled.
        // Reported by status class: a 404 or a 500 is a response, not a success.
        XCTAssertTrue(output[2].hasPrefix("done: 8 2xx, 4 4xx, 4 5xx, 2 failed, 2 cancelled, 2 attempts retried"), output[2])
    }

    func testStopSignalCancelsInFlightWorkAndFlushes() async throws {
        let lines = Locked<[String]>([])
        let stop = StopSignal()
        let options = try ServerWorker.Options(arguments: ["--rounds", "0", "--requests", "20", "--no-devsee"])
        // Stop as a signal handler would, as soon as the first call is on its way: on the
        // request path, so no call can finish before the stop.
        let trigger = StopMiddleware(stop: stop)
        let status = await ServerWorker.run(options: options, stop: stop, middleware: trigger) { line in
            lines.withLock { $0.append(line) }
        }
        XCTAssertEqual(status, 0)
        let output = lines.withLock { $0 }
        XCTAssertTrue(output.contains("stopping: cancelling in-flight requests"))
        XCTAssertFalse(output.contains { $0.hasPrefix("round 2") })
        let done = try XCTUnwrap(output.last)
        // "done: 3 2xx, 1 5xx, 2 failed, 14 cancelled, 0 attempts retried, ...": count the outcomes.
        var outcomes: [String: Int] = [:]
        for part in done.dropFirst("done: ".count).split(separator: ",") {
            let words = part.split(separator: " ")
            if words.count == 2, let count = Int(words[0]) { outcomes[String(words[1])] = count }
        }
        XCTAssertEqual(outcomes.values.reduce(0, +), 20, done)
        XCTAssertGreaterThanOrEqual(outcomes["cancelled"] ?? 0, 10, "most calls were cancelled, not just the 2 the worker cancels itself: \(done)")
    }

    func testOptions() throws {
        XCTAssertEqual(try ServerWorker.Options(arguments: []).rounds, 3)
        XCTAssertThrowsError(try ServerWorker.Options(arguments: ["--rounds", "-1"]))
        XCTAssertThrowsError(try ServerWorker.Options(arguments: ["--what"]))
        XCTAssertTrue(try ServerWorker.Options(arguments: ["--help"]).showsHelp)
    }
}

/// Triggers a stop when a request reaches it, then sends the request on.
private struct StopMiddleware: HTTPMiddleware {
    let stop: StopSignal

    func intercept(
        _ request: HTTPRequest, body: HTTPBody?, context: HTTPMiddlewareContext, next: HTTPMiddlewareNext
    ) async throws -> (HTTPResponse.Head, HTTPBody) {
        stop.trigger()
        return try await next(request, body)
    }
}
