import Foundation

extension JSONValue {
    /// Why a text is not JSON, with the byte offset where parsing stopped.
    package struct SyntaxError: Error, Sendable, Hashable, CustomStringConvertible {
        /// What was wrong, in the words of JavaScript's `JSON.parse`.
        package var message: String
        /// The offset of the byte where parsing stopped.
        package var offset: Int

        package var description: String { "\(message) at position \(offset)" }
    }

    /// Where parsing may accept what a Node server accepts and RFC 8259 refuses; none by
    /// default.
    ///
    /// Only the dev-see test receiver sets them, to accept what the Node server it stands for
    /// accepts; readers of the package's own JSON (the GenAI readers) parse strictly. Each
    /// option is read only where strict parsing would throw, so the strict path costs nothing
    /// more for their existence.
    package struct ParsingOptions: OptionSet, Sendable, Hashable {
        package let rawValue: UInt8

        package init(rawValue: UInt8) {
            self.rawValue = rawValue
        }

        /// A number in the grammar whose value overflows `Double` (`1e400`, `-1e400`) reads as
        /// `.number(±.infinity, text:)` with its text as sent, as `JSON.parse` reads `Infinity`;
        /// the grammar still holds (`+1`, `01`, `1.` are refused).
        package static let overflowingNumbersAsInfinity = ParsingOptions(rawValue: 1 << 0)

        /// Invalid UTF-8 in a string becomes U+FFFD, one per maximal ill-formed subsequence,
        /// as Node's UTF-8 decoding of a body before `JSON.parse` does (`C0 AF` is two, a
        /// truncated `F0 9F 98` one). Outside strings any byte above ASCII is refused anyway.
        package static let invalidUTF8AsReplacementCharacter = ParsingOptions(rawValue: 1 << 1)
    }

    /// The deepest nesting ``parse(_:maximumDepth:keepingMembersNamed:options:)`` accepts unless told otherwise: deeper
    /// than any log or LLM body needs; the bound keeps a hostile body from exhausting the stack.
    package static let defaultMaximumDepth = 256

    /// Parses one JSON text, allowing surrounding whitespace and nothing else.
    ///
    /// It follows RFC 8259 exactly: numbers as its grammar spells them (no `+1`, `01`, `1.`)
    /// and finite (`1e400` is refused), strings of valid UTF-8 without raw control
    /// characters, escapes as ``JSONString/decode(_:)`` resolves them (a lone surrogate
    /// escape becomes U+FFFD). Containers nest at most `maximumDepth` deep. `options` relax
    /// the range and UTF-8 rules as ``ParsingOptions`` says.
    ///
    /// With `keys`, an object's members named otherwise, at any depth, are checked as JSON
    /// but left out, without building their text or containers: a reader that wants a few
    /// keys of a body full of prompt text pays for those keys.
    package static func parse(
        _ data: Data,
        maximumDepth: Int = defaultMaximumDepth,
        keepingMembersNamed keys: Set<String>? = nil,
        options: ParsingOptions = []
    ) throws(SyntaxError) -> JSONValue {
        let result = data.withUnsafeBytes { raw -> Result<JSONValue, SyntaxError> in
            var parser = JSONParser(
                bytes: raw.bindMemory(to: UInt8.self), maximumDepth: maximumDepth, keptKeys: keys, options: options
            )
            do throws(SyntaxError) {
                return .success(try parser.parseDocument())
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }
}
