import Foundation

/// The `name=value&...` pairs of a URL query or a form body, decoded for HAR's `queryString`
/// and `params`.
///
/// Parsed by hand rather than with `URLComponents`, which rejects the `[REDACTED]` that
/// redaction leaves in queries.
enum URLEncodedPairs {
    /// The pairs of `text`, percent-decoded (undecodable text kept as it is); `+` is a space
    /// when `plusIsSpace`, as in form bodies. A pair without `=` has an empty value.
    static func decode(_ text: Substring, plusIsSpace: Bool) -> [(name: String, value: String)] {
        text.split(separator: "&").map { pair in
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let value = parts.count > 1 ? parts[1] : ""
            return (decoded(parts[0], plusIsSpace: plusIsSpace), decoded(value, plusIsSpace: plusIsSpace))
        }
    }

    /// The query items of a URL, as written before any `#fragment`.
    static func query(of url: String) -> [(name: String, value: String)] {
        let withoutFragment = url.prefix { $0 != "#" }
        guard let mark = withoutFragment.firstIndex(of: "?") else { return [] }
        return decode(withoutFragment[withoutFragment.index(after: mark)...], plusIsSpace: false)
    }

    private static func decoded(_ text: Substring, plusIsSpace: Bool) -> String {
        let text = plusIsSpace ? text.replacingOccurrences(of: "+", with: " ") : String(text)
        return text.removingPercentEncoding ?? text
    }
}
