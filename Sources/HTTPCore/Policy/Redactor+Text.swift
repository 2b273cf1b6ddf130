extension Redactor {
    /// Free text (an error message, a log line) with every URL redacted like
    /// ``redactedURL(string:)`` and credentials after `Bearer`/`Basic` or a sensitive
    /// `name=value` / `name: value` pair masked.
    public func redactedText(_ text: String) -> String {
        guard level != .none else { return text }
        var output: [Substring] = []
        var maskNext = false
        for word in text.split(separator: " ", omittingEmptySubsequences: false) {
            if maskNext, !word.isEmpty {
                output.append(Substring(Self.mask))
                maskNext = false
                continue
            }
            let lowered = word.lowercased()
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
