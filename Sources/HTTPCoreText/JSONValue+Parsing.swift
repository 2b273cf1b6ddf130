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

    /// The deepest nesting ``parse(_:maximumDepth:keepingMembersNamed:)`` accepts unless told otherwise: deeper
    /// than any log or LLM body needs; the bound keeps a hostile body from exhausting the stack.
    package static let defaultMaximumDepth = 256

    /// Parses one JSON text, allowing surrounding whitespace and nothing else.
    ///
    /// It follows RFC 8259 exactly: numbers as its grammar spells them (no `+1`, `01`, `1.`)
    /// and finite (`1e400` is refused), strings of valid UTF-8 without raw control
    /// characters, escapes as ``JSONString/decode(_:)`` resolves them (a lone surrogate
    /// escape becomes U+FFFD). Containers nest at most `maximumDepth` deep.
    ///
    /// With `keys`, an object's members named otherwise, at any depth, are checked as JSON
    /// but left out, without building their text or containers: a reader that wants a few
    /// keys of a body full of prompt text pays for those keys.
    package static func parse(
        _ data: Data, maximumDepth: Int = defaultMaximumDepth, keepingMembersNamed keys: Set<String>? = nil
    ) throws(SyntaxError) -> JSONValue {
        let result = data.withUnsafeBytes { raw -> Result<JSONValue, SyntaxError> in
            var parser = JSONParser(bytes: raw.bindMemory(to: UInt8.self), maximumDepth: maximumDepth, keptKeys: keys)
            do throws(SyntaxError) {
                return .success(try parser.parseDocument())
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }
}
