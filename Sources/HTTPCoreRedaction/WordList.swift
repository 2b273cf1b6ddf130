/// A few lowercase ASCII words, matched against bytes in any case without copying: the
/// trigger words of the text rules (`bearer`, `token`, …). Most bytes are rejected by their
/// length, first or last letter alone, as the text rules ask about every word they read.
struct WordList: Sendable {
    private let words: [[UInt8]]
    private let shortest: Int
    private let longest: Int
    /// The words' first and last bytes, as bits of an ASCII set.
    private let firstBytes: ASCIISet
    private let lastBytes: ASCIISet

    init(_ words: [String]) {
        self.init(bytes: words.map { Array($0.utf8) })
    }

    private init(bytes words: [[UInt8]]) {
        self.words = words
        shortest = self.words.map(\.count).min() ?? 0
        longest = self.words.map(\.count).max() ?? 0
        firstBytes = ASCIISet(self.words.compactMap(\.first))
        lastBytes = ASCIISet(self.words.compactMap(\.last))
    }

    /// The words of both lists.
    static func + (lhs: WordList, rhs: WordList) -> WordList {
        WordList(bytes: lhs.words + rhs.words)
    }

    /// Whether `bytes` spell one of the words, in any case.
    func contains<Bytes: BidirectionalCollection<UInt8>>(_ bytes: Bytes) -> Bool {
        let count = bytes.count
        guard count >= shortest, count <= longest, let first = bytes.first, firstBytes.contains(Self.lowercased(first)) else {
            return false
        }
        return words.contains { $0.count == count && Self.equalIgnoringCase(bytes, $0) }
    }

    /// Whether `bytes` end with one of the words, in any case (`failedBearer`).
    func isSuffix<Bytes: BidirectionalCollection<UInt8>>(of bytes: Bytes) -> Bool {
        let count = bytes.count
        guard count >= shortest, let last = bytes.last, lastBytes.contains(Self.lowercased(last)) else { return false }
        return words.contains { $0.count <= count && Self.equalIgnoringCase(bytes.suffix($0.count), $0) }
    }

    private static func lowercased(_ byte: UInt8) -> UInt8 {
        byte >= 65 && byte <= 90 ? byte | 0x20 : byte
    }

    private static func equalIgnoringCase<Bytes: Collection<UInt8>>(_ bytes: Bytes, _ word: [UInt8]) -> Bool {
        var index = bytes.startIndex
        for letter in word {
            guard lowercased(bytes[index]) == letter else { return false }
            bytes.formIndex(after: &index)
        }
        return true
    }
}

/// A set of ASCII bytes as 128 bits.
private struct ASCIISet: Sendable {
    private var low: UInt64 = 0
    private var high: UInt64 = 0

    init(_ bytes: [UInt8]) {
        for byte in bytes where byte < 128 {
            if byte < 64 { low |= 1 << UInt64(byte) } else { high |= 1 << UInt64(byte - 64) }
        }
    }

    func contains(_ byte: UInt8) -> Bool {
        byte < 64 ? low & (1 << UInt64(byte)) != 0 : byte < 128 && high & (1 << UInt64(byte - 64)) != 0
    }
}
