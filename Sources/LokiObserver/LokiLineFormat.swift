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
        let needsQuotes = value.isEmpty || value.utf8.contains { $0 <= 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "=") || $0 == 0x7F }
        guard needsQuotes else { return value }
        return jsonString(value)
    }

    /// `value` as a JSON string literal: quotes, backslashes and control characters escaped.
    static func jsonString(_ value: String) -> String {
        var result = "\""
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            case _ where scalar.value < 0x20 || scalar.value == 0x7F:
                result += String(format: "\\u%04x", scalar.value)
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result + "\""
    }
}
