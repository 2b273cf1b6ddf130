import Foundation
import XCTest

@testable import LokiObserver
import HTTPCoreTestPeers
import HTTPCoreTesting

/// The gzip writer's output is read back by Python's gzip module, a decoder that is not ours.
final class GzipTests: XCTestCase {
    private func decodedByPython(_ compressed: [UInt8]) throws -> Data {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", "import gzip,sys; sys.stdout.buffer.write(gzip.decompress(sys.stdin.buffer.read()))"]
        let input = Pipe()
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        // Write from another thread so a full output pipe cannot block the write.
        let writer = Thread { input.fileHandleForWriting.write(Data(compressed)); try? input.fileHandleForWriting.close() }
        writer.start()
        let decoded = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0)
        return decoded
    }

    func testPythonReadsBackEveryKindOfInput() throws {
        var random = SeededRandomNumberGenerator(seed: 13)
        let inputs: [[UInt8]] = [
            [],
            Array("a".utf8),
            Array(String(repeating: "abc", count: 50_000).utf8),
            (0..<200_000).map { _ in UInt8.random(in: 0...255, using: &random) },
            Array((0..<3_000).map { #"{"stream":{"app":"checkout","level":"info"},"values":[["17900000\#($0)","msg=\"request \#($0) done\""]]}"# }.joined().utf8),
        ]
        for input in inputs {
            XCTAssertEqual(try decodedByPython(Gzip.compress(input)), Data(input), "\(input.count) bytes")
        }
    }

    func testLogBatchesShrinkSeveralTimes() {
        let batch = Array((0..<100).map { #"["1790000000\#($0)000000","method=GET url=\"https://api.example.com/v1/orders/\#($0)\" status=200 outcome=succeeded"]"# }.joined(separator: ",").utf8)
        let ratio = Double(Gzip.compress(batch).count) / Double(batch.count)
        XCTAssertLessThan(ratio, 0.25, "\(ratio)")
    }
}
