import Foundation
import HTTPCoreText

extension Redactor {
    /// The most bytes of a URL that ``redactedURL(string:)`` reads.
    ///
    /// What lies beyond is replaced by `[REDACTED: N more bytes]`, never copied, so a huge
    /// query costs no more than this much.
    package static let maximumURLBytes = 64 * 1024

    /// The URL as text, redacted like ``redactedURL(string:)``.
    ///
    /// - Parameter url: The URL to show.
    /// - Returns: Its `absoluteString`, redacted.
    public func redactedURL(_ url: URL) -> String {
        redactedURL(string: url.absoluteString)
    }

    /// The URL text with its userinfo removed and masked values replaced by ``mask``; every
    /// byte that is not removed or masked is kept as it was sent, in its original encoding.
    ///
    /// At `.none` the text is returned unchanged, unless sensitive query names are configured:
    /// then only their values are masked. Otherwise:
    /// - **Authority.** It follows a leading `//`, or the first `scheme://` that comes before
    ///   any `?`, `#` or `=` (text before the scheme, such as `<` or `url=`, is kept). Its
    ///   userinfo, up to the last `@` before the first `/`, `\`, `?` or `#`, is removed:
    ///   `https://user:pa@ss@host/` becomes `https://host/`. If that part has a port that is
    ///   not a number and no `@` (`https://user:pa/ss@host/`), the userinfo runs to the next
    ///   `@` after it. A `scheme://` later in the path (`/web/2020/https://...`) starts a URL
    ///   of its own, read by these rules one level deeper.
    /// - **Pairs.** Query items (after the first `?`, up to the first `#`), path segments that
    ///   contain `=` (`/a;jsessionid=...`, `/token=...`), and text that starts with `name=`
    ///   before any `/`, `?` or `#`, are `name=value` pairs separated by `&` or `;`. A value is
    ///   masked when the redactor masks its name as a query item name, and when the name is blank
    ///   (`?=...`), since nothing says what it is. A masked value runs to the next `&`, even
    ///   one masked in a nested URL: most servers read `token=ab;cd` as `ab;cd`. At `.strict`
    ///   a query item without `=` is masked too unless its name is allowed; a path item
    ///   without `=` is kept, unless it is a JWT (masked at every level but `.none`) or, at
    ///   `.strict`, looks randomly generated: 16 bytes or more of letters, digits and
    ///   `-_.+=~`, both letters and digits present (`/reset/3f9a1c0e8b7d6a5f4e3d`). Shorter
    ///   segments and words (`/users/42`, `/v2/orders`) are kept.
    /// - **Names** are matched after `+` and percent escapes are decoded, again and again up to
    ///   four rounds (`%2574oken` is `token`), with control characters, invisible format
    ///   characters and invalid UTF-8 dropped (`tok%00en` is `token`); then by each part
    ///   between punctuation other than `_` and `-` (`user[token]`, `?token` after a doubled
    ///   `?`, `amp;token` after `&amp;`). A name still encoded after four rounds is masked.
    /// - **Fragment.** Everything after the first `#` (and a hash-bang `!`) is read as a value,
    ///   so `#access_token=...`, `#!access_token=...` and `#!/cb?access_token=...` are masked.
    ///   At `.strict` a fragment without `=` is masked whole.
    /// - **Values** that are kept are read again: one with URL structure (`?`, `#`, `&`, `;`,
    ///   `=`, `@`) gets all these rules one level deeper (`?next=https://a/b?token=...`,
    ///   `?x=1?token=...`); one whose escapes encode such structure is decoded once and read
    ///   again, so `?redirect_uri=https%3A%2F%2Fa%2Fcb%3Fcode%3DSECRET%26state%3Dx` becomes
    ///   `?redirect_uri=https%3A%2F%2Fa%2Fcb%3Fcode%3D[REDACTED]%26state%3Dx`. The mask
    ///   replaces the secret's bytes as sent, whatever their encoding, and is itself written as
    ///   plain `[REDACTED]`. A percent-encoded path segment is decoded and read the same way.
    ///   More than four URLs deep, or with structure still encoded after four rounds of decoding,
    ///   a value is masked whole.
    ///
    /// Nothing is parsed by Foundation, so any text works: relative references, header values,
    /// invalid escapes. Cost: linear, one pass over the UTF-8 bytes, each read at most a few
    /// times however deep the nesting; at most 64 KiB are read, and the rest is replaced by
    /// `[REDACTED: N more bytes]`.
    ///
    /// - Parameter string: The URL, or any text that holds one.
    /// - Returns: The text with its userinfo removed and its sensitive values masked.
    public func redactedURL(string: String) -> String {
        guard level != .none || !sensitiveQueryNames.isEmpty else { return string }
        var masker = PairMasker(Substring(string), limit: Self.maximumURLBytes, redactor: self)
        let source = masker.sourceView
        masker.maskURL(source, 0..<source.count, nesting: PairMasker.Nesting())
        return masker.finish()
    }

    /// ``redactedURL(string:)`` of a URL's UTF-8 bytes, for the text rules, which read bytes.
    func redactedURL(utf8 bytes: [UInt8]) -> [UInt8] {
        guard level != .none || !sensitiveQueryNames.isEmpty else { return bytes }
        var masker = PairMasker(bytes: bytes, limit: Self.maximumURLBytes, redactor: self)
        let source = masker.sourceView
        masker.maskURL(source, 0..<source.count, nesting: PairMasker.Nesting())
        return masker.finishBytes()
    }

    /// `text` without a credential that its end cuts short, replaced by ``mask``: a JSON Web
    /// Token (`eyJ…`, which the text rules mask once they see its two dots), or what follows
    /// the last `scheme://` (raw or percent-encoded) while its authority is not known to be
    /// whole, since the URL rules can only remove a userinfo they see end:
    /// - no `/` follows: the cut is inside the authority (`https://user:pa`,
    ///   `https://ghp_token`, `https://alice%40corp.com:hun`); a cut host is masked too, which
    ///   is harmless;
    /// - a `/` follows a `:` that is not a port (`postgres://app:s3cr/et`, a password holding a
    ///   `/`), with no `@` before it.
    /// A `?`, `#`, whitespace, quote, `&` or `\` after the scheme means the URL was seen
    /// whole: any other text is returned as it is. One pass back from the end, over the last
    /// word at most.
    static func maskingCutCredential(_ text: String) -> String {
        var text = text
        guard let cut = text.withUTF8(cutCredentialStart) else { return text }
        return String(decoding: text.utf8.prefix(cut), as: UTF8.self) + mask
    }

    /// Where the credential that the end of `bytes` cuts short starts (see
    /// ``maskingCutCredential(_:)``), or `nil`.
    private static func cutCredentialStart(_ bytes: UnsafeBufferPointer<UInt8>) -> Int? {
        var wordStart = bytes.count
        while wordStart > 0, bytes[wordStart - 1].isBase64URLOrDot { wordStart -= 1 }
        if bytes[wordStart...].starts(with: "eyJ".utf8) { return wordStart }
        // The last word, decoded: each byte with the offset it starts at in `bytes`.
        var word: [(byte: UInt8, offset: Int)] = []
        // An authority longer than this is no URL's: a cut further on leaves it whole.
        let scanStart = max(0, bytes.count - 8192)
        var index = bytes.count - 1
        while index >= scanStart {
            var offset = index
            var byte = bytes[index]
            if index >= scanStart + 2, bytes[index - 2] == PairMasker.ASCII.percent,
                let high = HexDigit.value(bytes[index - 1]), let low = HexDigit.value(byte)
            {
                offset = index - 2
                byte = high << 4 | low
            }
            switch byte {
            case PairMasker.ASCII.questionMark, PairMasker.ASCII.numberSign, PairMasker.ASCII.backslash,
                PairMasker.ASCII.ampersand, UInt8(ascii: "\""), UInt8(ascii: "'"), 0x00...0x20:
                index = -1
            default:
                word.append((byte, offset))
                index = offset - 1
            }
        }
        word.reverse()
        // The authority: what follows the last "://".
        guard let schemeEnd = word.indices.last(where: { position in
            position >= 2 && word[position].byte == PairMasker.ASCII.slash && word[position - 1].byte == PairMasker.ASCII.slash
                && word[position - 2].byte == PairMasker.ASCII.colon
        }), schemeEnd + 1 < word.count
        else { return nil }
        let authority = word[(schemeEnd + 1)...]
        let maskFrom = authority.first!.offset
        guard let slash = authority.firstIndex(where: { $0.byte == PairMasker.ASCII.slash }) else { return maskFrom }
        let beforeSlash = authority[..<slash]
        guard !beforeSlash.contains(where: { $0.byte == PairMasker.ASCII.atSign }),
            let colon = beforeSlash.lastIndex(where: { $0.byte == PairMasker.ASCII.colon })
        else { return nil }
        let isPort = beforeSlash[(colon + 1)...].allSatisfy { (0x30...0x39).contains($0.byte) }
        return isPort ? nil : maskFrom
    }

    /// A `name=value&...` query with masked values replaced; raw names are kept as sent.
    /// At `.strict` a bare item without `=` is masked too, since it may be a token.
    func redactedQuery(_ query: Substring) -> String {
        var masker = PairMasker(query, limit: Self.maximumURLBytes, redactor: self)
        let source = masker.sourceView
        masker.maskQuery(source, 0..<source.count, nesting: PairMasker.Nesting())
        return masker.finish()
    }
}

extension PairMasker {
    /// Applies the URL rules of ``Redactor/redactedURL(string:)`` to `range`; returns whether
    /// the text ends inside a masked value.
    @discardableResult
    mutating func maskURL(_ view: View, _ range: Range<Int>, nesting: Nesting) -> Bool {
        let bytes = view.bytes
        let end = range.upperBound
        var pathStart = range.lowerBound
        var host: Range<Int>?
        switch Self.start(of: view, range) {
        case .pairs:
            return maskQuery(view, range, nesting: nesting)
        case .authority(let authorityStart):
            pathStart = maskUserinfo(view, authorityStart..<end)
            let hostStart = bytes[authorityStart..<pathStart].lastIndex(of: ASCII.atSign).map { $0 + 1 } ?? authorityStart
            host = hostStart..<pathStart
        case .path:
            break
        }
        var pathEnd = pathStart
        var embeddedURL: Int?
        while pathEnd < end, bytes[pathEnd] != ASCII.questionMark, bytes[pathEnd] != ASCII.numberSign {
            if embeddedURL == nil, bytes[pathEnd] == ASCII.colon, pathEnd + 2 < end,
                bytes[pathEnd + 1] == ASCII.slash, bytes[pathEnd + 2] == ASCII.slash,
                let scheme = Self.schemeStart(bytes, before: pathEnd, from: pathStart)
            {
                embeddedURL = scheme
            }
            pathEnd += 1
        }
        // `/web/2020/https://user:pw@host/...`: the rest is a URL of its own.
        if let embeddedURL {
            maskPath(view, pathStart..<embeddedURL, nesting: nesting)
            guard nesting.depth < Self.maximumDepth else {
                mask(embeddedURL..<end, in: view)
                return true
            }
            var deeper = nesting
            deeper.depth += 1
            return maskURL(view, embeddedURL..<end, nesting: deeper)
        }
        var endsMasked: Bool
        if let host, redactor.level != .none, let secretStart = WebhookURLFormat.secretStart(host: bytes[host], path: bytes[pathStart..<pathEnd]) {
            // A webhook whose path is its credential: what follows the service's prefix.
            mask(secretStart..<pathEnd, in: view)
            endsMasked = false
        } else {
            endsMasked = maskPath(view, pathStart..<pathEnd, nesting: nesting)
        }
        var queryEnd = pathEnd
        if pathEnd < end, bytes[pathEnd] == ASCII.questionMark {
            queryEnd = pathEnd + 1
            while queryEnd < end, bytes[queryEnd] != ASCII.numberSign { queryEnd += 1 }
            endsMasked = maskQuery(view, pathEnd + 1..<queryEnd, nesting: nesting)
        }
        guard queryEnd < end else { return endsMasked }
        var fragmentStart = queryEnd + 1
        if fragmentStart < end, bytes[fragmentStart] == ASCII.exclamationMark { fragmentStart += 1 }
        // At `.strict` a fragment with no pairs in it (`#3f9a…`, `#otp`) says nothing of what it
        // holds: masked whole.
        if redactor.level == .strict, fragmentStart < end, !bytes[fragmentStart..<end].contains(ASCII.equals) {
            mask(fragmentStart..<end, in: view)
            return true
        }
        return maskValue(view, fragmentStart..<end, nesting: nesting)
    }

    /// The query rules: pairs masked by query item name, bare items too at `.strict`. Returns
    /// whether the last value was masked up to the end of `range`.
    @discardableResult
    mutating func maskQuery(_ view: View, _ range: Range<Int>, nesting: Nesting) -> Bool {
        maskPairs(view, range, names: .urlNames(redactor), masksBareItems: redactor.level == .strict, nesting: nesting)
    }

    private enum Start {
        /// `name=...` before any `/`, `?` or `#`: the text is a query.
        case pairs
        /// `scheme://` or `//`: the authority starts at this index.
        case authority(Int)
        /// Anything else: a path, possibly empty, comes first.
        case path
    }

    /// How the text in `range` starts: an authority after `//` or the first `scheme://` before
    /// any `?`, `#` or `=` (text before the scheme is kept as it is), pairs, or a path.
    private static func start(of view: View, _ range: Range<Int>) -> Start {
        let bytes = view.bytes
        let start = range.lowerBound
        if range.count >= 2, bytes[start] == ASCII.slash, bytes[start + 1] == ASCII.slash { return .authority(start + 2) }
        var hasSlash = false
        var index = start
        while index < range.upperBound {
            switch bytes[index] {
            case ASCII.questionMark, ASCII.numberSign:
                return .path
            case ASCII.equals:
                return hasSlash ? .path : .pairs
            case ASCII.slash:
                hasSlash = true
            case ASCII.colon where index + 2 < range.upperBound && bytes[index + 1] == ASCII.slash && bytes[index + 2] == ASCII.slash:
                return schemeStart(bytes, before: index, from: start) == nil ? .path : .authority(index + 3)
            default:
                break
            }
            index += 1
        }
        return .path
    }

    /// Where the scheme that ends at `colon` starts: the run of letters, digits, `+`, `-` and
    /// `.` before it, from its first letter; `nil` when there is no letter.
    private static func schemeStart(_ bytes: [UInt8], before colon: Int, from start: Int) -> Int? {
        var index = colon
        var firstLetter: Int?
        while index > start {
            let byte = bytes[index - 1]
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"): firstLetter = index - 1
            case UInt8(ascii: "0")...UInt8(ascii: "9"), ASCII.plus, ASCII.hyphen, UInt8(ascii: "."): break
            default: return firstLetter
            }
            index -= 1
        }
        return firstLetter
    }

    /// Removes the userinfo of the authority that starts `range`; returns where the path starts.
    private mutating func maskUserinfo(_ view: View, _ range: Range<Int>) -> Int {
        let bytes = view.bytes
        var authorityEnd = range.lowerBound
        var lastAt: Int?
        func scanAuthority(from start: Int) {
            authorityEnd = start
            while authorityEnd < range.upperBound {
                switch bytes[authorityEnd] {
                case ASCII.slash, ASCII.backslash, ASCII.questionMark, ASCII.numberSign: return
                case ASCII.atSign: lastAt = authorityEnd
                default: break
                }
                authorityEnd += 1
            }
        }
        scanAuthority(from: range.lowerBound)
        // `user:pa/ss@host`: a port that is not a number means the password went on.
        if lastAt == nil, Self.hasInvalidPort(bytes, range.lowerBound..<authorityEnd),
            let at = bytes[authorityEnd..<range.upperBound].firstIndex(of: ASCII.atSign)
        {
            scanAuthority(from: at)
        }
        if let lastAt, redactor.level != .none {
            replace(range.lowerBound..<lastAt + 1, in: view, with: [])
        }
        return authorityEnd
    }

    /// Whether the authority `host:port` has a port that is not a number.
    private static func hasInvalidPort(_ bytes: [UInt8], _ authority: Range<Int>) -> Bool {
        var hostEnd = authority.lowerBound
        if hostEnd < authority.upperBound, bytes[hostEnd] == ASCII.openBracket {
            guard let close = bytes[authority].firstIndex(of: ASCII.closeBracket) else { return false }
            hostEnd = close
        }
        guard let colon = bytes[hostEnd..<authority.upperBound].lastIndex(of: ASCII.colon) else { return false }
        return bytes[colon + 1..<authority.upperBound].contains { $0 < UInt8(ascii: "0") || $0 > UInt8(ascii: "9") }
    }

    /// Path segments: one with `=` (`a;jsessionid=...`, `token=...`) is read as pairs, the
    /// item before a `;` kept even at `.strict`; one percent-encoded is decoded and read as a
    /// value, since `cb%3Ftoken%3D...` shows a query when logged decoded. Returns whether the
    /// path ends inside a masked value.
    @discardableResult
    private mutating func maskPath(_ view: View, _ range: Range<Int>, nesting: Nesting) -> Bool {
        let bytes = view.bytes
        var start = range.lowerBound
        var endsMasked = false
        while start < range.upperBound {
            var end = start
            var hasEquals = false
            var hasPercent = false
            while end < range.upperBound, bytes[end] != ASCII.slash, bytes[end] != ASCII.backslash {
                hasEquals = hasEquals || bytes[end] == ASCII.equals
                hasPercent = hasPercent || bytes[end] == ASCII.percent
                end += 1
            }
            if hasEquals {
                endsMasked = maskPairs(view, start..<end, names: .urlNames(redactor), masksBareItems: false, nesting: nesting)
            } else if hasPercent, Self.hasEscape(bytes, start..<end) {
                endsMasked = maskDecoded(view, start..<end, nesting: nesting)
            } else if redactor.level != .none, TextScrubber.isJWT(bytes[start..<end])
                || formats.secretLength(atStartOf: bytes[start..<end]) != nil
                || redactor.level == .strict && TextScrubber.looksRandom(bytes[start..<end])
            {
                // `/verify/eyJ…` and `/keys/sk-…` at any level; `/reset/3f9a1c0e8b7d6a5f4e3d` at `.strict`.
                mask(start..<end, in: view)
                endsMasked = false
            } else {
                endsMasked = false
            }
            start = end + 1
        }
        return endsMasked && start == range.upperBound + 1
    }
}

extension UInt8 {
    /// A letter, a digit, `-`, `_` or `.`: what a JSON Web Token is written with.
    fileprivate var isBase64URLOrDot: Bool {
        (0x30...0x39).contains(self) || (0x41...0x5A).contains(self) || (0x61...0x7A).contains(self)
            || self == UInt8(ascii: "-") || self == UInt8(ascii: "_") || self == UInt8(ascii: ".")
    }
}
