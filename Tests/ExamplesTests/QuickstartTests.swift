import Foundation
import HTTPCore
import XCTest

@testable import quickstart
import DevSeeServer
import HTTPCoreConcurrency
import HTTPCoreLoopback

/// Runs the quickstart's main code path in-process, so the example cannot rot.
final class QuickstartTests: XCTestCase {
    func testDemoRunPrintsOneRedactedLinePerCallAndShipsToDevSee() async throws {
        let receiver = try DevSeeReceiver()
        defer { receiver.stop() }
        let lines = Locked<[String]>([])
        let status = await Quickstart.run(arguments: ["--devsee", receiver.baseURL.absoluteString]) { line in
            lines.withLock { $0.append(line) }
        }
        XCTAssertEqual(status, 0)
        let output = lines.withLock { $0 }
        XCTAssertEqual(output.count, 7, output.joined(separator: "\n"))
        XCTAssertTrue(output[0].hasPrefix("GET http://127.0.0.1:"))
        XCTAssertTrue(output[0].contains("/users/42 -> 200 ("))
        XCTAssertTrue(output[1].contains("POST ") && output[1].contains("client_secret=[REDACTED] -> 200"), output[1])
        XCTAssertTrue(output[2].contains("/missing -> 404"))
        XCTAssertTrue(output[3].contains("/broken -> 500"))
        XCTAssertTrue(output[4].contains("/slow -> failed: timed out"))
        XCTAssertTrue(output[5].contains("/slow -> cancelled"))
        XCTAssertEqual(output[6], "dev-see: 6 logs delivered to \(receiver.baseURL.absoluteString)")
        XCTAssertEqual(receiver.storedLogs.count, 6)
        let login = try XCTUnwrap(receiver.storedObjects().first { ($0["method"] as? String) == "POST" })
        XCTAssertEqual(login["requestBody"] as? String, #"{"username":"roy","password":"[REDACTED]"}"#)
        XCTAssertEqual((login["requestHeaders"] as? [String: String])?["Authorization"], "[REDACTED]")
        XCTAssertEqual(login["responseBody"] as? String, #"{"token":"[REDACTED]","expiresIn":3600}"#)
    }

    func testWithoutADevSeeServerItSaysSoInOneLineAndSucceeds() async throws {
        let closed = try LoopbackHTTPServer()
        let url = closed.baseURL
        closed.stop()
        let lines = Locked<[String]>([])
        let status = await Quickstart.run(arguments: ["--devsee", url.absoluteString]) { line in lines.withLock { $0.append(line) } }
        XCTAssertEqual(status, 0)
        let devSeeLines = lines.withLock { $0 }.filter { $0.hasPrefix("dev-see") }
        XCTAssertEqual(devSeeLines.count, 1)
        XCTAssertTrue(devSeeLines[0].hasPrefix("dev-see: no viewer is running at \(url.absoluteString), so the "), devSeeLines[0])
        XCTAssertTrue(devSeeLines[0].contains("swift run devsee-tail"), devSeeLines[0])
    }

    func testURLArgumentCallsThatURL() async throws {
        let api = try LoopbackHTTPServer()
        defer { api.stop() }
        api.route("/hello") { _ in .text("hi") }
        let lines = Locked<[String]>([])
        let status = await Quickstart.run(arguments: [api.url("/hello").absoluteString, "--no-devsee"]) { line in lines.withLock { $0.append(line) } }
        XCTAssertEqual(status, 0)
        XCTAssertEqual(lines.withLock { $0 }.count, 1)
        XCTAssertTrue(lines.withLock { $0 }[0].hasPrefix("GET \(api.url("/hello").absoluteString) -> 200"))
        XCTAssertEqual(api.requests.map(\.path), ["/hello"])
    }

    func testHARFlagWritesEveryDemoCallRedactedToTheFile() async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("quickstart-\(UUID().uuidString).har")
        defer { try? FileManager.default.removeItem(at: file) }
        let lines = Locked<[String]>([])
        let status = await Quickstart.run(arguments: ["--no-devsee", "--har", file.path]) { line in lines.withLock { $0.append(line) } }
        XCTAssertEqual(status, 0)
        XCTAssertEqual(lines.withLock { $0 }.last, "HAR: 6 entries written to \(file.path)")

        let data = try Data(contentsOf: file)
        let log = try XCTUnwrap((try JSONSerialization.jsonObject(with: data) as? [String: Any])?["log"] as? [String: Any])
        XCTAssertEqual(log["version"] as? String, "1.2")
        let entries = try XCTUnwrap(log["entries"] as? [[String: Any]])
        let requests = entries.compactMap { $0["request"] as? [String: Any] }
        let responses = entries.compactMap { $0["response"] as? [String: Any] }
        XCTAssertEqual(requests.compactMap { $0["method"] as? String }, ["GET", "POST", "GET", "GET", "GET", "GET"])
        XCTAssertEqual(responses.compactMap { $0["status"] as? Int }, [200, 200, 404, 500, 0, 0])
        XCTAssertEqual(responses.compactMap { $0["_errorType"] as? String }, ["timeout", "cancelled"])
        let text = String(decoding: data, as: UTF8.self)
        for secret in ["s3cr3t", "hunter2", "demo-access-token", "ZGVtbzpkZW1v", "eyJhbGciOiJIUzI1NiJ9"] {
            XCTAssertFalse(text.contains(secret), "\(secret) is redacted")
        }
    }

    func testPrivacyFlagAndHelp() async throws {
        let strict = try Quickstart.Options(arguments: ["--privacy", "strict", "--no-devsee"])
        XCTAssertEqual(strict.privacy, .strict)
        XCTAssertFalse(strict.shipsToDevSee)
        XCTAssertThrowsError(try Quickstart.Options(arguments: ["--privacy", "loud"]))
        XCTAssertThrowsError(try Quickstart.Options(arguments: ["--devsee"]))
        XCTAssertThrowsError(try Quickstart.Options(arguments: ["--har"]))
        XCTAssertEqual(try Quickstart.Options(arguments: ["--har", "out.har"]).harPath, "out.har")
        let lines = Locked<[String]>([])
        let status = await Quickstart.run(arguments: ["--help"]) { line in lines.withLock { $0.append(line) } }
        XCTAssertEqual(status, 0)
        XCTAssertTrue(lines.withLock { $0 }.first?.hasPrefix("usage: quickstart") ?? false)
        let bad = await Quickstart.run(arguments: ["--bogus"]) { _ in }
        XCTAssertEqual(bad, 64)
    }
}
