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

    /// Words that, following a name's sensitive words, say the name describes a secret rather
    /// than holds it: `token_type`, `password_expires_at`, `secret_name`,
    /// `token_endpoint_auth_methods_supported`.
    static let descriptorWords = FlatNames([
        "type", "types", "expires", "expiry", "expiration", "ttl", "in", "at", "count", "length", "url", "uri",
        "endpoint", "name", "method", "methods", "algorithm", "algorithms", "alg", "algs", "enabled", "required", "format",
        "policy", "supported", "scope", "scopes", "id", "ids", "hint", "prefix", "location", "header", "param",
        "parameter", "field", "status", "provider", "source", "kind", "check", "checks", "result", "verified",
        "verification", "strength", "set", "changed", "updated", "present", "description", "title",
    ].map { Array($0.utf8) })

    /// First words that make a name a question about a secret, whose number or boolean answer
    /// is no secret: `hadAuthorization`, `has_password`, `max_token`.
    static let predicateWords = FlatNames([
        "has", "had", "have", "is", "was", "are", "were", "does", "did", "can", "should", "must", "will", "requires",
        "require", "needs", "need", "uses", "use", "using", "with", "without", "no", "allow", "allows", "enable",
        "disable", "supports", "support", "include", "includes", "show", "hide", "skip", "missing", "valid", "invalid",
        "expired", "revoked", "max", "min", "maximum", "minimum", "num", "number", "total", "remaining", "used", "limit",
    ].map { Array($0.utf8) })

    /// How a name holds a listed word.
    enum WordMatch {
        /// No listed word.
        case none
        /// Listed whole, or a listed word ends it: `password`, `access_token`, `newPassword`.
        case holds
        /// Other words follow the listed one (`password_confirmation`, `tokens_used`), or it is a
        /// question about one (`hadAuthorization`), or the word is a plural (`max_tokens`).
        case mentions
        /// A descriptor follows the listed word: `token_type`, `password_expires_at`.
        case describes
    }

    /// Whether the whole name is one of the names (word names included).
    func matchesWhole(_ key: NameKey) -> Bool {
        wholeNames.contains(key.letters, hash: key.hash) || wordNames.contains(key.letters, hash: key.hash)
    }

    /// Whether the name is listed whole, or a run of its words is a word name, in any position.
    func matches(_ key: NameKey) -> Bool {
        wordMatch(key) != .none
    }

    /// How the name holds a listed name: whole, or as its last run of words; see ``WordMatch``.
    /// `pluralWords` are the listed words that only ever mention (`tokens`).
    func wordMatch(_ key: NameKey, pluralWords: FlatNames? = nil) -> WordMatch {
        let letters = key.letters
        let count = letters.count
        guard count > 0 else { return .none }
        if wholeNames.contains(letters, hash: key.hash) { return .holds }
        guard !wordsByInitial.isEmpty else { return .none }
        // The run that ends last, and of those the longest.
        var matchStart = -1, matchEnd = -1
        wordNames.bytes.withUnsafeBufferPointer { words in
            for start in 0..<count where key.wordStarts[start] {
                for position in wordsByInitial[Int(letters[start])] {
                    let word = wordNames.ranges[position]
                    let end = start + word.count
                    guard end <= count, end == count || key.wordStarts[end], end > matchEnd || end == matchEnd && start < matchStart
                    else { continue }
                    if FlatNames.equal(UnsafeBufferPointer(rebasing: words[word]), UnsafeBufferPointer(rebasing: letters[start..<end])) {
                        matchStart = start
                        matchEnd = end
                    }
                }
            }
        }
        guard matchEnd >= 0 else { return .none }
        if matchEnd < count {
            return Self.hasDescriptorWord(key, from: matchEnd) ? .describes : .mentions
        }
        if let pluralWords, pluralWords.contains(UnsafeBufferPointer(rebasing: letters[matchStart..<matchEnd])) { return .mentions }
        if matchStart > 0 {
            var firstEnd = 1
            while firstEnd < count, !key.wordStarts[firstEnd] { firstEnd += 1 }
            if firstEnd <= matchStart, Self.predicateWords.contains(UnsafeBufferPointer(rebasing: letters[0..<firstEnd])) {
                return .mentions
            }
        }
        return .holds
    }

    /// Whether one of the name's words from the word starting at `start` on is one of
    /// ``descriptorWords``.
    static func hasDescriptorWord(_ key: NameKey, from start: Int = 0) -> Bool {
        let letters = key.letters
        var wordStart = start
        while wordStart < letters.count {
            var wordEnd = wordStart + 1
            while wordEnd < letters.count, !key.wordStarts[wordEnd] { wordEnd += 1 }
            if descriptorWords.contains(UnsafeBufferPointer(rebasing: letters[wordStart..<wordEnd])) { return true }
            wordStart = wordEnd
        }
        return false
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
