extension Redactor {
    /// Free text (an error message, a log line) with every URL redacted like
    /// ``redactedURL(string:)`` and credentials after `Bearer`/`Basic` or a sensitive
    /// `name=value` / `name: value` pair masked.
    public func redactedText(_ text: String) -> String {
        guard level != .none else { return text }
        var output: [Substring] = []
        var maskNext = false
        for word in text.split(separator: " ", omittingEmptySubsequences: false) {
            let lowered = word.lowercased()
            if maskNext, !word.isEmpty {
                // `Authorization: Bearer abc`: the scheme stays, the credential goes.
                let isScheme = lowered == "bearer" || lowered == "basic"
                output.append(isScheme ? word : Substring(Self.mask))
                maskNext = isScheme
                continue
            }
            if lowered == "bearer" || lowered == "basic" || lowered.hasSuffix(":") && masksBodyKey(String(lowered.dropLast())) {
                maskNext = true
                output.append(word)
            } else if word.contains("://") {
                output.append(Substring(redactedURL(string: String(word))))
            } else if word.contains("=") {
                output.append(Substring(redactedQuery(word)))
            } else {
                output.append(word)
            }
        }
        return output.joined(separator: " ")
    }
}
