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
}
