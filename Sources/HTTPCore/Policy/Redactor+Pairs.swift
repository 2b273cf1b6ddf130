import Foundation

/// `name=value` pairs as forms, queries and free text carry them.
extension Redactor {
    /// `name=value&...` text (`;` separates pairs too) with the values of masked names
    /// replaced, raw names and separators kept.
    func maskedPairs(_ text: Substring, masks: (String) -> Bool) -> String {
        var output = ""
        var rest = text
        while true {
            let end = rest.firstIndex { $0 == "&" || $0 == ";" } ?? rest.endIndex
            let pair = rest[..<end]
            if let equals = pair.firstIndex(of: "="),
                Self.formKeyCandidates(Self.formDecoded(pair[..<equals])).contains(where: masks)
            {
                output += pair[...equals] + Self.mask
            } else {
                output += pair
            }
            guard end < rest.endIndex else { return output }
            output.append(rest[end])
            rest = rest[rest.index(after: end)...]
        }
    }

    /// The names a form key is matched by: itself and, for `user[password]`, the last
    /// bracketed component.
    static func formKeyCandidates(_ name: String) -> [String] {
        var trimmed = Substring(name)
        while trimmed.hasSuffix("[]") { trimmed = trimmed.dropLast(2) }
        guard let open = trimmed.lastIndex(of: "["), let close = trimmed.lastIndex(of: "]"), open < close else {
            return [name, String(trimmed)]
        }
        return [name, String(trimmed), String(trimmed[trimmed.index(after: open)..<close])]
    }

    /// Decodes `+` and percent escapes as form and query encoding do.
    static func formDecoded(_ text: Substring) -> String {
        let spaced = text.replacingOccurrences(of: "+", with: " ")
        return spaced.removingPercentEncoding ?? spaced
    }
}
