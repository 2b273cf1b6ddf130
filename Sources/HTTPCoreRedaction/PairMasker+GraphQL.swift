/// GraphQL sent as pairs: `?query=...&variables=...` in a GET URL, or the same as a form body.
extension PairMasker {
    /// Masks a `query` value that is GraphQL text (literals become `***`) or a `variables`
    /// value that is a JSON object (every value masked, keys kept, as in a JSON operation).
    /// Returns `false`, changing nothing, for any other pair.
    mutating func maskGraphQLPair(_ view: View, name: ArraySlice<UInt8>, value: Range<Int>) -> Bool {
        let isQuery = name.elementsEqual(Self.queryName)
        guard isQuery || name.elementsEqual(Self.variablesName), redactor.level != .none else { return false }
        let decoded = String(decoding: PairMasker.formDecodedOnce(Array(view.bytes[value])) ?? Array(view.bytes[value]), as: UTF8.self)
        let masked: String
        if isQuery {
            guard Self.looksLikeGraphQL(decoded) else { return false }
            masked = GraphQLMasker.maskLiterals(in: decoded, redactor: redactor)
        } else {
            guard decoded.drop(while: \.isWhitespace).first == "{" else { return false }
            let json = Array(decoded.utf8)
            let masker = JSONMasker(redactor: redactor, mode: .everyValue, masksGraphQLQuery: false)
            let result = json.withUnsafeBufferPointer { masker.mask($0) }
            masked = String(decoding: result.output, as: UTF8.self) + (result.failedAt == nil ? "" : "…[REDACTED: unreadable JSON]")
        }
        guard masked != decoded else { return false }
        replace(value, in: view, with: Self.queryEncoded(masked))
        return true
    }

    private static let queryName = Array("query".utf8)
    private static let variablesName = Array("variables".utf8)

    /// An operation: a selection set, or `query`, `mutation`, `subscription` or `fragment`
    /// followed by a name, a selection set or variable definitions, after whitespace, commas
    /// and `#` comments.
    static func looksLikeGraphQL(_ text: String) -> Bool {
        var trimmed = text.drop { $0.isWhitespace || $0 == "," }
        while trimmed.first == "#" {
            trimmed = trimmed.drop { !$0.isNewline }.drop { $0.isWhitespace || $0 == "," }
        }
        if trimmed.first == "{" { return true }
        for keyword in ["query", "mutation", "subscription", "fragment"] where trimmed.hasPrefix(keyword) {
            let next = trimmed.dropFirst(keyword.count).first
            return next.map { $0.isWhitespace || $0 == "{" || $0 == "(" } ?? false
        }
        return false
    }

    /// Text as a query value: escapes only what would end or change the value (`%`, `&`, `#`,
    /// `+`, `=`, `;`, spaces, control and non-ASCII bytes), so the masked operation stays readable.
    static func queryEncoded(_ text: String) -> [UInt8] {
        let hex = Array("0123456789ABCDEF".utf8)
        var output: [UInt8] = []
        output.reserveCapacity(text.utf8.count)
        for byte in text.utf8 {
            switch byte {
            case ASCII.percent, ASCII.ampersand, ASCII.numberSign, ASCII.plus, ASCII.equals, ASCII.semicolon, ...ASCII.space, 0x7F...:
                output += [ASCII.percent, hex[Int(byte >> 4)], hex[Int(byte & 0x0F)]]
            default:
                output.append(byte)
            }
        }
        return output
    }
}
