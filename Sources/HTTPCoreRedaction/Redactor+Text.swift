import Foundation
import HTTPCoreText

extension Redactor {
    /// The most UTF-8 bytes of free text that ``redactedText(_:)`` reads; the rest is replaced
    /// by `…[truncated, N more bytes]`, never copied.
    package static let maximumScrubbedTextBytes = 64 * 1024

    /// Free text (an error message, a log line) with secrets masked, whitespace and everything
    /// else kept.
    ///
    /// - URLs (`scheme://…`, `//host…`) get ``redactedURL(string:)``; a URL ends at whitespace,
    ///   a quote, a bracket, `,`, `;` or `\`. One with its slashes escaped, as JSON may write
    ///   them (`https:\/\/host\/cb?token=…`), runs on over each `\/`, is masked as the plain
    ///   URL is, and keeps its escaped slashes.
    /// - A sensitive name (as a header, a query item or a body key) followed by `=`, `:`, `=>`
    ///   (spaces allowed around them), or written as a command-line flag (`--password x`,
    ///   `--token=x`), has its value masked. The name may be quoted, escaped-quoted (`\"token\"`
    ///   in JSON inside a string), a Ruby symbol (`:password`), percent-encoded or bracketed
    ///   (`user[password]`). The value is masked up to its closing quote when quoted (spaces
    ///   included), as a whole when it is an object or array, to the end of the line after
    ///   `Cookie:` or `Set-Cookie:`, and otherwise up to whitespace or one of `,;&)]}`. A
    ///   credential scheme after the name (`Bearer`, `Basic`, `Token`, …) is kept and the
    ///   credential after it masked.
    /// - The word after `Bearer`, `Basic`, `Digest` or `Negotiate` is masked.
    /// - After `jwt`, `token`, `apikey`, `key`, `secret`, `password`, `passwd`, `hmac` or
    ///   `signature` written as a word, the next word is masked when it is shaped like a
    ///   credential (8 bytes or more with a digit or a symbol, or a JWT): `jwt 9f8a7c6b5e`,
    ///   but not `token expired`.
    /// - A JSON Web Token (`eyJ…` with two dots) is masked wherever it stands.
    /// - At `.strict`, stricter: any word that looks randomly generated (16 bytes or more of
    ///   letters and digits, both present) is masked wherever it stands.
    /// - A password before `@` without a scheme (`admin:secret@db.internal:5432`) is masked.
    ///
    /// One pass over the bytes, at most 64 KiB of them; a word cut by that limit is dropped,
    /// not copied in part.
    ///
    /// - Parameter text: Free text: an error message, a log line, a body that is not
    ///   structured.
    /// - Returns: The text with what looks secret masked.
    public func redactedText(_ text: String) -> String {
        redactedText(text, byteLimit: Self.maximumScrubbedTextBytes)
    }

    /// ``redactedText(_:)`` reading at most `byteLimit` bytes of `text` (cut at whitespace),
    /// for a text body's run without whitespace that is longer than the usual limit: one pass,
    /// linear in its length.
    func redactedText(_ text: String, byteLimit: Int) -> String {
        guard level != .none else { return text }
        var scrubber = TextScrubber(text, redactor: self, byteLimit: byteLimit)
        return scrubber.scrub()
    }

    /// Whether a whole string is shaped like a secret: a JWT, or a random-looking word (see
    /// the `.strict` text rule).
    static func isSecretShaped(_ text: String) -> Bool {
        // Both shapes are longer than 10 bytes: most names are answered without a copy.
        guard text.utf8.count > 10 else { return false }
        let bytes = Array(text.utf8)[...]
        return TextScrubber.isJWT(bytes) || TextScrubber.looksRandom(bytes)
    }

    /// Whether the text rules could change `text`: it holds a separator a pair, a flag or a URL
    /// needs (`=`, `:`, `@`, `--`, `//`), a byte outside ASCII, a credential scheme or word, a
    /// JWT or base64 JSON start, or, at `.strict`, a word of 16 bytes or more. It must answer
    /// `true` for every text ``redactedText(_:)`` changes (a test holds it to that). Header values are asked first,
    /// so the common ones (`application/json`, `gzip, br`, `no-cache`) cost one scan.
    func textRulesMayChange(_ text: String) -> Bool {
        var text = text
        return text.withUTF8 { textRulesMayChange(utf8: $0) }
    }

    /// ``textRulesMayChange(_:)`` over UTF-8 bytes, for bodies read in place.
    func textRulesMayChange(utf8: UnsafeBufferPointer<UInt8>) -> Bool {
        let formats = SecretFormatIndex.shared.reader
        var index = 0
        while index < utf8.count {
            let byte = utf8[index]
            let next = index + 1 < utf8.count ? utf8[index + 1] : 0
            switch byte {
            case UInt8(ascii: "="), UInt8(ascii: ":"), UInt8(ascii: "@"), 0x80...:
                return true
            case UInt8(ascii: "/") where next == UInt8(ascii: "/"), UInt8(ascii: "-") where next == UInt8(ascii: "-"):
                return true   // a URL without a scheme, a command-line flag (`--api-key x`)
            default:
                break
            }
            guard TextScrubber.isNameByte(byte) else {
                // A format that starts with punctuation (`$2b$…`, `-----BEGIN …`).
                if formats.mayStart(with: byte), formats.secretLength(atStartOf: utf8[index...]) != nil
                {
                    return true
                }
                index += 1
                continue
            }
            // A word as the text rules read one: name bytes, then `-`, `.`, `+` inside it.
            var end = index + 1
            while end < utf8.count, TextScrubber.isNameByte(utf8[end]) || TextScrubber.isNameInnerByte(utf8[end]) {
                if utf8[end] >= 0x80 { return true }
                end += 1
            }
            if formats.secretLength(atStartOf: utf8[index...]) != nil
                || TextScrubber.mayStartARule(utf8[index..<end], strict: level == .strict)
            {
                return true
            }
            index = end
        }
        return false
    }

    /// What a name says of its values as a header, a query item or a body key, whichever
    /// masks most.
    func valueRuleAsAnyKind(for name: String) -> ValueRule {
        guard !name.isEmpty else { return .keep }
        let rules = nameRules
        return NameKey.with(name) { rules.valueRuleAsAnyKind($0) }
    }
}

/// One pass of ``Redactor/redactedText(_:)`` over UTF-8 bytes.
struct TextScrubber {
    private let input: [UInt8]
    private let omittedByteCount: Int
    private let redactor: Redactor
    /// Names masked as any kind.
    private let names: NameTest
    /// The verdicts on the last names read.
    private var recentVerdicts = RecentVerdicts()
    private var output: [UInt8] = []
    private var index = 0

    private static let mask = Array(Redactor.mask.utf8)
    /// Words that announce a credential wherever they stand.
    private static let credentialSchemes = WordList(["bearer", "basic", "digest", "negotiate"])
    /// Schemes after a sensitive name (`Authorization: Token abc`).
    private static let schemesAfterName = credentialSchemes + WordList(["token"])
    /// Whether a word, as ``word()`` reads one, could make a rule other than a known format's
    /// mask something without a separator: a JWT or base64 JSON, a credential scheme
    /// (`…Bearer`), a credential word, or at `.strict` a long word. ``Redactor/textRulesMayChange(utf8:)`` asks it; no copy.
    static func mayStartARule(_ word: Slice<UnsafeBufferPointer<UInt8>>, strict: Bool) -> Bool {
        if strict, word.count >= 16 { return true }
        if startsLikeBase64JSON(word) { return true }
        return credentialSchemes.isSuffix(of: word) || credentialWords.contains(word)
    }

    /// Words after which a credential-shaped word (``looksLikeCredential(_:)``) is masked:
    /// `jwt eyJ…`, `token 9f8a7c6b5e`, `api key sk_live_51H…`, `password hunter22`, while
    /// `token expired` keeps its ordinary word.
    private static let credentialWords = WordList(["jwt", "token", "apikey", "key", "secret", "password", "passwd", "hmac", "signature"])
    /// Names whose value is a list to the end of the line.
    private static let cookieNames = WordList(["cookie", "set-cookie"])

    /// Whether a random-looking word is masked wherever it stands (`.strict`).
    private let masksRandomWords: Bool
    /// The known formats, read once rather than through the shared index per word.
    private let formats = SecretFormatIndex.shared.reader

    init(_ text: String, redactor: Redactor, byteLimit: Int = Redactor.maximumScrubbedTextBytes) {
        masksRandomWords = redactor.level == .strict
        var bytes = Array(text.utf8)
        var kept = bytes.count
        if kept > byteLimit {
            // Cut at whitespace, so no word (a secret) is copied in part.
            kept = byteLimit
            while kept > 0, !Self.isSpace(bytes[kept - 1]) { kept -= 1 }
        }
        omittedByteCount = bytes.count - kept
        if omittedByteCount > 0 { bytes.removeSubrange(kept...) }
        input = bytes
        self.redactor = redactor
        names = .anyKind(redactor)
        output.reserveCapacity(bytes.count + 16)
    }

    mutating func scrub() -> String {
        while index < input.count {
            let byte = input[index]
            if Self.isNameByte(byte) {
                word()
            } else if byte == UInt8(ascii: "/"), at("//"), index == 0 || Self.isSpace(input[index - 1]) {
                url(from: index)
            } else if formats.mayStart(with: byte), index == 0 || !Self.isNameByte(input[index - 1]),
                let length = formats.secretLength(atStartOf: input[index...])
            {
                // A format that starts with punctuation: a crypt hash (`$2b$…`), a PEM block.
                maskSecret(from: index, length: length)
            } else {
                output.append(byte)
                index += 1
            }
        }
        if omittedByteCount > 0 { output.append(contentsOf: TruncationMarker.omitting(omittedByteCount).utf8) }
        return String(decoding: output, as: UTF8.self)
    }

    // MARK: Words

    /// A run of name bytes at `index`: a URL scheme, a JWT, a credential scheme, a name with a
    /// value, or just a word.
    private mutating func word() {
        let start = index
        var end = start
        var openBrackets = 0
        while end < input.count {
            let byte = input[end]
            if Self.isNameByte(byte) || Self.isNameInnerByte(byte) {
                end += 1
            } else if byte == UInt8(ascii: "["), end + 1 < input.count, Self.isNameByte(input[end + 1]) || input[end + 1] == UInt8(ascii: "]") {
                // `user[password]`, `ids[]`: brackets belong to a name only when they open and close in it.
                openBrackets += 1
                end += 1
            } else if byte == UInt8(ascii: "]"), openBrackets > 0 {
                openBrackets -= 1
                end += 1
            } else {
                break
            }
        }
        let run = input[start..<end]
        if end < input.count, input[end] == UInt8(ascii: ":"), at("://", from: end) || at(#":\/\/"#, from: end) {
            url(from: start)
            return
        }
        if let length = formats.secretLength(atStartOf: input[start...]) {
            // A provider's key (`sk-proj-…`, `ghp_…`, `AKIA…`), under any name or none.
            maskSecret(from: start, length: length)
            return
        }
        if Self.isJWT(run) || Self.isBase64JSON(run) && base64JSONHoldsSecret(run) || masksRandomWords && Self.looksRandom(run) {
            output.append(contentsOf: Self.mask)
            index = end
            return
        }
        output.append(contentsOf: run)
        index = end
        if Self.credentialSchemes.isSuffix(of: run) {
            maskNextToken()
            return
        }
        if Self.credentialWords.contains(run) {
            maskNextToken(onlyIf: Self.looksLikeCredential)
            if index != end { return }
        }
        let isFlag = start >= 2 && input[start - 1] == UInt8(ascii: "-") && input[start - 2] == UInt8(ascii: "-")
            && (start == 2 || !Self.isNameByte(input[start - 3]))
        guard let separatorEnd = separator(isFlag: isFlag) else { return }
        let rule = recentVerdicts.verdict(on: start..<end, in: input, judge: names.rule(raw:))
        if rule.masks(text: input[separatorEnd..<tokenEnd(from: separatorEnd)]) {
            copy(to: separatorEnd)
            value(isCookie: Self.cookieNames.contains(run))
        } else if input[separatorEnd - 1] == UInt8(ascii: ":"), !run.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) {
            copy(to: separatorEnd)
            maskUserinfoPassword()
        }
    }

    /// Masks the secret of a known format at `start`, `length` bytes long, and the rest of
    /// the word it stands in, so no tail of it is left after a byte its alphabet lacks
    /// (`xapp-…/…`); a sentence's punctuation after it is kept.
    private mutating func maskSecret(from start: Int, length: Int) {
        var end = tokenEnd(from: start)
        while end > start + length, Self.isSentencePunctuation(input[end - 1]) { end -= 1 }
        output.append(contentsOf: Self.mask)
        index = max(start + length, end)
    }

    /// After a name: the end of `"`, `'` or `\"` closing it, spaces, and `=`, `=>` or `:` (not
    /// `://`), then spaces; for a flag, also whitespace alone. `nil` when no value follows.
    private func separator(isFlag: Bool) -> Int? {
        var position = index
        if position < input.count, input[position] == UInt8(ascii: "\\"), position + 1 < input.count, Self.isQuote(input[position + 1]) {
            position += 2
        } else if position < input.count, Self.isQuote(input[position]) {
            position += 1
        }
        let afterName = position
        while position < input.count, input[position] == 0x20 || input[position] == 0x09 { position += 1 }
        guard position < input.count else { return nil }
        switch input[position] {
        case UInt8(ascii: "="):
            position += input.count > position + 1 && input[position + 1] == UInt8(ascii: ">") ? 2 : 1
        case UInt8(ascii: ":"):
            guard !at("//", from: position + 1) else { return nil }
            position += 1
        default:
            guard isFlag, position > afterName, !Self.isSpace(input[position]) else { return nil }
            return position
        }
        while position < input.count, input[position] == 0x20 || input[position] == 0x09 { position += 1 }
        return position < input.count ? position : nil
    }

    /// Masks the value at `index`: a quoted string to its closing quote, an object or array as
    /// a whole, the rest of the line for a cookie list, a scheme's credential, or a token.
    private mutating func value(isCookie: Bool) {
        guard index < input.count else { return }
        // Text masked already (a joined answer of masked deltas) is kept as it is: masking a
        // mask would leave its bracket behind.
        if input[index] == UInt8(ascii: "["), at("[REDACTED]") {
            copy(to: index + Self.mask.count)
            return
        }
        let byte = input[index]
        if isCookie {
            let end = input[index...].firstIndex { $0 == 0x0A || $0 == 0x0D } ?? input.count
            output.append(contentsOf: Self.mask)
            index = end
        } else if byte == UInt8(ascii: "\\"), index + 1 < input.count, Self.isQuote(input[index + 1]) {
            maskQuoted(quote: input[index + 1], escaped: true)
        } else if Self.isQuote(byte) {
            maskQuoted(quote: byte, escaped: false)
        } else if byte == UInt8(ascii: "{") || byte == UInt8(ascii: "[") {
            maskBalanced()
        } else {
            let end = tokenEnd(from: index)
            if Self.schemesAfterName.contains(input[index..<end]), end < input.count, Self.isSpace(input[end]) {
                copy(to: end)
                maskNextToken()
            } else {
                output.append(contentsOf: Self.mask)
                index = end
            }
        }
    }

    /// Masks the token after the whitespace at `index`, when one follows.
    private mutating func maskNextToken(onlyIf isCredential: ((ArraySlice<UInt8>) -> Bool)? = nil) {
        var start = index
        while start < input.count, Self.isSpace(input[start]) { start += 1 }
        guard start > index, start < input.count, input[start] != UInt8(ascii: "[") || !at("[REDACTED]", from: start) else { return }
        if let isCredential {
            // Only a bare word shaped like a credential; anything else is read as usual. A
            // sentence's punctuation after it does not make it one (`the token refresh.`,
            // `API key provided:`), but is masked with it when it is one (`hunter22!`).
            let end = tokenEnd(from: start)
            var wordEnd = end
            while wordEnd > start, Self.isSentencePunctuation(input[wordEnd - 1]) {
                wordEnd -= 1
            }
            guard wordEnd > start, !Self.isQuote(input[start]), isCredential(input[start..<wordEnd]) else { return }
            copy(to: start)
            output.append(contentsOf: Self.mask)
            index = end
            return
        }
        copy(to: start)
        if Self.isQuote(input[start]) {
            maskQuoted(quote: input[start], escaped: false)
            return
        }
        let end = tokenEnd(from: start)
        guard end > start else { return }
        output.append(contentsOf: Self.mask)
        index = end
    }

    /// A word a credential could be: at least 8 bytes, with a digit or a symbol among letters
    /// (`9f8a7c6b5e`, `sk_live_51H…`, `hunter22`), or a JWT; `expired`, `invalid` are not.
    private static func looksLikeCredential(_ word: ArraySlice<UInt8>) -> Bool {
        if isJWT(word) { return true }
        guard word.count >= 8 else { return false }
        return word.contains { !(($0 | 0x20) >= 97 && ($0 | 0x20) <= 122) }
    }

    /// A word that looks randomly generated, masked wherever it stands at `.strict`: at least
    /// 16 bytes of letters, digits and `-_.+/=~`, with both letters and digits
    /// (`3f9a1c0e8b7d6a5f4e3d`, `AKIAIOSFODNN7EXAMPLE`). Words and ids under 16 bytes are kept.
    static func looksRandom(_ word: ArraySlice<UInt8>) -> Bool {
        guard word.count >= 16 else { return false }
        var letters = 0, digits = 0
        for byte in word {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digits += 1
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"): letters += 1
            case UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."), UInt8(ascii: "+"), UInt8(ascii: "/"), UInt8(ascii: "="),
                UInt8(ascii: "~"):
                continue
            default: return false
            }
        }
        return letters > 0 && digits > 0
    }

    /// The opening `quote` at `index` (after a backslash when `escaped`), then everything up to
    /// the same quote (not escaped) masked; an unclosed quote masks to the end.
    private mutating func maskQuoted(quote: UInt8, escaped: Bool) {
        let openingCount = escaped ? 2 : 1
        copy(to: index + openingCount)
        var position = index
        while position < input.count {
            let byte = input[position]
            if escaped {
                // `\"`: the value ends at the next `\"`.
                if byte == UInt8(ascii: "\\"), position + 1 < input.count, input[position + 1] == quote { break }
                position += 1
            } else if byte == UInt8(ascii: "\\") {
                position += 2
            } else if byte == quote {
                break
            } else {
                position += 1
            }
        }
        output.append(contentsOf: Self.mask)
        index = min(position, input.count)
        if index < input.count { copy(to: index + openingCount) }
    }

    /// An object or array at `index`, masked as a whole up to its matching bracket (quotes
    /// respected), or to the end of the line when it does not close there.
    private mutating func maskBalanced() {
        var depth = 0
        var position = index
        var quote: UInt8?
        while position < input.count {
            let byte = input[position]
            if let open = quote {
                if byte == UInt8(ascii: "\\") { position += 1 } else if byte == open { quote = nil }
            } else if byte == UInt8(ascii: "\"") {
                quote = byte
            } else if byte == UInt8(ascii: "{") || byte == UInt8(ascii: "[") {
                depth += 1
            } else if byte == UInt8(ascii: "}") || byte == UInt8(ascii: "]") {
                depth -= 1
                if depth == 0 {
                    position += 1
                    break
                }
            }
            position += 1
        }
        output.append(contentsOf: Self.mask)
        index = min(position, input.count)
    }

    /// `user:secret@host` after a name and `:`: the part before `@` is masked when a host (with
    /// a dot or a port) follows.
    private mutating func maskUserinfoPassword() {
        let end = tokenEnd(from: index)
        guard let at = input[index..<end].firstIndex(of: UInt8(ascii: "@")), at > index, at + 1 < end,
            Self.isNameByte(input[at + 1]), input[(at + 1)..<end].contains(where: { $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: ":") })
        else { return }
        output.append(contentsOf: Self.mask)
        index = at
    }

    // MARK: URLs

    /// The URL starting at `start` (its scheme already read, or `//`), redacted.
    ///
    /// A URL whose slashes are escaped, as JSON quoted inside a message writes them
    /// (`https:\/\/host\/cb?token=…`), runs on over each `\/`, is redacted with its slashes
    /// plain, so the URL rules mask what they mask in `https://host/cb?token=…` (a userinfo,
    /// a nested encoded query), and is written back with its slashes escaped.
    private mutating func url(from start: Int) {
        var schemeEnd = start
        while schemeEnd < input.count, Self.isNameByte(input[schemeEnd]) || Self.isNameInnerByte(input[schemeEnd]) { schemeEnd += 1 }
        let isEscaped = at(#":\/\/"#, from: schemeEnd)
        var end = start
        if isEscaped {
            while end < input.count {
                if input[end] == UInt8(ascii: "\\"), end + 1 < input.count, input[end + 1] == UInt8(ascii: "/") {
                    end += 2
                } else if Self.endsURL(input[end]) {
                    break
                } else {
                    end += 1
                }
            }
            let text = String(decoding: input[start..<end], as: UTF8.self)
            let redacted = redactor.redactedURL(string: text.replacingOccurrences(of: #"\/"#, with: "/"))
            output.append(contentsOf: redacted.replacingOccurrences(of: "/", with: #"\/"#).utf8)
        } else {
            while end < input.count, !Self.endsURL(input[end]) { end += 1 }
            output.append(contentsOf: redactor.redactedURL(utf8: Array(input[start..<end])))
        }
        index = end
    }

    // MARK: Bytes

    private mutating func copy(to end: Int) {
        output.append(contentsOf: input[index..<end])
        index = end
    }

    private func at(_ text: StaticString, from position: Int? = nil) -> Bool {
        let position = position ?? index
        let pattern = UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount)
        return input.count - position >= pattern.count && input[position..<(position + pattern.count)].elementsEqual(pattern)
    }

    private func tokenEnd(from start: Int) -> Int {
        var end = start
        while end < input.count, !Self.endsToken(input[end]) { end += 1 }
        return end
    }

    /// `eyJ` (a JSON header in base64url) and two dots.
    static func isJWT(_ run: ArraySlice<UInt8>) -> Bool {
        run.count > 10 && run[run.startIndex] == UInt8(ascii: "e") && startsLikeBase64JSON(run)
            && run.lazy.filter { $0 == UInt8(ascii: ".") }.count >= 2
    }

    /// `eyJ` or `W3s` (`{"` or `[{` in base64) and 16 bytes or more of base64: JSON encoded
    /// whole, which the JSON rules cannot read (`eyJwYXNzd29yZCI6…`).
    static func isBase64JSON(_ run: ArraySlice<UInt8>) -> Bool {
        run.count >= 16 && startsLikeBase64JSON(run) && run.allSatisfy { $0.isBase64Byte }
    }

    /// Whether base64 JSON (`eyJ…`: a pagination cursor, a state blob) hides a secret: it
    /// does unless it decodes to JSON that the JSON rules leave as it is, so a cursor such as
    /// `eyJpZCI6IjEwMiJ9` (`{"id":"102"}`) is kept and `eyJwYXNzd29yZCI6…` is masked.
    private func base64JSONHoldsSecret(_ run: ArraySlice<UInt8>) -> Bool {
        var base64 = String(decoding: run.prefix { $0 != UInt8(ascii: "=") }, as: UTF8.self)
            .replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.utf8.count % 4) % 4)
        guard let json = Data(base64Encoded: base64) else { return true }
        return redactor.redactedBody(json, contentType: "application/json") != json
    }

    /// `eyJ` or `W3s`: `{"` or `[{` in base64.
    private static func startsLikeBase64JSON<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> Bool {
        guard bytes.count >= 3 else { return false }
        var index = bytes.startIndex
        let first = bytes[index]
        bytes.formIndex(after: &index)
        let second = bytes[index]
        bytes.formIndex(after: &index)
        let third = bytes[index]
        return first == UInt8(ascii: "e") && second == UInt8(ascii: "y") && third == UInt8(ascii: "J")
            || first == UInt8(ascii: "W") && second == UInt8(ascii: "3") && third == UInt8(ascii: "s")
    }

    /// Letters, digits, `_`, `%` and bytes of non-ASCII characters start a name.
    static func isNameByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
            UInt8(ascii: "_"), UInt8(ascii: "%"), 0x80...:
            true
        default: false
        }
    }

    /// Bytes a name may hold after its first: `-`, `.` and `+`.
    static func isNameInnerByte(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "+")
    }

    private static func isSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 || byte == 0x0B || byte == 0x0C
    }

    /// `.`, `:`, `!` and `?`: what a sentence puts after a word.
    private static func isSentencePunctuation(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: ".") || byte == UInt8(ascii: ":") || byte == UInt8(ascii: "!") || byte == UInt8(ascii: "?")
    }

    private static func isQuote(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'")
    }

    private static func endsToken(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: ","), UInt8(ascii: ";"), UInt8(ascii: "&"), UInt8(ascii: ")"), UInt8(ascii: "]"), UInt8(ascii: "}"),
            UInt8(ascii: "<"), UInt8(ascii: ">"), UInt8(ascii: "\\"):
            true
        default: isSpace(byte) || isQuote(byte)
        }
    }

    private static func endsURL(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "<"), UInt8(ascii: ">"), UInt8(ascii: "("), UInt8(ascii: ")"), UInt8(ascii: "{"), UInt8(ascii: "}"),
            UInt8(ascii: "["), UInt8(ascii: "]"), UInt8(ascii: ","), UInt8(ascii: ";"), UInt8(ascii: "\\"):
            true
        default: isSpace(byte) || isQuote(byte)
        }
    }
}

extension UInt8 {
    /// A byte of base64 or base64url text, padding included.
    fileprivate var isBase64Byte: Bool {
        (0x30...0x39).contains(self) || (0x41...0x5A).contains(self) || (0x61...0x7A).contains(self)
            || self == UInt8(ascii: "+") || self == UInt8(ascii: "/") || self == UInt8(ascii: "-") || self == UInt8(ascii: "_")
            || self == UInt8(ascii: "=")
    }
}
