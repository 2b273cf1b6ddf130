extension Redactor {
    /// Free text (an error message, a log line) with secrets masked, whitespace kept.
    ///
    /// Every URL is redacted like ``redactedURL(string:)``; `name=value` pairs, `name: value`,
    /// `name:value`, `name = value` and JSON-like `"name": "value"` (compact or pretty-printed)
    /// are masked when the name is sensitive as a header, a query item or a body key; so is
    /// the credential after `Bearer` or `Basic`. A quoted value is masked up to its closing
    /// quote, spaces included.
    public func redactedText(_ text: String) -> String {
        guard level != .none else { return text }
        var scrubber = TextScrubber(redactor: self)
        var output = ""
        output.reserveCapacity(text.utf8.count)
        var rest = Substring(text)
        while let character = rest.first {
            if character.isWhitespace {
                output.append(character)
                rest = rest.dropFirst()
            } else {
                let end = rest.firstIndex(where: \.isWhitespace) ?? rest.endIndex
                output += scrubber.scrub(word: rest[..<end])
                rest = rest[end...]
            }
        }
        return output
    }

    func isSensitiveName(_ name: String) -> Bool {
        !name.isEmpty && (masksHeader(named: name) || masksQueryItem(named: name) || masksBodyKey(name))
    }
}

/// Word-by-word state of ``Redactor/redactedText(_:)``: what the previous words announced.
private struct TextScrubber {
    /// Words that announce a credential wherever they stand.
    static let credentialSchemes: Set<String> = ["bearer", "basic", "digest", "negotiate"]
    /// Schemes after a sensitive name (`Authorization: Token abc`), which may also be words.
    static let schemesAfterName: Set<String> = credentialSchemes.union(["token"])
    static let openers: Set<Character> = ["\"", "'", "{", "(", "["]
    static let closers: Set<Character> = ["\"", "'", ",", ";", "}", ")", "]"]
    static let pieceDelimiters: Set<Character> = [",", ";", "{", "}", "\"", "'", "(", ")", "[", "]"]

    let redactor: Redactor
    /// The next word is a secret.
    var masksNext = false
    /// A masked quoted value goes on until this quote.
    var openQuote: Character?
    /// The previous word named something sensitive, waiting for `:` or `=`.
    var pendingSensitiveName = false

    init(redactor: Redactor) {
        self.redactor = redactor
    }

    mutating func scrub(word: Substring) -> String {
        if let quote = openQuote {
            if word.contains(quote) { openQuote = nil }
            return Redactor.mask
        }
        if masksNext {
            let bare = word.drop { Self.openers.contains($0) }
            if Self.schemesAfterName.contains(bare.lowercased()) { return String(word) }
            masksNext = false
            return masked(word)
        }
        if pendingSensitiveName, word == ":" || word == "=" {
            pendingSensitiveName = false
            masksNext = true
            return String(word)
        }
        // A word with a URL in it may hold more (compact JSON, a list): scrub it piece by piece,
        // the delimiters passing through without changing what the pieces announce.
        if word.contains("://"), word.contains(where: Self.pieceDelimiters.contains) {
            var output = ""
            for piece in pieces(of: word) {
                let isDelimiter = piece.count == 1 && Self.pieceDelimiters.contains(piece.first!)
                output += isDelimiter ? String(piece) : scrub(word: piece)
            }
            return output
        }
        pendingSensitiveName = false
        if word.contains("://") || word.hasPrefix("//") {
            return redactor.redactedURL(string: String(word))
        }
        return scrubPiece(word)
    }

    private mutating func scrubPiece(_ word: Substring) -> String {
        let bare = word.drop { Self.openers.contains($0) }
        if Self.credentialSchemes.contains(bare.lowercased()) {
            masksNext = true
            return String(word)
        }
        if word.contains("?") && word.contains("=") {
            return redactor.redactedURL(string: String(word))
        }
        if let separator = bare.firstIndex(where: { $0 == ":" || $0 == "=" }) {
            let name = Self.unquoted(bare[..<separator])
            if redactor.isSensitiveName(name) {
                let value = bare[bare.index(after: separator)...]
                let valueBare = value.drop { Self.openers.contains($0) }
                if value.isEmpty || Self.schemesAfterName.contains(valueBare.lowercased()) {
                    masksNext = true
                    return String(word)
                }
                return String(word[..<bare.index(after: separator)]) + masked(value)
            }
            if bare[separator] == "=" {
                return redactor.maskedPairs(word, masks: redactor.isSensitiveName)
            }
        }
        pendingSensitiveName = redactor.isSensitiveName(Self.unquoted(bare))
        return String(word)
    }

    /// The mask, keeping the quotes and punctuation around the value; an opening quote that
    /// does not close in this word keeps masking until it does.
    private mutating func masked(_ value: Substring) -> String {
        let opening = value.prefix { Self.openers.contains($0) }
        let rest = value.dropFirst(opening.count)
        if let quote = opening.last(where: { $0 == "\"" || $0 == "'" }), !rest.contains(quote) {
            openQuote = quote
            return String(opening) + Redactor.mask
        }
        let closing = rest.reversed().prefix { Self.closers.contains($0) }
        return String(opening) + Redactor.mask + String(closing.reversed())
    }

    /// A word cut into pieces at delimiters, delimiters kept as pieces of their own, so a URL
    /// inside JSON or a list does not swallow what follows it.
    private func pieces(of word: Substring) -> [Substring] {
        var pieces: [Substring] = []
        var start = word.startIndex
        for index in word.indices where Self.pieceDelimiters.contains(word[index]) {
            if start < index { pieces.append(word[start..<index]) }
            pieces.append(word[index...index])
            start = word.index(after: index)
        }
        if start < word.endIndex { pieces.append(word[start...]) }
        return pieces
    }

    private static func unquoted(_ name: Substring) -> String {
        String(name.filter { !"\"'{}[](),".contains($0) })
    }
}
