import HTTPCoreText

/// The method and URL of a log's row in the dev-see list, which its search also reads (a
/// case-insensitive substring of either).
extension PayloadBuilder {
    /// The method before the outcome's suffix: the final request's, or for a redirect that
    /// changed it, the called one's and then the final one's, `POST → GET`, so a search for
    /// either finds the row.
    static func shownMethod(_ entry: LogEntry) -> String {
        let final = entry.method.flatMap { $0.isEmpty ? nil : $0 } ?? "GET"
        guard let called = entry.redirectedFrom?.method, !called.isEmpty, called != final else { return final }
        return "\(called) → \(final)"
    }

    /// The URL of the row: the request's, with `#message-N` for a stream message's log; for a
    /// redirected exchange, the called URL and then the final one, `<called> → <final>`, so the
    /// row starts with what the code asked for and a search finds it by either.
    static func shownURL(_ entry: LogEntry) -> String {
        let url = entry.url.flatMap { $0.isEmpty ? nil : $0 } ?? entry.responseURL
        var final = url.map { UTF8Text.cut($0, toBytes: maximumURLBytes) }.flatMap { $0.isEmpty ? nil : $0 } ?? "(unknown)"
        if let message = entry.message {
            // dev-see shows only the URL, method, status and duration in its list: the fragment
            // (never sent to a server) tells a message from its exchange, and sorts them.
            final = String(final.prefix { $0 != "#" }) + "#message-\(message.index)"
        }
        guard let called = entry.redirectedFrom?.url, !called.isEmpty, called != url else { return final }
        let half = maximumURLBytes / 2
        return UTF8Text.cut(called, toBytes: half) + " → " + UTF8Text.cut(final, toBytes: half)
    }
}
