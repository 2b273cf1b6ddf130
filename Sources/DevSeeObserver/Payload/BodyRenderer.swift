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
        let utf8 = text.utf8
        var used = 0
        var end = utf8.startIndex
        for index in utf8.indices {
            let byte = utf8[index]
            let cost = byte == 0x22 || byte == 0x5C || byte == 0x0A || byte == 0x0D || byte == 0x09 ? 2 : byte < 0x20 ? 6 : 1
            if used + cost > budget { break }
            used += cost
            end = utf8.index(after: index)
        }
        while end > utf8.startIndex, end < utf8.endIndex, UTF8.isContinuation(utf8[end]) {
            end = utf8.index(before: end)
        }
        if text.hasPrefix(base64Prefix) {
            let data = utf8.index(utf8.startIndex, offsetBy: min(base64Prefix.utf8.count, utf8.distance(from: utf8.startIndex, to: end)))
            end = utf8.index(end, offsetBy: -(utf8.distance(from: data, to: end) % 4))
        }
        return String(text[..<end]) + marker
    }

    /// What starts a body that is not UTF-8 text; base64 follows.
    static let base64Prefix = "base64:"
}
