import Foundation
import HTTPCore
import HTTPCoreText

/// How a ``LokiLogger`` writes one log line from its fields.
public enum LokiLineFormat: Sendable, Hashable {
    /// `key=value` pairs, values quoted when they hold spaces, quotes or `=` (Loki's
    /// `| logfmt` parser reads them).
    case logfmt
    /// One JSON object (Loki's `| json` parser reads it).
    case json

    /// The line for `fields`, in their order.
    func line(_ fields: [(key: String, value: String)]) -> String {
        var bytes: [UInt8] = []
        switch self {
        case .logfmt:
            for (index, field) in fields.enumerated() {
                if index > 0 { bytes.append(UInt8(ascii: " ")) }
                bytes += field.key.utf8
                bytes.append(UInt8(ascii: "="))
                if Self.needsQuotes(field.value) {
                    bytes += JSONString.encode(field.value)
                } else {
                    bytes += field.value.utf8
                }
            }
        case .json:
            var writer = JSONWriter()
            writer.beginObject()
            writer.members(fields)
            writer.endObject()
            bytes = writer.bytes
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Whether a logfmt value must be quoted: empty, or holding a space, `=`, a quote, a
    /// backslash or a control character.
    private static func needsQuotes(_ value: String) -> Bool {
        value.isEmpty
            || value.utf8.contains { $0 <= 0x20 || $0 == 0x7F || $0 == UInt8(ascii: "=") || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }
    }
}
