import Foundation

/// UTF-8 text cut without splitting a character's bytes, and bodies read as text: the one
/// place the package cuts text to a byte budget (error messages, payload fields, Loki lines,
/// masked pairs) and decodes cut bodies (dev-see payloads, HAR files, curl commands).
///
/// Cuts fall on Unicode scalar boundaries: a combining mark may be separated from its base,
/// but no byte sequence is left invalid.
package enum UTF8Text {
    /// Whether `byte` is ASCII white space where words end: space, tab, line feed, vertical
    /// tab, form feed, carriage return.
    @inlinable
    package static func isSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 || byte == 0x0B || byte == 0x0C
    }

    /// `data` as UTF-8 text, or `nil` when it is not text. A body cut short (`isCut`) may end
    /// inside a character: its trailing incomplete character is then left out rather than
    /// the whole body refused as binary.
    package static func decode(_ data: Data, isCut: Bool) -> String? {
        guard isCut else { return String(data: data, encoding: .utf8) }
        let length = data.withUnsafeBytes { raw in lengthWithoutCutCharacter(raw.bindMemory(to: UInt8.self)) }
        return String(data: data.prefix(length), encoding: .utf8)
    }

    /// The length of the longest prefix of `bytes`, at most `limit` bytes long, that does not
    /// end inside a character; `bytes.count` when it fits.
    package static func boundary<Bytes: RandomAccessCollection<UInt8>>(in bytes: Bytes, atMost limit: Int) -> Int
    where Bytes.Index == Int {
        guard bytes.count > limit else { return bytes.count }
        var end = max(0, limit)
        while end > 0, UTF8.isContinuation(bytes[bytes.startIndex + end]) { end -= 1 }
        return end
    }

    /// `text` cut to at most `limit` UTF-8 bytes, at a scalar boundary; `text` when it fits.
    package static func prefix(_ text: String, maxBytes limit: Int) -> String {
        let utf8 = text.utf8
        guard utf8.count > limit else { return text }
        var end = utf8.index(utf8.startIndex, offsetBy: max(0, limit))
        while end > utf8.startIndex, UTF8.isContinuation(utf8[end]) { end = utf8.index(before: end) }
        return String(decoding: utf8[..<end], as: UTF8.self)
    }

    /// `text` cut to at most `limit` UTF-8 bytes at a scalar boundary, followed by `marker`
    /// (``TruncationMarker/ellipsis`` by default) when it was cut; `text` when it fits.
    package static func cut(_ text: String, toBytes limit: Int, marker: String = TruncationMarker.ellipsis) -> String {
        guard text.utf8.count > limit else { return text }
        return prefix(text, maxBytes: limit) + marker
    }

    /// How many of `bytes` remain when a UTF-8 character that their end cuts short (a lead
    /// byte without all of its continuation bytes) is left out; `bytes.count` when none is.
    package static func lengthWithoutCutCharacter(_ bytes: UnsafeBufferPointer<UInt8>) -> Int {
        var lead = bytes.count
        while lead > 0, bytes.count - lead < 3, UTF8.isContinuation(bytes[lead - 1]) { lead -= 1 }
        guard lead > 0 else { return bytes.count }
        let first = bytes[lead - 1]
        let length = first >= 0xF0 ? 4 : first >= 0xE0 ? 3 : first >= 0xC0 ? 2 : 1
        return lead - 1 + length > bytes.count ? lead - 1 : bytes.count
    }
}

extension UTF8Text {
    /// Whether `bytes` are valid UTF-8: no stray continuation byte, no truncated, overlong or
    /// surrogate sequence.
    package static func isValid(_ bytes: Slice<UnsafeBufferPointer<UInt8>>) -> Bool {
        var iterator = bytes.makeIterator()
        var decoder = UTF8()
        while true {
            switch decoder.decode(&iterator) {
            case .scalarValue: continue
            case .emptyInput: return true
            case .error: return false
            }
        }
    }
}
