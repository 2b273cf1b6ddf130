import HTTPCoreLoopback
import XCTest

final class LoopbackBodyPatternTests: XCTestCase {
    func test_pattern_repeatsWithItsPrimePeriod() {
        XCTAssertEqual(LoopbackBodyPattern.period, 65_521)
        XCTAssertEqual(LoopbackBodyPattern.chunk(at: 65_521, count: 100), LoopbackBodyPattern.chunk(at: 0, count: 100))
        XCTAssertNotEqual(LoopbackBodyPattern.chunk(at: 65_536, count: 100), LoopbackBodyPattern.chunk(at: 0, count: 100))
    }

    func test_chunksAtAnyOffsets_concatenateToThePattern() {
        let whole = LoopbackBodyPattern.chunk(at: 0, count: 200_000)
        let pieces = [0, 7, 65_520, 65_530, 131_042, 200_000]
        var joined: [UInt8] = []
        for (lower, upper) in zip(pieces, pieces.dropFirst()) {
            joined += LoopbackBodyPattern.chunk(at: Int64(lower), count: upper - lower)
        }

        XCTAssertEqual(joined[...], whole)
        XCTAssertEqual(LoopbackBodyPattern.digest(byteCount: 200_000), LoopbackBodyDigest(of: whole))
    }
}
