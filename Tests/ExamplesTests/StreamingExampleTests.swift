import ExampleSupport
import Foundation
import HTTPCoreConcurrency
import XCTest

@testable import streaming

/// Runs the streaming example's code paths in-process, so the example cannot rot.
final class StreamingExampleTests: XCTestCase {
    private func run(_ arguments: [String]) async -> (status: Int32, lines: [String]) {
        let lines = Locked<[String]>([])
        // A port nothing listens on, so dev-see delivery fails at once instead of finding a viewer.
        let status = await StreamingExample.run(arguments: arguments + ["--devsee", "http://127.0.0.1:9"]) { line in
            lines.withLock { $0.append(line) }
        }
        return (status, lines.withLock { $0 })
    }

    func testHelpPrintsTheUsage() async {
        let result = await run(["--help"])

        XCTAssertEqual(result.status, 0)
        XCTAssertEqual(result.lines, [StreamingExample.usage])
    }

    func testAMissingOrBadArgumentPrintsTheUsageAndExits64() async {
        let missing = await run([])
        let bad = await run(["--download", "lots"])

        XCTAssertEqual([missing.status, bad.status], [64, 64])
        XCTAssertEqual(missing.lines, ["streaming: say --download MIB or --sse\n\n\(StreamingExample.usage)"])
        XCTAssertEqual(bad.lines, ["streaming: --download needs a count of MiB such as 1024\n\n\(StreamingExample.usage)"])
    }

    func testSSEPrintsEachEventWithItsArrivalTime() async {
        let result = await run(["--sse"])

        XCTAssertEqual(result.status, 0)
        XCTAssertEqual(result.lines.count, DemoAPI.events.count, "\(result.lines)")
        let events = result.lines.map { $0.components(separatedBy: " ms  ").last ?? "" }
        XCTAssertEqual(events, [
            "delta #1: Hello", "delta #2: , world", "delta #3: !",
            #"usage #4: {"tokens":3,"api_key":"sk-demo-1234567890abcdef"}"#, "done #5: [DONE]",
        ])
        XCTAssertTrue(result.lines.allSatisfy { $0.hasPrefix("+") }, "\(result.lines)")
    }

    func testDownloadPrintsTheSizeRateAndPeakMemory() async {
        let result = await run(["--download", "2"])

        XCTAssertEqual(result.status, 0)
        XCTAssertEqual(result.lines.count, 2, "\(result.lines)")
        let (first, second) = (result.lines.first ?? "", result.lines.dropFirst().first ?? "")
        XCTAssertTrue(first.hasPrefix("downloaded 2 MiB in "), first)
        XCTAssertTrue(second.hasPrefix("peak resident memory: "), second)
    }

    /// Each line reaches a pipe as it is written, before the writer ends or closes it.
    func testEachLineReachesAPipeAtOnce() throws {
        let pipe = Pipe()
        let write = StreamingExample.lineWriter(to: pipe.fileHandleForWriting)
        write("+12 ms  token #1: Hel")
        XCTAssertEqual(String(decoding: pipe.fileHandleForReading.availableData, as: UTF8.self), "+12 ms  token #1: Hel\n")
        write("+20 ms  token #2: lo")
        XCTAssertEqual(String(decoding: pipe.fileHandleForReading.availableData, as: UTF8.self), "+20 ms  token #2: lo\n")
        try pipe.fileHandleForWriting.close()
    }
}
