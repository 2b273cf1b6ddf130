import XCTest

@testable import HTTPCoreRedaction

/// The memory of JSON keys' facts answers for the exact bytes it was told, and starts again
/// when its keys fill it.
final class JSONKeyMemoryTests: XCTestCase {
    private let tokenFacts = JSONMasker.KeyFacts(
        rule: .judged(.maskEvery), opensContainers: 0, ordinaryInContainers: 1, holdsShapes: 1
    )

    private func lookUp(_ memory: JSONKeyMemory, _ key: String) -> (facts: JSONMasker.KeyFacts?, slot: Int) {
        Array(key.utf8).withUnsafeBufferPointer { memory.facts(of: $0[...]) }
    }

    private func remember(_ memory: JSONKeyMemory, _ key: String, _ facts: JSONMasker.KeyFacts) {
        let slot = lookUp(memory, key).slot
        Array(key.utf8).withUnsafeBufferPointer { memory.remember(facts, of: $0[...], in: slot) }
    }

    func testAKeyIsAnsweredByItsExactBytesOnly() {
        let memory = JSONKeyMemory(slotCount: 16)
        XCTAssertNil(lookUp(memory, "token").facts)
        remember(memory, "token", tokenFacts)
        XCTAssertEqual(lookUp(memory, "token").facts?.rule, .judged(.maskEvery))
        XCTAssertNil(lookUp(memory, "Token").facts, "other bytes are another key")
        XCTAssertNil(lookUp(memory, "toke").facts)
        // More keys than slots: each answered is its own, however the slots are shared.
        for index in 0..<40 { remember(memory, "k\(index)", tokenFacts) }
        for index in 0..<40 {
            if let facts = lookUp(memory, "k\(index)").facts { XCTAssertEqual(facts.holdsShapes, 1) }
        }
    }

    func testTheMemoryStartsAgainWhenItsKeysFillIt() {
        let memory = JSONKeyMemory(slotCount: 16)
        remember(memory, "token", tokenFacts)
        let long = String(repeating: "x", count: JSONKeyMemory.maximumKeyBytes)
        remember(memory, long, tokenFacts)
        XCTAssertNil(lookUp(memory, "token").facts, "emptied before the long key was kept")
        XCTAssertNotNil(lookUp(memory, long).facts)
    }
}
