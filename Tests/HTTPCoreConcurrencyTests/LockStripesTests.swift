import Dispatch
import HTTPCoreConcurrency
import XCTest

final class LockStripesTests: XCTestCase {
    /// A counter and a cached value guarded only by the stripes, as a record's cache is.
    private final class Guarded: @unchecked Sendable {
        var count = 0
        var cached: Box?
        var computations = 0
    }

    private final class Box: Sendable {}

    func testWithLockExcludesEveryOtherHolderOfTheSameObject() {
        let guarded = Guarded()
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            for _ in 0..<5_000 {
                LockStripes.withLock(for: guarded) { guarded.count += 1 }
            }
        }
        XCTAssertEqual(LockStripes.withLock(for: guarded) { guarded.count }, 40_000)
    }

    func testFieldGivesEveryConcurrentReaderTheOneStoredValue() {
        let guarded = Guarded()
        let readers = 2
        // Each compute waits until both readers are computing, so both miss the cache and
        // both try to store: the one that stores second must return the first one's value.
        let computing = DispatchGroup()
        for _ in 0..<readers { computing.enter() }
        let seen = Locked<[ObjectIdentifier]>([])
        DispatchQueue.concurrentPerform(iterations: readers) { _ in
            let value = LockStripes.field(\.cached, of: guarded) {
                LockStripes.withLock(for: guarded) { guarded.computations += 1 }
                computing.leave()
                _ = computing.wait(timeout: .now() + 60)
                return Box()
            }
            seen.withLock { $0.append(ObjectIdentifier(value)) }
        }
        let identities = seen.withLock { $0 }
        XCTAssertEqual(identities.count, readers)
        XCTAssertEqual(Set(identities).count, 1, "a value computed by a reader that lost the race is dropped, not returned")
        let stored = LockStripes.withLock(for: guarded) { guarded.cached }
        XCTAssertEqual(stored.map(ObjectIdentifier.init), identities.first)
        let computations = LockStripes.withLock(for: guarded) { guarded.computations }
        XCTAssertEqual(computations, readers, "both readers computed: the race was really run")
    }

    func testFieldComputesNothingOnceAValueIsStored() {
        let guarded = Guarded()
        let first = LockStripes.field(\.cached, of: guarded) { Box() }
        let second = LockStripes.field(\.cached, of: guarded) {
            XCTFail("computed again")
            return Box()
        }
        XCTAssertTrue(first === second)
    }
}
