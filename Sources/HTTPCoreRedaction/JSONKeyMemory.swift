import Foundation

/// The facts of the JSON keys a masker read (``JSONMasker/KeyFacts``), by their bytes, for the
/// next time the same key comes: a document repeats its keys, and so do the messages of one
/// stream, where working a key out is most of what a small message costs.
///
/// One memory serves one redactor's documents, on one thread. Open addressing: a few slots
/// from a key's own are probed, so that two keys of one object rarely evict each other; the
/// keys' bytes are kept in one buffer, emptied with the slots when it reaches
/// ``maximumKeyBytes``.
final class JSONKeyMemory {
    // Unchecked: a lookup never overlaps another access (the memory is one scan's at a time,
    // and neither method calls out), and the runtime's check cost more than the lookup.
    @exclusivity(unchecked) private var slots: [Slot?]
    @exclusivity(unchecked) private var keyBytes: [UInt8] = []

    private struct Slot {
        let bytes: Range<Int>
        let facts: JSONMasker.KeyFacts
    }

    /// How many slots from a key's own are probed for it.
    private static let probedSlots = 4
    /// The most key bytes kept before the memory starts again.
    static let maximumKeyBytes = 16 * 1024

    /// A memory of `slotCount` keys at most, a power of two.
    init(slotCount: Int) {
        slots = Array(repeating: nil, count: slotCount)
        // Keys are short: room for most of them in one allocation.
        keyBytes.reserveCapacity(slotCount * 16)
    }

    /// The facts of `key` when they are remembered; else `nil` and the slot to remember them
    /// in (``remember(_:of:in:)``).
    func facts(of key: Slice<UnsafeBufferPointer<UInt8>>) -> (facts: JSONMasker.KeyFacts?, slot: Int) {
        var hash: UInt32 = 2_166_136_261
        for byte in key { hash = (hash ^ UInt32(byte)) &* 16_777_619 }
        let mask = slots.count - 1
        let home = Int(hash) & mask
        var slot = home
        for _ in 0..<Self.probedSlots {
            guard let recent = slots[slot] else { return (nil, slot) }
            if recent.bytes.count == key.count, keyBytes.withUnsafeBufferPointer({ kept in
                memcmp(kept.baseAddress! + recent.bytes.lowerBound, key.base.baseAddress! + key.startIndex, key.count) == 0
            }) {
                return (recent.facts, slot)
            }
            slot = (slot + 1) & mask
        }
        return (nil, home)
    }

    /// Remembers the facts of `key` in `slot`, as ``facts(of:)`` gave it.
    func remember(_ facts: JSONMasker.KeyFacts, of key: Slice<UnsafeBufferPointer<UInt8>>, in slot: Int) {
        if keyBytes.count + key.count > Self.maximumKeyBytes {
            keyBytes.removeAll(keepingCapacity: true)
            for index in slots.indices { slots[index] = nil }
        }
        let start = keyBytes.count
        keyBytes.append(contentsOf: UnsafeBufferPointer(rebasing: key))
        slots[slot] = Slot(bytes: start..<keyBytes.count, facts: facts)
    }
}
