/// Loki's rule for label names: `[a-zA-Z_][a-zA-Z0-9_]*` (the Prometheus data model, which
/// Loki follows; https://grafana.com/docs/loki/latest/get-started/labels/).
package enum LokiLabelName {
    /// Whether Loki accepts `name` as a label name.
    package static func isValid(_ name: String) -> Bool {
        guard let first = name.utf8.first, !(UInt8(ascii: "0")...UInt8(ascii: "9")).contains(first) else { return false }
        return name.utf8.allSatisfy(isAllowed)
    }

    /// `name` made valid: every other character becomes `_`, and a leading digit (or an
    /// empty name) gets a `_` in front. `http.method` becomes `http_method`.
    package static func sanitized(_ name: String) -> String {
        let characters = name.utf8.map { isAllowed($0) ? Character(Unicode.Scalar($0)) : "_" }
        let result = String(characters)
        return isValid(result) ? result : "_" + result
    }

    private static func isAllowed(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
            || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "_")
    }
}
