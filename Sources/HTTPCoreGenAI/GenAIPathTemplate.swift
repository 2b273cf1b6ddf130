import HTTPCore
/// A URL path with placeholders, matched against a percent-encoded path without allocating:
/// `*` stands for one non-empty run of characters other than `/` (an API version, a
/// project), `{model}` for one that names the model (Gemini, Azure deployments, Bedrock).
struct GenAIPathTemplate: Sendable, Hashable {
    private enum Piece: Sendable, Hashable {
        case literal([UInt8])
        case wildcard
        case model
    }

    private let pieces: [Piece]
    /// The template as written.
    let template: String

    init(_ template: String) {
        self.template = template
        var pieces: [Piece] = []
        var literal: [UInt8] = []
        var rest = Substring(template)
        func flush() {
            if !literal.isEmpty { pieces.append(.literal(literal)) }
            literal = []
        }
        while let first = rest.first {
            if rest.hasPrefix("{model}") {
                flush()
                pieces.append(.model)
                rest = rest.dropFirst("{model}".count)
            } else if first == "*" {
                flush()
                pieces.append(.wildcard)
                rest = rest.dropFirst()
            } else {
                literal.append(contentsOf: first.utf8)
                rest = rest.dropFirst()
            }
        }
        flush()
        self.pieces = pieces
    }

    /// Whether `path` matches, and where the model's name is in it.
    func match(_ path: String) -> (isMatch: Bool, model: Range<String.Index>?) {
        let utf8 = path.utf8
        var position = utf8.startIndex
        var model: Range<String.Index>?
        for (offset, piece) in pieces.enumerated() {
            switch piece {
            case .literal(let bytes):
                guard utf8[position...].starts(with: bytes) else { return (false, nil) }
                position = utf8.index(position, offsetBy: bytes.count)
            case .wildcard, .model:
                let start = position
                let next: [UInt8]? = if offset + 1 < pieces.count, case .literal(let bytes) = pieces[offset + 1] { bytes } else { nil }
                while position < utf8.endIndex, utf8[position] != UInt8(ascii: "/") {
                    if let next, utf8[position...].starts(with: next), position > start { break }
                    position = utf8.index(after: position)
                }
                guard position > start else { return (false, nil) }
                if case .model = piece { model = start..<position }
            }
        }
        return (position == utf8.endIndex, model)
    }
}
