import Foundation

extension Redactor {
    /// The URL as text with its userinfo removed and masked query values replaced by ``mask``.
    ///
    /// A fragment that looks like a query (`#access_token=...`, as OAuth implicit flows send)
    /// is treated like the query. At `.none` the URL is returned unchanged.
    public func redactedURL(_ url: URL) -> String {
        redactedURL(string: url.absoluteString)
    }

    /// The URL text with its userinfo removed and masked query values replaced by ``mask``.
    ///
    /// Text that is not a URL with an authority is handled conservatively: everything after
    /// the first `?` or `#` is scanned as a query.
    public func redactedURL(string: String) -> String {
        guard level != .none || !sensitiveQueryNames.isEmpty else { return string }
        var rest = Substring(string)
        var result = ""
        let authorityStart = rest.range(of: "://")?.upperBound ?? (rest.hasPrefix("//") ? rest.index(rest.startIndex, offsetBy: 2) : nil)
        if let authorityStart {
            result += rest[..<authorityStart]
            rest = rest[authorityStart...]
            let authorityEnd = rest.firstIndex { "/?#".contains($0) } ?? rest.endIndex
            let authority = rest[..<authorityEnd]
            let host = authority.lastIndex(of: "@").map { authority[authority.index(after: $0)...] } ?? authority
            result += level == .none ? authority : host
            rest = rest[authorityEnd...]
        }
        let fragmentStart = rest.firstIndex(of: "#")
        let beforeFragment = rest[..<(fragmentStart ?? rest.endIndex)]
        if let queryStart = beforeFragment.firstIndex(of: "?") {
            result += beforeFragment[beforeFragment.startIndex...queryStart]
            result += redactedQuery(beforeFragment[beforeFragment.index(after: queryStart)...])
        } else {
            result += beforeFragment
        }
        if let fragmentStart {
            let fragment = rest[rest.index(after: fragmentStart)...]
            result += "#"
            if let question = fragment.firstIndex(of: "?") {
                // A hash route (`#/callback?access_token=...`): its query is a query.
                result += fragment[...question]
                result += redactedQuery(fragment[fragment.index(after: question)...])
            } else {
                result += fragment.contains("=") ? redactedQuery(fragment) : String(fragment)
            }
        }
        return result
    }

    /// A `name=value&...` string with masked values replaced; raw names are kept as sent.
    /// At `.strict` a bare item without `=` is masked too, since it may be a token.
    func redactedQuery(_ query: Substring) -> String {
        let masked = maskedPairs(query, masks: masksQueryItem)
        guard level == .strict else { return masked }
        return masked.split(separator: "&", omittingEmptySubsequences: false).map { item in
            item.isEmpty || item.contains("=") || allowedQueryNames.contains(Self.normalizedKey(Self.formDecoded(item)))
                ? String(item) : Self.mask
        }.joined(separator: "&")
    }
}
