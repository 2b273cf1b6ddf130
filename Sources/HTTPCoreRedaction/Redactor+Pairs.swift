import HTTPCoreText

/// `name=value` pairs as forms, queries and free text carry them.
extension Redactor {
    /// The most bytes of `name=value` text (a form body, a word of free text) that are read.
    ///
    /// What lies beyond is replaced by `[REDACTED: N more bytes]`, never copied, so the cost of
    /// masking is bounded whatever the size of the input.
    package static let maximumFormBytes = 8 * 1024 * 1024

    /// `name=value&...` text (`;` separates pairs too) with the values of masked names
    /// replaced, raw names and separators kept.
    ///
    /// A name is matched as ``formDecoded(_:)`` reads it, and by each of its parts
    /// (``formKeyCandidates(_:)``): `user[password]`, `tok%00en` and `%2574oken` are masked
    /// like `password` and `token`. A value that is kept but holds a URL or more pairs, raw or
    /// percent-encoded (`next=https%3A%2F%2Fa%2F%3Ftoken%3D...`), gets the rules of
    /// ``redactedURL(string:)``; only the masked bytes change, everything else keeps the
    /// encoding it was sent in.
    ///
    /// One pass over the UTF-8 bytes; at most ``maximumFormBytes`` are read.
    func maskedPairs(_ text: Substring, names: NameTest) -> String {
        var masker = PairMasker(text, limit: Self.maximumFormBytes, redactor: self)
        let source = masker.sourceView
        masker.maskPairs(source, 0..<source.count, names: names, masksBareItems: false, nesting: PairMasker.Nesting())
        return masker.finish()
    }

    /// The names a form key is matched by: itself, itself without trailing `[]`, and, when it
    /// has punctuation other than `_` and `-`, each part between the punctuation.
    ///
    /// `user[password][]` is matched as `user[password][]`, `user[password]`, `user` and
    /// `password`; `user.api_key` as `user.api_key`, `user` and `api_key`.
    static func formKeyCandidates(_ name: String) -> [String] {
        var candidates = [name]
        _ = forEachNamePart(of: Array(name.utf8)[...]) { bytes in
            let part = String(decoding: bytes, as: UTF8.self)
            if !candidates.contains(part) { candidates.append(part) }
            return false
        }
        return candidates
    }

    /// A name as it is matched: `+` read as a space, percent escapes decoded again and again
    /// (`%2574oken` is `%74oken` is `token`, at most ``PairMasker/maximumDecodes`` rounds), and
    /// control and invisible format characters dropped (`tok%00en` is `token`).
    ///
    /// Invalid escapes and a lone `%` are kept as they are.
    static func formDecoded(_ text: Substring) -> String {
        decodedName(text.utf8).name
    }

    /// The name as ``formDecoded(_:)`` reads it, and whether it is fully decoded: a name still
    /// percent-encoded after the last round may hide anything and is treated as sensitive.
    static func decodedName(_ bytes: some Collection<UInt8>) -> (name: String, isFullyDecoded: Bool) {
        let (decoded, isFullyDecoded) = decodedNameBytes(bytes)
        return (String(decoding: decoded, as: UTF8.self), isFullyDecoded)
    }

    /// ``decodedName(_:)`` as UTF-8 bytes.
    static func decodedNameBytes(_ bytes: some Collection<UInt8>) -> (name: [UInt8], isFullyDecoded: Bool) {
        // Dropped in every round, so that `%25%0074` cannot hide `%74` behind a control character.
        var decoded = visible(jsonUnescaped(Array(bytes)))
        for _ in 0..<PairMasker.maximumDecodes {
            guard let next = PairMasker.formDecodedOnce(decoded) else { break }
            decoded = visible(jsonUnescaped(next))
        }
        return (decoded, !PairMasker.hasEscape(decoded, 0..<decoded.count))
    }

    /// The bytes with JSON's escapes resolved (`pass\u0077ord` in free text or a form),
    /// when they hold a backslash and every escape is well formed; otherwise as they are.
    private static func jsonUnescaped(_ bytes: [UInt8]) -> [UInt8] {
        guard bytes.contains(PairMasker.ASCII.backslash) else { return bytes }
        let decoded = bytes.withUnsafeBufferPointer { JSONString.decode($0[...]) }
        return decoded.map { Array($0.utf8) } ?? bytes
    }

    /// The bytes without control characters, invisible format characters (zero-width spaces,
    /// bidirectional marks, soft hyphens) and invalid UTF-8.
    private static func visible(_ bytes: [UInt8]) -> [UInt8] {
        guard bytes.contains(where: { $0 < 0x20 || $0 >= 0x7F }) else { return bytes }
        let scalars = String(decoding: bytes, as: UTF8.self).unicodeScalars.filter { scalar in
            switch scalar.properties.generalCategory {
            case .control, .format: false
            default: scalar != "\u{FFFD}"
            }
        }
        return Array(String(String.UnicodeScalarView(scalars)).utf8)
    }

    /// Calls `body` with each further name a decoded name is matched by (see
    /// ``formKeyCandidates(_:)``) until it returns `true`; returns whether it did. Each part
    /// is a slice of `bytes`, never a copy.
    static func forEachNamePart(of bytes: ArraySlice<UInt8>, _ body: (ArraySlice<UInt8>) -> Bool) -> Bool {
        let first = bytes.startIndex
        var end = bytes.endIndex
        while end - first >= 2, bytes[end - 2] == PairMasker.ASCII.openBracket, bytes[end - 1] == PairMasker.ASCII.closeBracket { end -= 2 }
        if end > first, end < bytes.endIndex, body(bytes[..<end]) { return true }
        guard bytes.contains(where: PairMasker.isNamePunctuation) else { return false }
        var start = first
        for index in first...bytes.endIndex where index == bytes.endIndex || PairMasker.isNamePunctuation(bytes[index]) {
            if start < index, body(bytes[start..<index]) { return true }
            start = index + 1
        }
        return false
    }
}
