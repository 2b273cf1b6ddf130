/// A deterministic byte pattern of any length, for large bodies that are generated, never stored.
///
/// The byte at offset `n` is a pseudo-random byte of a table whose length is the prime 65,521,
/// repeated: writing any range is a copy from the table, and since the period shares no factor
/// with chunk sizes, a chunk lost, repeated or moved changes the ``LoopbackBodyDigest``.
///
/// A streaming route sends it with ``LoopbackResponseWriter/writePattern(byteCount:)``; a client
/// uploads it from ``chunk(at:count:)`` and checks what it got with ``digest(byteCount:)``.
public enum LoopbackBodyPattern {
    /// The length of the repeating table (a prime).
    public static let period = 65_521

    /// The table twice over, so a range of up to `period` bytes from any offset is contiguous.
    private static let doubledTable: [UInt8] = {
        // A 64-bit linear congruential generator (Knuth's MMIX constants), high byte.
        var state: UInt64 = 0x2545_F491_4F6C_DD1D
        var table = [UInt8](repeating: 0, count: period)
        for index in 0..<period {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            table[index] = UInt8(truncatingIfNeeded: state >> 56)
        }
        return table + table
    }()

    /// Calls `body` with the pattern's bytes from `offset`, in pieces of at most `period`
    /// bytes, until `count` bytes were given or `body` returns `false`.
    ///
    /// No copy is made: each piece points into a shared table.
    public static func withBytes(
        from offset: Int64,
        count: Int64,
        _ body: (UnsafeRawBufferPointer) throws -> Bool
    ) rethrows {
        var position = offset
        let end = offset + max(0, count)
        try doubledTable.withUnsafeBytes { table in
            while position < end {
                let start = Int(position % Int64(period))
                let length = Int(min(Int64(period), end - position))
                guard try body(UnsafeRawBufferPointer(rebasing: table[start..<(start + length)])) else { return }
                position += Int64(length)
            }
        }
    }

    /// `count` bytes of the pattern from `offset`, as a chunk of an upload body.
    public static func chunk(at offset: Int64, count: Int) -> ArraySlice<UInt8> {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(count)
        withBytes(from: offset, count: Int64(count)) { piece in
            bytes.append(contentsOf: piece)
            return true
        }
        return bytes[...]
    }

    /// The digest of the pattern's first `byteCount` bytes: what a route that records a digest
    /// reports for an upload of them, and what a download of them must hash to.
    public static func digest(byteCount: Int64) -> LoopbackBodyDigest {
        var digest = LoopbackBodyDigest()
        withBytes(from: 0, count: byteCount) { piece in
            digest.update(piece)
            return true
        }
        return digest
    }
}
