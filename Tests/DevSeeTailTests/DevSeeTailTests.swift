import DevSeeObserver
import Foundation
import HTTPCore
import XCTest

@testable import devsee_tail
import DevSeeServer
import HTTPCoreConcurrency
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The tool end to end: a real logger sends to it, it prints what matches.
final class DevSeeTailTests: XCTestCase {
    /// Runs the tool on a free port with `arguments`, logs `calls` to it, and returns what it
    /// printed once `expectedLines` output lines arrived.
    private func tail(
        _ arguments: [String], expectedLines: Int, calls: @escaping @Sendable (DevSeeLogger) async -> Void
    ) async throws -> (output: [String], status: [String], exit: Int32) {
        let output = AsyncCondition<[String]>([])
        let status = Locked<[String]>([])
        let exit = await DevSeeTail.run(
            arguments: arguments + ["--port", "0"], colorByDefault: false,
            output: { line in output.update { $0.append(line) } },
            status: { line in status.withLock { $0.append(line) } },
            until: { port in
                var configuration = DevSeeLoggerConfiguration(appId: "com.example.tail", serverURL: URL(string: "http://127.0.0.1:\(port)"))
                configuration.isEnabled = true
                configuration.endpointStore = nil
                let logger = DevSeeLogger(configuration: configuration)
                await calls(logger)
                await logger.flush()
                _ = try? await output.wait(timeout: 60, until: { $0.count >= expectedLines }) { _ in CancellationError() }
            }
        )
        return (output.state, status.withLock { $0 }, exit)
    }

    private static func call(_ logger: DevSeeLogger, _ path: String, status: Int?, correlation: String? = nil) async {
        var request = URLRequest(url: URL(string: "https://api.example.com\(path)")!)
        if let correlation { request.setValue(correlation, forHTTPHeaderField: "X-Correlation-ID") }
        let response = status.flatMap { HTTPURLResponse(url: request.url!, statusCode: $0, httpVersion: "HTTP/1.1", headerFields: [:]) }
        await logger.log(request: request, response: response, responseBody: Data("ok".utf8), error: status == nil ? URLError(.timedOut) : nil)
    }

    func testPrintsEveryLogAndFindsOneByCorrelationID() async throws {
        let all = try await tail([], expectedLines: 3) { logger in
            await Self.call(logger, "/users/42?token=S3CR3T", status: 200, correlation: "c-42")
            await Self.call(logger, "/missing", status: 404)
            await Self.call(logger, "/slow", status: nil)
        }
        XCTAssertEqual(all.exit, 0)
        XCTAssertTrue(all.status.first?.hasPrefix("devsee-tail: listening on http://127.0.0.1:") ?? false, "\(all.status)")
        XCTAssertEqual(all.output.count, 3)
        let byPath = Dictionary(uniqueKeysWithValues: all.output.map { line in (line.split(separator: " ").first { $0.hasPrefix("https://") }.map(String.init) ?? "", line) })
        XCTAssertTrue(byPath["https://api.example.com/users/42?token=[REDACTED]"]?.contains("  200  ") ?? false, "\(all.output)")
        XCTAssertTrue(byPath["https://api.example.com/users/42?token=[REDACTED]"]?.hasSuffix("corr c-42") ?? false)
        XCTAssertTrue(byPath["https://api.example.com/missing"]?.contains("  404  ") ?? false)
        XCTAssertTrue(byPath["https://api.example.com/slow"]?.contains("failed") ?? false)
        XCTAssertFalse(all.output.joined().contains("S3CR3T"))

        let one = try await tail(["--filter", "correlation=c-42", "--verbose"], expectedLines: 1) { logger in
            await Self.call(logger, "/other", status: 200, correlation: "c-1")
            await Self.call(logger, "/users/42", status: 200, correlation: "c-42")
        }
        XCTAssertEqual(one.output.count, 1)
        XCTAssertEqual(one.output[0].split(separator: "\n").count, 3, "the line, the request's correlation header, the response body: \(one.output)")
        XCTAssertTrue(one.output[0].lowercased().contains("x-correlation-id: c-42"), one.output[0])
        XCTAssertTrue(one.output[0].hasSuffix("<   ok"), one.output[0])
    }

    func testJSONLinesAreTheStoredEntries() async throws {
        let result = try await tail(["--json", "--filter", "status=failed"], expectedLines: 1) { logger in
            await Self.call(logger, "/fine", status: 200)
            await Self.call(logger, "/slow", status: nil)
        }
        XCTAssertEqual(result.output.count, 1)
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(result.output[0].utf8)) as? [String: Any])
        XCTAssertEqual(object["url"] as? String, "https://api.example.com/slow")
        XCTAssertEqual(object["statusCode"] as? Int, 599)
        XCTAssertNotNil(object["id"], "the server's id, as GET /api/logs/:id serves it")
        XCTAssertFalse(result.output[0].contains("\n"))
    }

    func testTheToolAcceptsAndRefusesWhatDevSeeDoes() async throws {
        let printed = AsyncCondition<[String]>([])
        let answers = Locked<[(Int, String)]>([])
        let exit = await DevSeeTail.run(
            arguments: ["--port", "0"], colorByDefault: false,
            output: { line in printed.update { $0.append(line) } }, status: { _ in },
            until: { port in
                let bodies: [(type: String, body: String)] = [
                    ("text/plain", "not json"),
                    ("text/plain", #"{"method":"GET","url":"/a","statusCode":200,"duration":1}"#),
                    ("application/json", #"{"method":"GET","url":"/nulls","statusCode":200,"duration":1,"requestHeaders":null}"#),
                    ("application/json", #"{"method":"GET","url":"/err","statusCode":200,"duration":1,"error":null}"#),
                ]
                for item in bodies {
                    var request = URLRequest(url: URL(string: "http://127.0.0.1:\(port)/api/logs")!)
                    request.httpMethod = "POST"
                    request.setValue(item.type, forHTTPHeaderField: "Content-Type")
                    request.httpBody = Data(item.body.utf8)
                    guard let (data, response) = try? await URLSession.shared.data(for: request) else { continue }
                    let status = (response as? HTTPURLResponse)?.statusCode ?? 0
                    answers.withLock { $0.append((status, String(decoding: data, as: UTF8.self))) }
                }
                _ = try? await printed.wait(timeout: 60, until: { $0.count >= 1 }) { _ in CancellationError() }
            }
        )
        XCTAssertEqual(exit, 0)
        let notAnObject = #"{"error":"Validation failed","details":["Request body must be a valid JSON object"]}"#
        let received = answers.withLock { $0 }
        XCTAssertEqual(received.map(\.0), [400, 400, 201, 400])
        XCTAssertEqual(received.prefix(2).map(\.1), [notAnObject, notAnObject], "text/plain is never read as JSON")
        XCTAssertEqual(received.last?.1, #"{"error":"Validation failed","details":["Field \"error\" must be a string"]}"#)
        XCTAssertEqual(printed.state.count, 1)
        XCTAssertTrue(printed.state.first?.contains("  200  ") ?? false, "\(printed.state)")
        XCTAssertTrue(printed.state.first?.hasSuffix("/nulls") ?? false, "\(printed.state)")
    }

    func testHelpBadArgumentsAndABusyPort() async throws {
        let help = await DevSeeTail.run(arguments: ["--help"], colorByDefault: false, output: { _ in }, status: { _ in }, until: { _ in })
        XCTAssertEqual(help, 0)
        let messages = Locked<[String]>([])
        let bad = await DevSeeTail.run(
            arguments: ["--bogus"], colorByDefault: false, output: { _ in }, status: { line in messages.withLock { $0.append(line) } },
            until: { _ in }
        )
        XCTAssertEqual(bad, 64)
        XCTAssertTrue(messages.withLock { $0 }.first?.hasPrefix("devsee-tail: unknown argument --bogus") ?? false)
        let busy = try DevSeeReceiver()
        defer { busy.stop() }
        let taken = await DevSeeTail.run(
            arguments: ["--port", String(busy.port)], colorByDefault: false, output: { _ in },
            status: { line in messages.withLock { $0.append(line) } }, until: { _ in }
        )
        XCTAssertEqual(taken, 1)
        XCTAssertTrue(messages.withLock { $0 }.last?.hasPrefix("devsee-tail: cannot listen on 127.0.0.1:\(busy.port)") ?? false)
    }
}
