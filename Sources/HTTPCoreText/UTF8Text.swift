import Foundation

/// Bodies read as text, for the places that show them (dev-see payloads, HAR files, curl
/// commands).
package enum UTF8Text {
    /// `data` as UTF-8 text, or `nil` when it is not text. A body cut short (`isCut`) may end
    /// inside a character: up to three trailing bytes are then left out rather than the whole
    /// body refused as binary.
    package static func decode(_ data: Data, isCut: Bool) -> String? {
        for dropped in 0...(isCut ? min(3, data.count) : 0) {
            if let text = String(data: data.dropLast(dropped), encoding: .utf8) { return text }
        }
        return nil
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
