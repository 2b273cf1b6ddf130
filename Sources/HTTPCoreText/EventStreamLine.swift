/// The line framing of a server-sent event stream, by the WHATWG HTML "event stream" parsing
/// rules: the one place the package splits such a stream into lines and reads a line's field.
/// The observers' message parser reads streams chunk by chunk through it, and the redactor
/// reads whole bodies through it, so both see the same events.
///
/// Lines end with CRLF, LF or CR. A line is `field: value` (one space after the colon
/// dropped), `field` alone (an empty value), or a comment starting with `:`; a blank line
/// ends an event.
package enum EventStreamLine {
    /// What a line sets, as the standard reads its field name.
    package enum Field: Sendable, Equatable {
        /// `data:`: one line of the event's data, joined to the others with a line feed.
        case data
        /// `event:`: the event's type.
        case event
        /// `id:`: the event's identifier.
        case id
        /// A line starting with `:`, which sets nothing.
        case comment
        /// Any other field (`retry:` included), which the package does not read.
        case other
    }

    /// Where the line starting at `start` ends: `end` is the index of its break, `next` where
    /// the line after it starts; `nil` when no break follows `start`.
    ///
    /// A CR that is the last byte of `bytes` (`end` is their last index) is returned as a
    /// break: a reader of chunks waits for the next chunk to know whether an LF belongs to it,
    /// a reader of a whole stream takes the CR as the break.
    @inlinable
    package static func end<Bytes: Collection<UInt8>>(
        in bytes: Bytes, from start: Bytes.Index
    ) -> (end: Bytes.Index, next: Bytes.Index)? {
        guard let end = bytes[start...].firstIndex(where: { $0 == 0x0A || $0 == 0x0D }) else { return nil }
        let after = bytes.index(after: end)
        guard bytes[end] == 0x0D, after < bytes.endIndex, bytes[after] == 0x0A else { return (end, after) }
        return (end, bytes.index(after: after))
    }

    /// The field of `line` (a line without its break) and its value.
    @inlinable
    package static func field<Line: Collection<UInt8>>(of line: Line) -> (field: Field, value: Line.SubSequence) {
        guard line.first != UInt8(ascii: ":") else { return (.comment, line[line.endIndex...]) }
        let colon = line.firstIndex(of: UInt8(ascii: ":"))
        let name = line[..<(colon ?? line.endIndex)]
        var value = line[(colon.map { line.index(after: $0) } ?? line.endIndex)...]
        if value.first == UInt8(ascii: " ") { value = value.dropFirst() }
        let field: Field =
            if name.elementsEqual("data".utf8) {
                .data
            } else if name.elementsEqual("event".utf8) {
                .event
            } else if name.elementsEqual("id".utf8) {
                .id
            } else {
                .other
            }
        return (field, value)
    }
}
