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
                    let startsWord: Bool
                    switch (previous, current) {
                    case (.separator, _): startsWord = true
                    case (.lower, .upper), (.digit, .upper): startsWord = true
                    case (.upper, .upper): startsWord = index + 1 < name.count && CharacterClass(name[index + 1]) == .lower
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

    /// Whether the name reads as a generated value rather than as words: 16 letters and digits
    /// or more, four of its words or more a single letter (`zH1t8H4ILV6vBt5d…`, a base64 hash
    /// or id standing where a name would). Such a name's words are chance, not meaning: the
    /// `SSN` in `3cSSN44` names no social security number. `user1Password` has no such word.
    var looksGenerated: Bool {
        guard letters.count >= 16 else { return false }
        var singleLetters = 0
        var index = 0
        while index < letters.count {
            var end = index + 1
            while end < letters.count, !wordStarts[end] { end += 1 }
            if end == index + 1, letters[index] > UInt8(ascii: "9") { singleLetters += 1 }
            if singleLetters >= 4 { return true }
            index = end
        }
        return false
    }

    /// The name with look-alike characters read as the ASCII letters they stand for, so they
    /// cannot hide a sensitive name: compatibility forms (full-width `ｐ`, ligatures) become
    /// their plain letters, Cyrillic and Greek letters that look Latin become that letter (their
    /// confusable skeletons in Unicode's UTS #39: `Аuthorization` with a Cyrillic `А`,
    /// `pаssword`), and so do Armenian letters (`passwօrd` with an Armenian `օ`) and small
    /// capitals (`ᴘᴀssᴡᴏʀᴅ`), characters whose case folding is ASCII become it (`ſ` is `s`, the Kelvin
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

    /// Cyrillic, Greek and Armenian letters whose confusable skeleton (UTS #39) is a Latin
    /// letter, and small capitals, by code point: the ones that can spell a sensitive name in a
    /// Latin-looking way.
    private static let latinLookAlikes: [UInt32: UInt8] = {
        let pairs: [(String, String)] = [
            // Cyrillic
            ("\u{0430}\u{0435}\u{043E}\u{0440}\u{0441}\u{0443}\u{0445}\u{0456}\u{0458}\u{0455}\u{04BB}\u{0501}\u{051B}\u{051D}\u{04CF}", "aeopcyxijshdqwl"),
            ("\u{0410}\u{0412}\u{0415}\u{041A}\u{041C}\u{041D}\u{041E}\u{0420}\u{0421}\u{0422}\u{0425}\u{0405}\u{0406}\u{0408}\u{04AE}", "abekmhopctxsijy"),
            // Greek
            ("\u{03B1}\u{03BF}\u{03C1}\u{03BD}\u{03B9}\u{03BA}\u{03C5}\u{03C7}", "aopvikux"),
            ("\u{0391}\u{0392}\u{0395}\u{0396}\u{0397}\u{0399}\u{039A}\u{039C}\u{039D}\u{039F}\u{03A1}\u{03A4}\u{03A5}\u{03A7}", "abezhikmnoptyx"),
            // Armenian
            ("\u{0561}\u{0563}\u{0566}\u{0570}\u{0578}\u{057C}\u{057D}\u{0581}\u{0585}\u{0575}", "wqqhnnugoj"),
            ("\u{0555}\u{054D}\u{054F}", "ous"),
            // Small capitals and other Latin letters that look like plain ones (IPA, phonetic extensions)
            ("\u{1D00}\u{0299}\u{1D04}\u{1D05}\u{1D07}\u{A730}\u{0262}\u{029C}\u{026A}\u{1D0A}\u{1D0B}\u{029F}\u{1D0D}", "abcdefghijklm"),
            ("\u{0274}\u{1D0F}\u{1D18}\u{A7AF}\u{0280}\u{A731}\u{1D1B}\u{1D1C}\u{1D20}\u{1D21}\u{028F}\u{1D22}", "nopqrstuvwyz"),
            ("\u{0251}\u{0261}\u{0269}", "agi"),
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
