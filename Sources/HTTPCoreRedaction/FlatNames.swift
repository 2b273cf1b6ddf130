import Foundation

/// Names as one byte buffer and the range of each, with an open-addressing hash table for
/// whole-name lookups (no `Hasher`, no reference counting per lookup).
struct FlatNames: Sendable, Hashable {
    let bytes: [UInt8]
    let ranges: [Range<Int>]
    /// Indices into ``ranges`` by ``hash(_:)``, linearly probed; `-1` marks an empty slot. Its
    /// size is a power of two at least twice the number of names, so a probe ends quickly.
    private let slots: [Int32]
    /// Bit `n` is set when a name is `n` bytes long (bit 63: 63 or more), so most names that
    /// are not listed are answered by their length alone.
    private let lengths: UInt64

    init(_ names: [[UInt8]]) {
        let names = names.filter { !$0.isEmpty }
        bytes = names.flatMap { $0 }
        var ranges: [Range<Int>] = []
        var start = 0
        for name in names {
            ranges.append(start..<(start + name.count))
            start += name.count
        }
        var size = 1
        while size < names.count * 2 { size *= 2 }
        var slots = [Int32](repeating: -1, count: names.isEmpty ? 0 : size)
        for (position, name) in names.enumerated() {
            var slot = Int(truncatingIfNeeded: name.withUnsafeBufferPointer(Self.hash)) & (size - 1)
            while slots[slot] >= 0 { slot = (slot + 1) & (size - 1) }
            slots[slot] = Int32(position)
        }
        self.ranges = ranges
        self.slots = slots
        lengths = names.reduce(0) { $0 | Self.lengthBit($1.count) }
    }

    private static func lengthBit(_ count: Int) -> UInt64 {
        1 << UInt64(min(count, 63))
    }

    /// FNV-1a of the bytes.
    static func hash(_ bytes: UnsafeBufferPointer<UInt8>) -> UInt64 {
        bytes.reduce(hashSeed, hash)
    }

    /// FNV-1a's offset basis: the hash of no bytes.
    static var hashSeed: UInt64 { 0xCBF2_9CE4_8422_2325 }

    /// One step of FNV-1a: `hash` with `byte` added.
    @inline(__always)
    static func hash(_ hash: UInt64, _ byte: UInt8) -> UInt64 {
        (hash ^ UInt64(byte)) &* 0x100_0000_01B3
    }

    func contains(_ letters: UnsafeBufferPointer<UInt8>) -> Bool {
        lengths & Self.lengthBit(letters.count) != 0 && contains(letters, hash: Self.hash(letters))
    }

    /// Whether the names hold `letters`, whose ``hash(_:)`` is `hash`. The length test is
    /// inlined into callers, so most names not listed cost a load and a mask.
    @inline(__always)
    func contains(_ letters: UnsafeBufferPointer<UInt8>, hash: UInt64) -> Bool {
        lengths & Self.lengthBit(letters.count) != 0 && probe(letters, hash: hash)
    }

    private func probe(_ letters: UnsafeBufferPointer<UInt8>, hash: UInt64) -> Bool {
        let mask = slots.count - 1
        var slot = Int(truncatingIfNeeded: hash) & mask
        return bytes.withUnsafeBufferPointer { bytes in
            while case let position = Int(slots[slot]), position >= 0 {
                if Self.equal(UnsafeBufferPointer(rebasing: bytes[ranges[position]]), letters) { return true }
                slot = (slot + 1) & mask
            }
            return false
        }
    }

    static func equal(_ name: UnsafeBufferPointer<UInt8>, _ letters: UnsafeBufferPointer<UInt8>) -> Bool {
        name.count == letters.count && (name.isEmpty || memcmp(name.baseAddress!, letters.baseAddress!, name.count) == 0)
    }
}
