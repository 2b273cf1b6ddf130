extension Redactor {
    /// Free text (an error message, a log line) with secrets masked, whitespace kept.
    ///
    /// Every URL is redacted like ``redactedURL(string:)``; `name=value` pairs, `name: value`,
    /// `name:value` and JSON-like `"name": "value"` are masked when the name is sensitive as a
    /// header, a query item or a body key; so is the credential after `Bearer` or `Basic`.
    public func redactedText(_ text: String) -> String {
        guard level != .none else { return text }
        var output = ""
        output.reserveCapacity(text.utf8.count)
        var masksNext = false
        var word = Substring()
        func flushWord() {
            guard !word.isEmpty else { return }
            output += redactedWord(word, masksNext: &masksNext)
            word = ""
        }
        var rest = Substring(text)
        while let character = rest.first {
            if character.isWhitespace {
                flushWord()
                output.append(character)
                rest = rest.dropFirst()
            } else {
                let end = rest.firstIndex(where: \.isWhitespace) ?? rest.endIndex
                word = rest[..<end]
                rest = rest[end...]
            }
        }
        flushWord()
        return output
    }

    private static let credentialSchemes: Set<String> = ["bearer", "basic", "digest", "token", "negotiate"]
    private static let quotes: Set<Character> = ["\"", "'", "{", "(", "["]
    private static let closers: Set<Character> = ["\"", "'", ",", ";", "}", ")", "]"]

    private func redactedWord(_ word: Substring, masksNext: inout Bool) -> String {
        let bare = word.drop { Self.quotes.contains($0) }
        if masksNext {
            if Self.credentialSchemes.contains(bare.lowercased()) { return String(word) }
            masksNext = false
            return masked(word)
        }
        if Self.credentialSchemes.contains(bare.lowercased()) && bare.first?.isUppercase == true {
            masksNext = true
            return String(word)
        }
        if word.contains("://") || word.contains("?") && word.contains("=") {
            return redactedURL(string: String(word))
        }
        if let colon = bare.firstIndex(of: ":") {
            let name = Self.unquoted(bare[..<colon])
            if isSensitiveName(name) {
                let value = bare[bare.index(after: colon)...]
                if value.isEmpty {
                    masksNext = true
                    return String(word)
                }
                return String(word[..<colon]) + ":" + masked(value)
            }
        }
        if word.contains("=") {
            return maskedPairs(word, masks: isSensitiveName)
        }
        return String(word)
    }

    /// The mask, keeping the quotes and punctuation around the value.
    private func masked(_ value: Substring) -> String {
        let opening = value.prefix { Self.quotes.contains($0) }
        let closing = value.dropFirst(opening.count).reversed().prefix { Self.closers.contains($0) }
        return String(opening) + Self.mask + String(closing.reversed())
    }

    private func isSensitiveName(_ name: String) -> Bool {
        !name.isEmpty && (masksHeader(named: name) || masksQueryItem(named: name) || masksBodyKey(name))
    }

    private static func unquoted(_ name: Substring) -> String {
        String(name.filter { !"\"'{}[](),".contains($0) })
    }
}
