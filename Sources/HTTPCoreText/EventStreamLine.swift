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

    /// Where the line starting at `start` ends: `end` is the offset of its break, `next` where
    /// the line after it starts; `nil` when no break follows `start`.
    ///
    /// A CR that is the last byte of `bytes` (`end` is their last offset) is returned as a
    /// break: a reader of chunks waits for the next chunk to know whether an LF belongs to it,
    /// a reader of a whole stream takes the CR as the break.
    ///
    /// Concrete, not generic: a generic scan called from another module ran unspecialized, a
    /// protocol call per byte.
    package static func end(in bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> (end: Int, next: Int)? {
        var end = start
        while end < bytes.count, bytes[end] != 0x0A, bytes[end] != 0x0D { end += 1 }
        guard end < bytes.count else { return nil }
        let isCRLF = bytes[end] == 0x0D && end + 1 < bytes.count && bytes[end + 1] == 0x0A
        return (end, end + (isCRLF ? 2 : 1))
    }

    /// The field of `line` (a line without its break) and the offsets of its value in the
    /// buffer `line` is a slice of.
    package static func field(of line: Slice<UnsafeBufferPointer<UInt8>>) -> (field: Field, value: Range<Int>) {
        guard line.first != UInt8(ascii: ":") else { return (.comment, line.endIndex..<line.endIndex) }
        let colon = line.firstIndex(of: UInt8(ascii: ":")) ?? line.endIndex
        var valueStart = min(colon + 1, line.endIndex)
        if valueStart < line.endIndex, line[valueStart] == UInt8(ascii: " ") { valueStart += 1 }
        let name = line[line.startIndex..<colon]
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
        return (field, valueStart..<line.endIndex)
    }
}
