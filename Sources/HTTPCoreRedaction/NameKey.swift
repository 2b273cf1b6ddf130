import Foundation

/// A name (of a header, a query item, a body key) as sensitive names are compared: its letters
/// and digits, lowercased, and where its words start.
///
/// Words start after a separator (anything but a letter or digit: `_`, `-`, `.`, spaces,
/// brackets, control characters), at a lowercase-to-uppercase step (`newPassword`), before
/// the last capital of a run followed by a lowercase letter (`APIKey` is `API` `Key`), and
/// where letters and digits meet (`oauth2Token`). Bytes of characters outside ASCII count as
/// lowercase letters.
struct NameKey {
    /// The name's letters and digits, lowercased, separators dropped.
    let letters: UnsafeBufferPointer<UInt8>
    /// Whether a word starts at each position of ``letters``.
    let wordStarts: UnsafeBufferPointer<Bool>
    /// ``FlatNames/hash(_:)`` of ``letters``, computed once for every list the key is looked up in.
    let hash: UInt64

    /// Calls `body` with the key of `name`, folded first when it holds characters outside
    /// ASCII (see ``folded(_:)``).
    static func with<Result>(_ name: String, _ body: (NameKey) -> Result) -> Result {
        var folded = folded(name)
        return folded.withUTF8 { with(utf8: $0, body) }
    }

    /// Calls `body` with the key of a name given as UTF-8 bytes, without allocating on the heap
    /// for names of ordinary length.
    static func with<Result>(utf8 name: UnsafeBufferPointer<UInt8>, _ body: (NameKey) -> Result) -> Result {
        // A constant capacity is always on the stack; a computed one may not be.
        guard name.count <= shortNameCapacity else { return with(utf8: name, capacity: name.count, body) }
        return with(utf8: name, capacity: shortNameCapacity, body)
    }

    /// The longest name whose key is built in a fixed stack buffer.
    private static var shortNameCapacity: Int { 64 }

    @inline(__always)
    private static func with<Result>(utf8 name: UnsafeBufferPointer<UInt8>, capacity: Int, _ body: (NameKey) -> Result) -> Result {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: max(capacity, 1)) { letters in
            withUnsafeTemporaryAllocation(of: Bool.self, capacity: max(capacity, 1)) { wordStarts in
                var count = 0
                var hash = FlatNames.hashSeed
                var previous = CharacterClass.separator
                for index in name.indices {
                    let byte = name[index]
                    let current = CharacterClass(byte)
                    guard current != .separator else {
                        previous = .separator
                        continue
                    }
                    let next = index + 1 < name.count ? CharacterClass(name[index + 1]) : .separator
                    let startsWord: Bool
                    switch (previous, current) {
                    case (.separator, _): startsWord = true
                    case (.lower, .upper), (.digit, .upper): startsWord = true
                    case (.upper, .upper): startsWord = next == .lower
                    case (.digit, .lower), (.upper, .digit), (.lower, .digit): startsWord = true
                    default: startsWord = false
                    }
                    let letter = current == .upper ? byte | 0x20 : byte
                    letters[count] = letter
                    hash = FlatNames.hash(hash, letter)
                    wordStarts[count] = startsWord
                    count += 1
                    previous = current
                }
                return body(NameKey(
                    letters: UnsafeBufferPointer(rebasing: letters[..<count]),
                    wordStarts: UnsafeBufferPointer(rebasing: wordStarts[..<count]),
                    hash: hash
                ))
            }
        }
    }

    /// The name with look-alike characters read as the ASCII letters they stand for, so they
    /// cannot hide a sensitive name: compatibility forms (full-width `ｐ`, ligatures) become
    /// their plain letters, Cyrillic and Greek letters that look Latin become that letter (their
    /// confusable skeletons in Unicode's UTS #39: `Аuthorization` with a Cyrillic `А`,
    /// `pаssword`), characters whose case folding is ASCII become it (`ſ` is `s`, the Kelvin
    /// sign `k`, the Turkish dotless `ı` `i`), a letter with marks becomes its base letter
    /// (the Turkish dotted `İ` is `i`), and invisible characters (zero-width spaces, soft
    /// hyphens) are dropped.
    static func folded(_ name: String) -> String {
        guard name.utf8.contains(where: { $0 >= 0x80 }) else { return name }
        var result = String.UnicodeScalarView()
        for scalar in name.precomposedStringWithCompatibilityMapping.unicodeScalars {
            if scalar.isASCII {
                result.append(scalar)
            } else if let latin = latinLookAlikes[scalar.value] {
                result.append(Unicode.Scalar(latin))
            } else if !scalar.properties.isDefaultIgnorableCodePoint {
                result.append(contentsOf: asciiFolding(scalar) ?? String(scalar).unicodeScalars)
            }
        }
        return String(result)
    }

    /// The ASCII a character folds to by case, or by dropping its marks; `nil` when neither.
    private static func asciiFolding(_ scalar: Unicode.Scalar) -> String.UnicodeScalarView? {
        let caseFolded = String(scalar).uppercased().lowercased().unicodeScalars
        if caseFolded.allSatisfy(\.isASCII) { return caseFolded }
        var base = String.UnicodeScalarView()
        for part in String(scalar).decomposedStringWithCanonicalMapping.unicodeScalars
        where part.properties.generalCategory != .nonspacingMark {
            base.append(part)
        }
        return !base.isEmpty && base.allSatisfy(\.isASCII) ? base : nil
    }

    /// Cyrillic and Greek letters whose confusable skeleton (UTS #39) is a Latin letter, by
    /// code point: the ones that can spell a sensitive name in a Latin-looking way.
    private static let latinLookAlikes: [UInt32: UInt8] = {
        let pairs: [(String, String)] = [
            // Cyrillic
            ("\u{0430}\u{0435}\u{043E}\u{0440}\u{0441}\u{0443}\u{0445}\u{0456}\u{0458}\u{0455}\u{04BB}\u{0501}\u{051B}\u{051D}\u{04CF}", "aeopcyxijshdqwl"),
            ("\u{0410}\u{0412}\u{0415}\u{041A}\u{041C}\u{041D}\u{041E}\u{0420}\u{0421}\u{0422}\u{0425}\u{0405}\u{0406}\u{0408}\u{04AE}", "abekmhopctxsijy"),
            // Greek
            ("\u{03B1}\u{03BF}\u{03C1}\u{03BD}\u{03B9}\u{03BA}\u{03C5}\u{03C7}", "aopvikux"),
            ("\u{0391}\u{0392}\u{0395}\u{0396}\u{0397}\u{0399}\u{039A}\u{039C}\u{039D}\u{039F}\u{03A1}\u{03A4}\u{03A5}\u{03A7}", "abezhikmnoptyx"),
        ]
        var table: [UInt32: UInt8] = [:]
        for (letters, latin) in pairs {
            for (scalar, ascii) in zip(letters.unicodeScalars, latin.utf8) { table[scalar.value] = ascii }
        }
        return table
    }()

    /// The position of the last word's start; `nil` for an empty name.
    var lastWordStart: Int? {
        letters.indices.last { wordStarts[$0] }
    }

    private enum CharacterClass {
        case separator, lower, upper, digit

        init(_ byte: UInt8) {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), 0x80...: self = .lower
            case UInt8(ascii: "A")...UInt8(ascii: "Z"): self = .upper
            case UInt8(ascii: "0")...UInt8(ascii: "9"): self = .digit
            default: self = .separator
            }
        }
    }
}

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
    /// Which bytes start a word name, so most word starts are passed over at once.
    private let wordInitials: [Bool]

    /// Creates a matcher; each name is normalized as a ``NameKey``'s letters.
    init(wholeNames: some Sequence<String> = [], wordNames: some Sequence<String> = []) {
        self.wholeNames = FlatNames(wholeNames.map(Self.normalized))
        self.wordNames = FlatNames(wordNames.map(Self.normalized))
        var initials = [Bool](repeating: false, count: 256)
        for range in self.wordNames.ranges { initials[Int(self.wordNames.bytes[range.lowerBound])] = true }
        wordInitials = initials
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
        guard !wordNames.ranges.isEmpty else { return false }
        var matchEnd = -1
        wordInitials.withUnsafeBufferPointer { initials in
            for start in 0..<count where key.wordStarts[start] && initials[Int(letters[start])] {
                wordNames.forEach { word in
                    let end = start + word.count
                    guard end <= count, end == count || key.wordStarts[end], word[0] == letters[start] else { return }
                    if FlatNames.equal(word, UnsafeBufferPointer(rebasing: letters[start..<end])) { matchEnd = max(matchEnd, end) }
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

/// Names as one byte buffer and the range of each, with an open-addressing hash table for
/// whole-name lookups (no `Hasher`, no reference counting per lookup).
struct FlatNames: Sendable, Hashable {
    let bytes: [UInt8]
    let ranges: [Range<Int>]
    /// Indices into ``ranges`` by ``hash(_:)``, linearly probed; `-1` marks an empty slot. Its
    /// size is a power of two at least twice the number of names, so a probe ends quickly.
    private let slots: [Int32]

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

    /// Calls `body` with each name's bytes.
    func forEach(_ body: (UnsafeBufferPointer<UInt8>) -> Void) {
        bytes.withUnsafeBufferPointer { bytes in
            ranges.withUnsafeBufferPointer { ranges in
                for range in ranges { body(UnsafeBufferPointer(rebasing: bytes[range])) }
            }
        }
    }

    func contains(_ letters: UnsafeBufferPointer<UInt8>) -> Bool {
        !slots.isEmpty && contains(letters, hash: Self.hash(letters))
    }

    /// Whether the names hold `letters`, whose ``hash(_:)`` is `hash`.
    func contains(_ letters: UnsafeBufferPointer<UInt8>, hash: UInt64) -> Bool {
        guard !slots.isEmpty else { return false }
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
