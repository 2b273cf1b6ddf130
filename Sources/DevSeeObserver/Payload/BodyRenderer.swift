import Foundation
import HTTPCore
import HTTPCoreText

/// Renders a body for a payload: UTF-8 text when valid, else `base64:<...>`, with one visible
/// marker when it was cut.
enum BodyRenderer {
    /// A redacted body as the viewer shows it: all of it (it holds at most `maxBodyBytes` of
    /// the original, masks may make it a little longer), and `…[truncated: N bytes in all]`
    /// when the original was longer.
    static func render(_ body: CapturedBody) -> String {
        let marker = body.isTruncated ? "…[truncated: \(body.totalByteCount) bytes in all]" : ""
        // A cut may end inside a character.
        if let text = UTF8Text.decode(body.data, isCut: body.isTruncated) { return text + marker }
        return base64Prefix + body.data.base64EncodedString() + marker
    }

    /// Rendered text cut so that, escaped, it takes at most `limit` bytes, marker included.
    /// Text is cut on a character boundary, and `base64:` data on a 4-character boundary, so
    /// what is left still decodes.
    static func cut(_ text: String, toEscapedLength limit: Int, totalByteCount: Int) -> String {
        guard JSONString.escapedLength(text) > limit else { return text }
        let marker = "…[truncated: \(totalByteCount) bytes in all]"
        let budget = max(0, limit - JSONString.escapedLength(marker))
        var used = 0
        var fitting = 0
        for byte in text.utf8 {
            let cost = JSONString.escapedLength(of: byte)
            if used + cost > budget { break }
            used += cost
            fitting += 1
        }
        var kept = UTF8Text.prefix(text, maxBytes: fitting)
        if text.hasPrefix(base64Prefix), kept.utf8.count > base64Prefix.utf8.count {
            // What follows the prefix is base64: keep whole 4-character groups so it decodes.
            kept.removeLast((kept.utf8.count - base64Prefix.utf8.count) % 4)
        }
        return kept + marker
    }

    /// What starts a body that is not UTF-8 text; base64 follows.
    static let base64Prefix = "base64:"
}
