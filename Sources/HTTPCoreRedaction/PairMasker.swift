import HTTPCoreText

/// One left-to-right pass over UTF-8 text that copies it with masked spans replaced: the
/// engine behind ``Redactor/maskedPairs(_:masks:)`` and ``Redactor/redactedURL(string:)``.
///
/// Text nested in a value is read through a ``View``: the value's bytes decoded once more,
/// each remembering where it starts in the source. A masked value replaces exactly its bytes
/// in the source, and everything that is not masked is copied as it was sent, in its original
/// encoding. Every recursion either reads a strictly smaller span or removes an escape, and
/// both are bounded (``maximumDepth``, ``maximumDecodes``), so the work is linear in the input.
struct PairMasker {
    /// Text at one level of decoding.
    struct View {
        /// The bytes as this level reads them.
        let bytes: [UInt8]
        /// Where each byte starts in the source; `nil` when `bytes` is the source itself.
        let starts: [Int]?
        /// Where the text ends in the source.
        let end: Int

        var count: Int { bytes.count }

        /// The source offset of the byte at `index`; `count` maps to the end.
        func offset(_ index: Int) -> Int {
            guard let starts else { return index }
            return index < starts.count ? starts[index] : end
        }
    }

    /// How deep the masker is in text nested in values.
    struct Nesting {
        /// URLs (or pair lists) read inside values so far.
        var depth = 0
        /// Rounds of percent-decoding applied so far.
        var decodes = 0
    }

    /// How many URLs deep a value is followed; a value with URL structure any deeper is masked.
    static let maximumDepth = 4
    /// How many rounds of percent-decoding a value or name is given; one still encoded after
    /// that is masked (a value) or treated as sensitive (a name).
    static let maximumDecodes = 4

    private static let maskBytes = Array(Redactor.mask.utf8)

    let redactor: Redactor
    /// The known formats, read once rather than through the shared index per value.
    let formats = SecretFormatIndex.shared.reader
    private let source: [UInt8]
    private let omittedByteCount: Int
    private var output: [UInt8] = []
    /// Source bytes before this offset are written (or deliberately left out).
    private var copied = 0

    /// Reads at most `limit` bytes of `text`, cut at a character boundary.
    init(_ text: Substring, limit: Int, redactor: Redactor) {
        var text = text
        self.init(bytes: text.withUTF8 { Array($0) }, limit: limit, redactor: redactor)
    }

    /// Reads at most `limit` of the UTF-8 `bytes`, cut at a character boundary.
    init(bytes: [UInt8], limit: Int, redactor: Redactor) {
        var bytes = bytes
        let kept = UTF8Text.boundary(in: bytes, atMost: limit)
        omittedByteCount = bytes.count - kept
        if omittedByteCount > 0 { bytes.removeSubrange(kept...) }
        source = bytes
        self.redactor = redactor
        output.reserveCapacity(bytes.count + 64)
    }

    /// The source as the outermost level reads it.
    var sourceView: View {
        View(bytes: source, starts: nil, end: source.count)
    }

    /// The output: the source with every replacement made, and the marker for what was not read.
    mutating func finish() -> String {
        String(decoding: finishBytes(), as: UTF8.self)
    }

    /// ``finish()`` as UTF-8 bytes.
    mutating func finishBytes() -> [UInt8] {
        output.append(contentsOf: source[copied...])
        copied = source.count
        if omittedByteCount > 0 { output.append(contentsOf: "[REDACTED: \(omittedByteCount) more bytes]".utf8) }
        return output
    }

    /// Replaces the source bytes of `range` in `view`; replacements come in source order, since
    /// the text is read left to right at every level.
    mutating func replace(_ range: Range<Int>, in view: View, with replacement: [UInt8]) {
        let start = view.offset(range.lowerBound)
        let end = view.offset(range.upperBound)
        assert(start >= copied, "replacements out of source order")
        guard end > copied else { return }
        output.append(contentsOf: source[copied..<max(start, copied)])
        output.append(contentsOf: replacement)
        copied = end
    }

    mutating func mask(_ range: Range<Int>, in view: View) {
        replace(range, in: view, with: Self.maskBytes)
    }

    // MARK: Pairs

    /// Masks the values of masked names among the `&`- or `;`-separated pairs of `range`; a
    /// kept value is read as nested text (``maskValue(_:_:nesting:)``). With `masksBareItems`
    /// an item without `=` is masked when it is itself a masked name (a query at `.strict`).
    ///
    /// A masked value runs to the next `&`, even when it was masked at a deeper level
    /// (`?next=/cb?token=ab;cd`): most servers read `password=ab;cd` as `ab;cd`. Returns
    /// whether the text ends inside a masked value.
    @discardableResult
    mutating func maskPairs(
        _ view: View, _ range: Range<Int>, names: NameTest, masksBareItems: Bool, nesting: Nesting
    ) -> Bool {
        let bytes = view.bytes
        var start = range.lowerBound
        var endsMasked = false
        var recentVerdicts = RecentVerdicts()
        while start <= range.upperBound {
            var end = start
            var equals = -1
            while end < range.upperBound {
                let byte = bytes[end]
                if byte == ASCII.ampersand || byte == ASCII.semicolon { break }
                if byte == ASCII.equals, equals < 0 { equals = end }
                end += 1
            }
            endsMasked = false
            if equals >= 0, recentVerdicts.verdict(on: start..<equals, in: bytes, judge: names.rule(raw:)).masks(text: bytes[(equals + 1)..<end]) {
                end = Self.nextAmpersand(bytes, from: end, before: range.upperBound)
                mask(equals + 1..<end, in: view)
                endsMasked = true
            } else if equals < 0, start < end, masksBareItems,
                recentVerdicts.verdict(on: start..<end, in: bytes, judge: names.rule(raw:)).masksAnything
            {
                mask(start..<end, in: view)
                endsMasked = true
            } else if equals >= 0, maskGraphQLPair(view, name: bytes[start..<equals], value: equals + 1..<end) {
                // GraphQL literals and variables masked; the rest of the value is kept.
            } else if case let valueStart = equals < 0 ? start : equals + 1, valueStart < end,
                maskValue(view, valueStart..<end, nesting: nesting)
            {
                let next = Self.nextAmpersand(bytes, from: end, before: range.upperBound)
                replace(end..<next, in: view, with: [])
                end = next
                endsMasked = true
            }
            start = end + 1
        }
        return endsMasked
    }

    private static func nextAmpersand(_ bytes: [UInt8], from start: Int, before end: Int) -> Int {
        var index = start
        while index < end, bytes[index] != ASCII.ampersand { index += 1 }
        return index
    }

    // MARK: Nested text

    /// A value that is kept, read as nested text: with URL structure (`?`, `#`, `&`, `;`, `=`,
    /// `@`) it gets the URL rules one level deeper; without, but percent-encoded, it is decoded
    /// once and read again. Too deep, it is masked. Returns whether it ends inside a mask.
    mutating func maskValue(_ view: View, _ range: Range<Int>, nesting: Nesting) -> Bool {
        let bytes = view.bytes
        if redactor.level != .none,
            formats.secretLength(atStartOf: bytes[range]) != nil || range.count > 10 && TextScrubber.isJWT(bytes[range])
        {
            // A provider's key or a JSON Web Token under any name: `?q=sk-proj-…`, `?q=eyJ…`.
            mask(range, in: view)
            return true
        }
        var hasEscape = false
        for index in range {
            switch bytes[index] {
            case ASCII.questionMark, ASCII.numberSign, ASCII.ampersand, ASCII.semicolon, ASCII.equals, ASCII.atSign:
                guard nesting.depth < Self.maximumDepth else {
                    mask(range, in: view)
                    return true
                }
                var deeper = nesting
                deeper.depth += 1
                return maskURL(view, range, nesting: deeper)
            case ASCII.percent:
                if !hasEscape, index + 2 < range.upperBound, HexDigit.value(bytes[index + 1]) != nil, HexDigit.value(bytes[index + 2]) != nil {
                    hasEscape = true
                }
            default:
                break
            }
        }
        return hasEscape && maskDecoded(view, range, nesting: nesting)
    }

    /// Decodes `range` once and reads the result as a value; masks it when it has been decoded
    /// too often already. Text whose escapes can only decode to plain characters (`caf%C3%A9`)
    /// is kept without decoding. Returns whether it ends inside a mask.
    mutating func maskDecoded(_ view: View, _ range: Range<Int>, nesting: Nesting) -> Bool {
        let bytes = view.bytes
        guard Self.decodingMayRevealStructure(bytes, range) else { return false }
        guard nesting.decodes < Self.maximumDecodes else {
            mask(range, in: view)
            return true
        }
        var decoded = [UInt8]()
        var starts = [Int]()
        decoded.reserveCapacity(range.count)
        starts.reserveCapacity(range.count)
        var index = range.lowerBound
        while index < range.upperBound {
            starts.append(view.offset(index))
            if bytes[index] == ASCII.percent, index + 2 < range.upperBound,
                let high = HexDigit.value(bytes[index + 1]), let low = HexDigit.value(bytes[index + 2])
            {
                decoded.append(high << 4 | low)
                index += 3
            } else {
                decoded.append(bytes[index])
                index += 1
            }
        }
        let inner = View(bytes: decoded, starts: starts, end: view.offset(range.upperBound))
        var deeper = nesting
        deeper.decodes += 1
        return maskValue(inner, 0..<inner.count, nesting: deeper)
    }

    // MARK: Bytes

    /// Decodes `+` and percent escapes once; `nil` when there is nothing to decode.
    static func formDecodedOnce(_ bytes: [UInt8]) -> [UInt8]? {
        var decoded = [UInt8]()
        decoded.reserveCapacity(bytes.count)
        var changed = false
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            if byte == ASCII.percent, index + 2 < bytes.count,
                let high = HexDigit.value(bytes[index + 1]), let low = HexDigit.value(bytes[index + 2])
            {
                decoded.append(high << 4 | low)
                index += 3
                changed = true
            } else {
                decoded.append(byte == ASCII.plus ? ASCII.space : byte)
                changed = changed || byte == ASCII.plus
                index += 1
            }
        }
        return changed ? decoded : nil
    }

    /// Whether decoding `range` once could show URL structure or another escape: an escape of
    /// `?`, `#`, `&`, `;`, `=`, `@` or `%`, or a `%` that starts no escape and may start one
    /// once its neighbours are decoded (`%%341` is `%41`).
    static func decodingMayRevealStructure(_ bytes: [UInt8], _ range: Range<Int>) -> Bool {
        var index = range.lowerBound
        while index < range.upperBound {
            if bytes[index] == ASCII.percent {
                guard index + 2 < range.upperBound, let high = HexDigit.value(bytes[index + 1]),
                    let low = HexDigit.value(bytes[index + 2])
                else { return true }
                switch high << 4 | low {
                case ASCII.questionMark, ASCII.numberSign, ASCII.ampersand, ASCII.semicolon, ASCII.equals, ASCII.atSign, ASCII.percent:
                    return true
                default:
                    index += 3
                }
            } else {
                index += 1
            }
        }
        return false
    }

    /// Whether `range` of `bytes` holds a valid percent escape.
    static func hasEscape(_ bytes: [UInt8], _ range: Range<Int>) -> Bool {
        var index = range.lowerBound
        while index + 2 < range.upperBound {
            if bytes[index] == ASCII.percent, HexDigit.value(bytes[index + 1]) != nil, HexDigit.value(bytes[index + 2]) != nil { return true }
            index += 1
        }
        return false
    }

    /// ASCII letters, digits, `_`, `-` and space: a name made of these needs no decoding.
    static func isPlainNameByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), ASCII.underscore, ASCII.hyphen, ASCII.space:
            true
        default:
            false
        }
    }

    /// ASCII punctuation other than `_` and `-`: what separates the parts of a name.
    static func isNamePunctuation(_ byte: UInt8) -> Bool {
        switch byte {
        case 0x21...0x2F, 0x3A...0x40, 0x5B...0x60, 0x7B...0x7E: byte != ASCII.underscore && byte != ASCII.hyphen
        default: false
        }
    }
}

extension PairMasker {
    /// The bytes the masker looks for.
    enum ASCII {
        static let space = UInt8(ascii: " ")
        static let numberSign = UInt8(ascii: "#")
        static let percent = UInt8(ascii: "%")
        static let ampersand = UInt8(ascii: "&")
        static let plus = UInt8(ascii: "+")
        static let hyphen = UInt8(ascii: "-")
        static let slash = UInt8(ascii: "/")
        static let colon = UInt8(ascii: ":")
        static let semicolon = UInt8(ascii: ";")
        static let equals = UInt8(ascii: "=")
        static let questionMark = UInt8(ascii: "?")
        static let atSign = UInt8(ascii: "@")
        static let openBracket = UInt8(ascii: "[")
        static let backslash = UInt8(ascii: "\\")
        static let closeBracket = UInt8(ascii: "]")
        static let underscore = UInt8(ascii: "_")
        static let exclamationMark = UInt8(ascii: "!")
    }
}
