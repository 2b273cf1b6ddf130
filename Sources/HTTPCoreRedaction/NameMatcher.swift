/// A list of sensitive names, matched against a ``NameKey``.
///
/// The names are kept in one flat buffer so a match reads memory without reference counting:
/// the JSON masker asks once per key.
final class NameMatcher: Sendable, Hashable {
    /// Names that match a whole name only (`key` masks `key`, not `sortKey`), normalized.
    private let wholeNames: FlatNames
    /// Names that match the whole name or any run of whole words in it (`password` masks
    /// `newPassword` and `password_confirmation`, not `passwordless`), normalized.
    private let wordNames: FlatNames
    /// For each first byte, the positions in `wordNames.ranges` of the word names starting with
    /// it (they are sorted by first byte), so a word start is compared only with those; empty
    /// when there are no word names.
    private let wordsByInitial: [Range<Int>]

    /// Creates a matcher; each name is normalized as a ``NameKey``'s letters.
    init(wholeNames: some Sequence<String> = [], wordNames: some Sequence<String> = []) {
        self.wholeNames = FlatNames(wholeNames.map(Self.normalized))
        let words = wordNames.map(Self.normalized).filter { !$0.isEmpty }.sorted { $0[0] < $1[0] }
        self.wordNames = FlatNames(words)
        var spans = [Range<Int>](repeating: 0..<0, count: words.isEmpty ? 0 : 256)
        for (position, word) in words.enumerated() {
            let initial = Int(word[0])
            spans[initial] = spans[initial].isEmpty ? position..<(position + 1) : spans[initial].lowerBound..<(position + 1)
        }
        wordsByInitial = spans
    }

    /// Words that, ending a name after its sensitive words, say the name describes a secret
    /// rather than holds it: `token_type`, `password_expires_at`, `secret_name`.
    static let descriptorWords = FlatNames([
        "type", "types", "expires", "expiry", "expiration", "ttl", "in", "at", "count", "length", "url", "uri",
        "endpoint", "name", "method", "algorithm", "enabled", "required", "format", "policy",
    ].map { Array($0.utf8) })

    /// Whether the whole name is one of the names (word names included).
    func matchesWhole(_ key: NameKey) -> Bool {
        wholeNames.contains(key.letters, hash: key.hash) || wordNames.contains(key.letters, hash: key.hash)
    }

    /// Whether the name is listed whole, or a run of its words is a word name. With
    /// `exemptingDescriptors`, a name whose last word is a descriptor after every matched run
    /// (`token_type`) does not match unless it is listed whole.
    func matches(_ key: NameKey, exemptingDescriptors: Bool = false) -> Bool {
        let letters = key.letters
        let count = letters.count
        guard count > 0 else { return false }
        if wholeNames.contains(letters, hash: key.hash) { return true }
        guard !wordsByInitial.isEmpty else { return false }
        var matchEnd = -1
        wordNames.bytes.withUnsafeBufferPointer { words in
            for start in 0..<count where key.wordStarts[start] {
                for position in wordsByInitial[Int(letters[start])] {
                    let word = wordNames.ranges[position]
                    let end = start + word.count
                    guard end <= count, end == count || key.wordStarts[end] else { continue }
                    if FlatNames.equal(UnsafeBufferPointer(rebasing: words[word]), UnsafeBufferPointer(rebasing: letters[start..<end])) {
                        matchEnd = max(matchEnd, end)
                    }
                }
            }
        }
        guard matchEnd >= 0 else { return false }
        guard exemptingDescriptors, matchEnd < count, let lastStart = key.lastWordStart, lastStart >= matchEnd else { return true }
        return !Self.descriptorWords.contains(UnsafeBufferPointer(rebasing: letters[lastStart...]))
    }

    static func == (left: NameMatcher, right: NameMatcher) -> Bool {
        left === right || (left.wholeNames == right.wholeNames && left.wordNames == right.wordNames)
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(wholeNames)
        hasher.combine(wordNames)
    }

    private static func normalized(_ name: String) -> [UInt8] {
        NameKey.with(name) { Array($0.letters) }
    }
}
