/// A gzip (RFC 1952) compressor: deflate (RFC 1951) with LZ77 matching over a 32 KiB window
/// and the fixed Huffman codes, in one block. No dependency, no zlib.
///
/// The fixed codes give up a little of zlib's ratio (the Performance article has the
/// figures) for a compressor that fits on a page.
enum Gzip {
    static func compress(_ input: [UInt8]) -> [UInt8] {
        var writer = BitWriter()
        writer.bytes.reserveCapacity(input.count / 3 + 32)
        writer.bytes += [0x1F, 0x8B, 8, 0, 0, 0, 0, 0, 0, 0xFF]  // magic, deflate, no flags, no mtime, unknown OS
        writer.write(1, count: 1)  // last block
        writer.write(1, count: 2)  // fixed Huffman codes
        input.withUnsafeBufferPointer { deflate($0, into: &writer) }
        writer.writeLiteralOrLength(256)
        writer.flush()
        let crc = CRC32.checksum(input)
        let size = UInt32(truncatingIfNeeded: input.count)
        for value in [crc, size] {
            writer.bytes += [UInt8(value & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value >> 16 & 0xFF), UInt8(value >> 24)]
        }
        return writer.bytes
    }

    private static let windowSize = 32 * 1024
    private static let hashBits = 15
    private static let maximumChain = 48
    private static let minimumMatch = 3
    private static let maximumMatch = 258

    private static func deflate(_ input: UnsafeBufferPointer<UInt8>, into writer: inout BitWriter) {
        let count = input.count
        var head = [Int32](repeating: -1, count: 1 << hashBits)
        var previous = [Int32](repeating: -1, count: windowSize)
        func hash(_ index: Int) -> Int {
            let value = UInt32(input[index]) << 16 | UInt32(input[index + 1]) << 8 | UInt32(input[index + 2])
            return Int((value &* 2_654_435_761) >> UInt32(32 - hashBits))
        }
        func insert(_ index: Int) {
            guard index + minimumMatch <= count else { return }
            let key = hash(index)
            previous[index & (windowSize - 1)] = head[key]
            head[key] = Int32(index)
        }
        var position = 0
        while position < count {
            var bestLength = 0
            var bestDistance = 0
            if position + minimumMatch <= count {
                var candidate = Int(head[hash(position)])
                var chain = maximumChain
                let limit = min(maximumMatch, count - position)
                while candidate >= 0, position - candidate <= windowSize, chain > 0 {
                    if input[candidate + bestLength] == input[position + bestLength] || bestLength == 0 {
                        var length = 0
                        while length < limit, input[candidate + length] == input[position + length] { length += 1 }
                        if length > bestLength {
                            bestLength = length
                            bestDistance = position - candidate
                            if length == limit { break }
                        }
                    }
                    let next = Int(previous[candidate & (windowSize - 1)])
                    guard next < candidate else { break }
                    candidate = next
                    chain -= 1
                }
            }
            if bestLength >= minimumMatch {
                writer.writeMatch(length: bestLength, distance: bestDistance)
                for index in position..<(position + bestLength) { insert(index) }
                position += bestLength
            } else {
                writer.writeLiteralOrLength(Int(input[position]))
                insert(position)
                position += 1
            }
        }
    }
}

/// Writes deflate's bit stream: values least significant bit first, Huffman codes most
/// significant bit first.
private struct BitWriter {
    var bytes: [UInt8] = []
    private var buffer: UInt64 = 0
    private var bitCount: UInt64 = 0

    mutating func write(_ value: Int, count: Int) {
        buffer |= UInt64(value) << bitCount
        bitCount += UInt64(count)
        while bitCount >= 8 {
            bytes.append(UInt8(truncatingIfNeeded: buffer))
            buffer >>= 8
            bitCount -= 8
        }
    }

    mutating func flush() {
        if bitCount > 0 { bytes.append(UInt8(truncatingIfNeeded: buffer)) }
        buffer = 0
        bitCount = 0
    }

    private mutating func writeCode(_ code: Int, count: Int) {
        var reversed = 0
        for bit in 0..<count { reversed |= (code >> bit & 1) << (count - 1 - bit) }
        write(reversed, count: count)
    }

    /// A literal byte (0-255), the end of block (256) or a length symbol (257-285), in the
    /// fixed code of RFC 1951, 3.2.6.
    mutating func writeLiteralOrLength(_ symbol: Int) {
        switch symbol {
        case 0...143: writeCode(0x30 + symbol, count: 8)
        case 144...255: writeCode(0x190 + symbol - 144, count: 9)
        case 256...279: writeCode(symbol - 256, count: 7)
        default: writeCode(0xC0 + symbol - 280, count: 8)
        }
    }

    private static let lengthBases = [3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258]
    private static let lengthExtraBits = [0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0]
    private static let distanceBases = [
        1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097, 6145, 8193,
        12289, 16385, 24577,
    ]
    private static let distanceExtraBits = [0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13]

    mutating func writeMatch(length: Int, distance: Int) {
        let lengthIndex = Self.lengthBases.lastIndex { $0 <= length }!
        writeLiteralOrLength(257 + lengthIndex)
        write(length - Self.lengthBases[lengthIndex], count: Self.lengthExtraBits[lengthIndex])
        let distanceIndex = Self.distanceBases.lastIndex { $0 <= distance }!
        writeCode(distanceIndex, count: 5)
        write(distance - Self.distanceBases[distanceIndex], count: Self.distanceExtraBits[distanceIndex])
    }
}

/// The CRC-32 of gzip's trailer (ISO 3309, reflected polynomial 0xEDB88320).
enum CRC32 {
    private static let table: [UInt32] = (0..<256).map { index in
        var value = UInt32(index)
        for _ in 0..<8 { value = value & 1 == 1 ? 0xEDB8_8320 ^ (value >> 1) : value >> 1 }
        return value
    }

    static func checksum(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes { crc = table[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8) }
        return crc ^ 0xFFFF_FFFF
    }
}
