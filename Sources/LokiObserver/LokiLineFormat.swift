import Foundation

/// How a ``LokiLogger`` writes one log line from its fields.
public enum LokiLineFormat: Sendable, Hashable {
    /// `key=value` pairs, values quoted when they hold spaces, quotes or `=` (Loki's
    /// `| logfmt` parser reads them).
    case logfmt
    /// One JSON object (Loki's `| json` parser reads it).
    case json

    /// The line for `fields`, in their order.
    func line(_ fields: [(key: String, value: String)]) -> String {
        switch self {
        case .logfmt:
            return fields.map { "\($0.key)=\(Self.logfmtValue($0.value))" }.joined(separator: " ")
        case .json:
            var line = "{"
            for (index, field) in fields.enumerated() {
                if index > 0 { line += "," }
                line += Self.jsonString(field.key) + ":" + Self.jsonString(field.value)
            }
            return line + "}"
        }
    }

    static func logfmtValue(_ value: String) -> String {
        let needsQuotes = value.isEmpty || value.utf8.contains { $0 == 0x20 || $0 == UInt8(ascii: "=") || needsEscape($0) }
        guard needsQuotes else { return value }
        return jsonString(value)
    }

    /// `value` as a JSON string literal: quotes, backslashes and control characters escaped.
    static func jsonString(_ value: String) -> String {
        let utf8 = value.utf8
        guard utf8.contains(where: needsEscape) else { return "\"" + value + "\"" }
        var bytes: [UInt8] = [UInt8(ascii: "\"")]
        bytes.reserveCapacity(utf8.count + 16)
        let hex = Array("0123456789abcdef".utf8)
        for byte in utf8 {
            switch byte {
            case UInt8(ascii: "\""): bytes += [UInt8(ascii: "\\"), UInt8(ascii: "\"")]
            case UInt8(ascii: "\\"): bytes += [UInt8(ascii: "\\"), UInt8(ascii: "\\")]
            case 0x0A: bytes += [UInt8(ascii: "\\"), UInt8(ascii: "n")]
            case 0x0D: bytes += [UInt8(ascii: "\\"), UInt8(ascii: "r")]
            case 0x09: bytes += [UInt8(ascii: "\\"), UInt8(ascii: "t")]
            case _ where byte < 0x20 || byte == 0x7F:
                bytes += Array("\\u00".utf8) + [hex[Int(byte >> 4)], hex[Int(byte & 0xF)]]
            default: bytes.append(byte)
            }
        }
        bytes.append(UInt8(ascii: "\""))
        return String(decoding: bytes, as: UTF8.self)
    }

    private static func needsEscape(_ byte: UInt8) -> Bool {
        byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") || byte == 0x7F
    }
}
