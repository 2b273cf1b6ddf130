/// Every ``KnownSecretFormat`` prefix in one trie, so a word is compared with the rows its
/// first bytes lead to and no others: the cost per word is the length of the longest prefix it
/// starts, whatever the table's size.
///
/// Most words are answered by their first two bytes alone, from a 65,536-bit set of the pairs
/// that start a prefix; a word that passes goes straight to the trie's node after its pair.
/// Scanners hold a ``Reader``, which reads those first checks through plain pointers, so a word
/// costs no reference counting.
final class SecretFormatIndex: Sendable {
    /// The index of ``KnownSecretFormat/all``.
    static let shared = SecretFormatIndex(KnownSecretFormat.all)

    /// The rows, in table order.
    private let rows: [KnownSecretFormat]
    /// The rows that start with digits (``KnownSecretFormat/leadingDigits``): few, read in turn.
    private let digitLedRows: [Int]
    /// The fewest digits any of them starts with (`Int.max` when there is none): a word whose
    /// first that many bytes are not all digits is no such row's, which most numbers and dates
    /// show at once.
    private let fewestLeadingDigits: Int
    /// The first two bytes of every prefix, as bits: 1,024 words, owned by the index.
    private nonisolated(unsafe) let prefixPairs: UnsafeMutablePointer<UInt64>
    /// Whether a byte starts a prefix: 256 flags, owned by the index.
    private nonisolated(unsafe) let firstBytes: UnsafeMutablePointer<Bool>
    /// For each pair of first bytes, the trie's node after them (0 where none is).
    private let pairNodes: [UInt16]
    /// The trie: node 0 is the root; each node's children are a run of ``edgeBytes`` and
    /// ``edgeTargets`` from ``firstEdge``.
    private let firstEdge: [Int32]
    private let edgeCount: [Int32]
    private let edgeBytes: [UInt8]
    private let edgeTargets: [Int32]
    /// The rows whose prefix ends at each node: `nodeRowCount[node]` of ``nodeRowList`` from
    /// `nodeRowStart[node]`, longest body rules first as the table lists them.
    private let nodeRowStart: [Int32]
    private let nodeRowCount: [Int32]
    private let nodeRowList: [Int32]
    /// Each row's body, a plain value read without touching the row's name or arrays.
    private let rowBodies: [KnownSecretFormat.Body]

    init(_ formats: [KnownSecretFormat]) {
        rows = formats
        digitLedRows = formats.indices.filter { formats[$0].leadingDigits != nil }
        fewestLeadingDigits = formats.compactMap { $0.leadingDigits?.lowerBound }.min() ?? Int.max
        var pairs = [UInt64](repeating: 0, count: 1024)
        var first = [Bool](repeating: false, count: 256)
        // Built as nested dictionaries first, then laid out flat.
        var children: [[UInt8: Int]] = [[:]]
        var ending: [[Int32]] = [[]]
        for (rowIndex, format) in formats.enumerated() where format.leadingDigits == nil {
            precondition(format.prefix.count >= 2, "a prefix has two bytes or more: \(format.name)")
            let pair = Int(format.prefix[0]) << 8 | Int(format.prefix[1])
            pairs[pair >> 6] |= 1 << UInt64(pair & 63)
            first[Int(format.prefix[0])] = true
            var node = 0
            for byte in format.prefix {
                if let next = children[node][byte] {
                    node = next
                } else {
                    children.append([:])
                    ending.append([])
                    children[node][byte] = children.count - 1
                    node = children.count - 1
                }
            }
            ending[node].append(Int32(rowIndex))
        }
        if !digitLedRows.isEmpty { for digit in UInt8(ascii: "0")...UInt8(ascii: "9") { first[Int(digit)] = true } }
        var firstEdge = [Int32](), edgeCount = [Int32](), edgeBytes = [UInt8](), edgeTargets = [Int32]()
        for node in children.indices {
            firstEdge.append(Int32(edgeBytes.count))
            edgeCount.append(Int32(children[node].count))
            for (byte, target) in children[node].sorted(by: { $0.key < $1.key }) {
                edgeBytes.append(byte)
                edgeTargets.append(Int32(target))
            }
        }
        var pairNodes = [UInt16](repeating: 0, count: 65536)
        for (first, afterFirst) in children[0] {
            for (second, node) in children[afterFirst] {
                precondition(node < Int(UInt16.max), "the trie fits 16-bit node numbers")
                pairNodes[Int(first) << 8 | Int(second)] = UInt16(node)
            }
        }
        self.pairNodes = pairNodes
        prefixPairs = .allocate(capacity: pairs.count)
        prefixPairs.initialize(from: pairs, count: pairs.count)
        firstBytes = .allocate(capacity: first.count)
        firstBytes.initialize(from: first, count: first.count)
        self.firstEdge = firstEdge
        self.edgeCount = edgeCount
        self.edgeBytes = edgeBytes
        self.edgeTargets = edgeTargets
        var starts = [Int32](), list = [Int32]()
        for rows in ending {
            starts.append(Int32(list.count))
            list += rows
        }
        nodeRowStart = starts
        nodeRowCount = ending.map { Int32($0.count) }
        nodeRowList = list
        rowBodies = formats.map(\.body)
    }

    deinit {
        prefixPairs.deallocate()
        firstBytes.deallocate()
    }

    /// A reader of this index for a scanner to keep: a plain value, valid while the index
    /// lives (the shared one always does).
    var reader: Reader {
        Reader(index: Unmanaged.passUnretained(self), prefixPairs: prefixPairs, firstBytes: firstBytes, fewestLeadingDigits: fewestLeadingDigits)
    }

    /// The index's first checks through plain pointers, and the index itself, unretained (it
    /// outlives every reader), for the words that pass them.
    struct Reader {
        fileprivate let index: Unmanaged<SecretFormatIndex>
        fileprivate let prefixPairs: UnsafePointer<UInt64>
        fileprivate let firstBytes: UnsafePointer<Bool>
        fileprivate let fewestLeadingDigits: Int

        /// Whether a secret of some row may start with `byte`: callers that look at every byte
        /// ask this before ``secretLength(atStartOf:)``.
        @inline(__always)
        func mayStart(with byte: UInt8) -> Bool {
            firstBytes[Int(byte)]
        }

        /// The length of the secret that starts `bytes`, when a row's format does: the longest
        /// prefix's rows are tried first, then the shorter ones it extends.
        @inline(__always)
        func secretLength<Bytes: Collection<UInt8>>(atStartOf bytes: Bytes) -> Int? where Bytes.Index == Int {
            let start = bytes.startIndex
            guard bytes.endIndex - start >= 2 else { return nil }
            let first = bytes[start]
            if first &- UInt8(ascii: "0") < 10, bytes.endIndex - start > fewestLeadingDigits,
                bytes[start + fewestLeadingDigits - 1] &- UInt8(ascii: "0") < 10,
                let length = index._withUnsafeGuaranteedRef({ $0.digitLedLength(bytes) })
            {
                return length
            }
            let pair = Int(first) << 8 | Int(bytes[start + 1])
            guard prefixPairs[pair >> 6] & (1 << UInt64(pair & 63)) != 0 else { return nil }
            return index._withUnsafeGuaranteedRef { $0.match(pair: pair, at: start + 2, in: bytes) }
        }
    }

    /// Whether a secret of some row may start with `byte`.
    func mayStart(with byte: UInt8) -> Bool {
        reader.mayStart(with: byte)
    }

    /// The length of the secret that starts `bytes`, when a row's format does (see ``Reader``).
    func secretLength<Bytes: Collection<UInt8>>(atStartOf bytes: Bytes) -> Int? where Bytes.Index == Int {
        reader.secretLength(atStartOf: bytes)
    }

    /// The secret of a word whose first two bytes are `pair`, read on from `position`.
    fileprivate func match<Bytes: Collection<UInt8>>(pair: Int, at position: Int, in bytes: Bytes) -> Int? where Bytes.Index == Int {
        match(from: Int(pairNodes[pair]), at: position, in: bytes)
    }

    /// The secret from the trie's `node`, whose path ends just before `position`: the path is
    /// walked down as far as the word follows it, then the rows of the nodes passed are tried
    /// from the deepest up. Most words leave the trie at once, having passed no row's end.
    private func match<Bytes: Collection<UInt8>>(from node: Int, at position: Int, in bytes: Bytes) -> Int? where Bytes.Index == Int {
        var node = node, position = position
        // The deepest node passed that ends a row, and the last before it, kept without a
        // list: prefixes that end inside a longer one are few (`sk-`, `sk-ant-…`).
        var ends: (node: Int, position: Int)?
        var shallower: [(node: Int, position: Int)] = []
        while true {
            if nodeRowCount[node] > 0 {
                if let previous = ends { shallower.append(previous) }
                ends = (node, position)
            }
            guard position < bytes.endIndex, let next = child(of: node, byte: bytes[position]) else { break }
            node = next
            position += 1
        }
        guard let deepest = ends else { return nil }
        if let end = rowsEnd(at: deepest.node, from: deepest.position, in: bytes) { return end }
        for passed in shallower.reversed() {
            if let end = rowsEnd(at: passed.node, from: passed.position, in: bytes) { return end }
        }
        return nil
    }

    /// The first of the rows ending at `node` whose body starts at `position`: its secret's
    /// length from the word's start.
    private func rowsEnd<Bytes: Collection<UInt8>>(at node: Int, from position: Int, in bytes: Bytes) -> Int? where Bytes.Index == Int {
        let first = Int(nodeRowStart[node])
        for slot in first..<(first + Int(nodeRowCount[node])) {
            if let end = bodyEnd(of: Int(nodeRowList[slot]), from: position, in: bytes) { return end - bytes.startIndex }
        }
        return nil
    }

    private func child(of node: Int, byte: UInt8) -> Int? {
        let first = Int(firstEdge[node])
        for edge in first..<(first + Int(edgeCount[node])) where edgeBytes[edge] == byte { return Int(edgeTargets[edge]) }
        return nil
    }

    /// A row that starts with digits: the digits, then its prefix and body.
    fileprivate func digitLedLength<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> Int? where Bytes.Index == Int {
        var digitsEnd = bytes.startIndex
        while digitsEnd < bytes.endIndex, bytes[digitsEnd] &- UInt8(ascii: "0") < 10 { digitsEnd += 1 }
        let digitCount = digitsEnd - bytes.startIndex
        for row in digitLedRows where rows[row].leadingDigits?.contains(digitCount) == true {
            let prefix = rows[row].prefix
            guard bytes.endIndex - digitsEnd >= prefix.count, bytes[digitsEnd..<(digitsEnd + prefix.count)].elementsEqual(prefix) else { continue }
            if let end = bodyEnd(of: row, from: digitsEnd + prefix.count, in: bytes) { return end - bytes.startIndex }
        }
        return nil
    }

    /// Where the secret of row `row` ends when its body starts at `start`, or `nil` when the
    /// bytes there are not its body.
    private func bodyEnd<Bytes: Collection<UInt8>>(of row: Int, from start: Int, in bytes: Bytes) -> Int?
    where Bytes.Index == Int {
        switch rowBodies[row] {
        case .run(let alphabet, let length):
            // Read one byte past the longest run allowed, to tell a longer word.
            let limit = length.upperBound == Int.max ? bytes.endIndex : min(bytes.endIndex, start + length.upperBound + 1)
            var end = start
            while end < limit, alphabet.contains(bytes[end]) { end += 1 }
            // A sentence's full stop after the secret is not part of it.
            while end > start, bytes[end - 1] == UInt8(ascii: ".") { end -= 1 }
            guard length.contains(end - start) else { return nil }
            // Generated secrets hold a digit or a capital; prose (`sk-learn-…`) does not.
            var generated = false
            for index in start..<end where bytes[index] &- UInt8(ascii: "0") < 10 || bytes[index] &- UInt8(ascii: "A") < 26 {
                generated = true
                break
            }
            guard generated else { return nil }
            if let infix = rows[row].infix, !Self.contains(infix, in: bytes, start..<end) { return nil }
            return end
        case .privateKeyBlock:
            return Self.privateKeyBlockEnd(from: start, in: bytes)
        }
    }

    /// After `-----BEGIN `: a label that names a private key and ends in `-----` on the same
    /// line, then everything up to the end of the `-----END …-----` line that closes it, or to
    /// the end of the bytes when none does.
    private static func privateKeyBlockEnd<Bytes: Collection<UInt8>>(from start: Int, in bytes: Bytes) -> Int? where Bytes.Index == Int {
        let dashes = Array("-----".utf8)
        var labelEnd = start
        while labelEnd < min(bytes.endIndex, start + 80), bytes[labelEnd] != UInt8(ascii: "-"), bytes[labelEnd] >= 0x20 { labelEnd += 1 }
        guard contains(Array("PRIVATE KEY".utf8), in: bytes, start..<labelEnd),
            bytes.endIndex - labelEnd >= dashes.count, bytes[labelEnd..<(labelEnd + dashes.count)].elementsEqual(dashes)
        else { return nil }
        let ending = Array("-----END ".utf8)
        guard let endLine = firstIndex(of: ending, in: bytes, from: labelEnd + dashes.count),
            let close = firstIndex(of: dashes, in: bytes, from: endLine + ending.count)
        else { return bytes.endIndex }
        return close + dashes.count
    }

    private static func contains<Bytes: Collection<UInt8>>(_ pattern: [UInt8], in bytes: Bytes, _ range: Range<Int>) -> Bool
    where Bytes.Index == Int {
        firstIndex(of: pattern, in: bytes[range], from: range.lowerBound) != nil
    }

    /// Where `pattern` first stands in `bytes` at or after `start`.
    private static func firstIndex<Bytes: Collection<UInt8>>(of pattern: [UInt8], in bytes: Bytes, from start: Int) -> Int?
    where Bytes.Index == Int {
        guard let head = pattern.first, bytes.endIndex - start >= pattern.count else { return nil }
        var index = start
        while index <= bytes.endIndex - pattern.count {
            if bytes[index] == head, bytes[index..<(index + pattern.count)].elementsEqual(pattern) { return index }
            index += 1
        }
        return nil
    }
}
