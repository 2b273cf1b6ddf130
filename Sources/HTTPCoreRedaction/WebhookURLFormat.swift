/// A service whose webhook URLs carry their credential in the path: anyone who has the URL
/// can post to the channel, so the path after the row's prefix is masked wherever the URL
/// stands (`https://hooks.slack.com/services/[REDACTED]`).
///
/// The rows are the hosts and paths the services document for incoming webhooks; adding one is
/// one row of ``all``.
struct WebhookURLFormat: Sendable {
    /// The service and the kind of webhook.
    let name: String
    /// The host, lowercase; a subdomain of it matches too when ``matchesSubdomains``.
    let host: [UInt8]
    let matchesSubdomains: Bool
    /// The path up to where the secret starts, matched with case.
    let pathPrefix: [UInt8]

    init(_ name: String, host: String, subdomains: Bool = false, path: String) {
        precondition(host.utf8.count >= 8, "a host of eight bytes or more, so its last eight tell it: \(host)")
        self.name = name
        self.host = Array(host.utf8)
        matchesSubdomains = subdomains
        pathPrefix = Array(path.utf8)
    }

    static let all: [WebhookURLFormat] = [
        WebhookURLFormat("Slack incoming webhook", host: "hooks.slack.com", path: "/services/"),
        WebhookURLFormat("Slack workflow webhook", host: "hooks.slack.com", path: "/workflows/"),
        WebhookURLFormat("Slack workflow trigger", host: "hooks.slack.com", path: "/triggers/"),
        WebhookURLFormat("Microsoft Teams incoming webhook", host: "webhook.office.com", subdomains: true, path: "/webhookb2/"),
        WebhookURLFormat("Microsoft Teams legacy webhook", host: "outlook.office.com", path: "/webhook/"),
        WebhookURLFormat("Microsoft Teams legacy webhook (Office 365)", host: "outlook.office365.com", path: "/webhook/"),
        WebhookURLFormat("Discord webhook", host: "discord.com", subdomains: true, path: "/api/webhooks/"),
        WebhookURLFormat("Discord webhook (old domain)", host: "discordapp.com", subdomains: true, path: "/api/webhooks/"),
        WebhookURLFormat("Zapier catch hook", host: "hooks.zapier.com", path: "/hooks/catch/"),
        WebhookURLFormat("IFTTT Maker webhook", host: "maker.ifttt.com", path: "/trigger/"),
        WebhookURLFormat("Make (Integromat) webhook", host: "make.com", subdomains: true, path: "/"),
        WebhookURLFormat("Feishu bot webhook", host: "open.feishu.cn", path: "/open-apis/bot/v2/hook/"),
        WebhookURLFormat("Lark bot webhook", host: "open.larksuite.com", path: "/open-apis/bot/v2/hook/"),
    ]

    /// Where the secret starts in the path `path` of a URL to `host`, when a row names that
    /// host and the path goes on past the row's prefix. Most hosts are answered by their last
    /// eight bytes alone, compared as one word with each row's.
    static func secretStart(host: ArraySlice<UInt8>, path: ArraySlice<UInt8>) -> Int? {
        guard path.count > 1 else { return nil }
        var end = host.endIndex
        // A port, then a final dot, are not part of the name.
        var index = end
        while index > host.startIndex, host[index - 1] &- UInt8(ascii: "0") < 10 { index -= 1 }
        if index > host.startIndex, index < end, host[index - 1] == UInt8(ascii: ":") { end = index - 1 }
        if end > host.startIndex, host[end - 1] == UInt8(ascii: ".") { end -= 1 }
        let name = host[host.startIndex..<end]
        let tail = Self.tail(of: name)
        let table = WebhookURLTable.shared
        // Most hosts are no row's: one bit of a 64-bit set says so.
        guard table.tailBits & WebhookURLTable.bit(of: tail) != 0 else { return nil }
        for row in table.tails.indices where table.tails[row] == tail {
            let format = table.formats[row]
            guard format.matches(name: name), path.count > format.pathPrefix.count, path.starts(with: format.pathPrefix) else { continue }
            // Make's webhooks live on `hook.<zone>.make.com`; its other hosts are its site.
            if format.pathPrefix.count == 1, !name.starts(with: "hook.".utf8) { continue }
            return path.startIndex + format.pathPrefix.count
        }
        return nil
    }

    /// The last eight bytes of a host name (fewer when it is shorter), lowercased, as one word.
    fileprivate static func tail(of name: ArraySlice<UInt8>) -> UInt64 {
        var word: UInt64 = 0
        var index = max(name.startIndex, name.endIndex - 8)
        while index < name.endIndex {
            let byte = name[index]
            word = word << 8 | UInt64(byte &- UInt8(ascii: "A") < 26 ? byte | 0x20 : byte)
            index += 1
        }
        return word
    }

    /// Whether the host name `name` (any case) is this row's host, or a subdomain of it when
    /// the row allows.
    private func matches(name: ArraySlice<UInt8>) -> Bool {
        guard name.count >= host.count else { return false }
        let start = name.endIndex - host.count
        for offset in 0..<host.count {
            let byte = name[start + offset]
            guard (byte &- UInt8(ascii: "A") < 26 ? byte | 0x20 : byte) == host[offset] else { return false }
        }
        return name.count == host.count || matchesSubdomains && name[start - 1] == UInt8(ascii: ".")
    }
}

/// The rows of ``WebhookURLFormat/all`` with the last eight bytes of each host as one word,
/// read without a copy or a retain per URL.
private final class WebhookURLTable: Sendable {
    static let shared = WebhookURLTable()

    let formats = WebhookURLFormat.all
    let tails = WebhookURLFormat.all.map { WebhookURLFormat.tail(of: $0.host[...]) }
    /// A bit for each row's tail (``bit(of:)``).
    let tailBits = WebhookURLFormat.all.reduce(UInt64(0)) { $0 | bit(of: WebhookURLFormat.tail(of: $1.host[...])) }

    /// One of 64 bits, picked by a multiplicative hash of a tail.
    static func bit(of tail: UInt64) -> UInt64 {
        1 << ((tail &* 0x9E37_79B9_7F4A_7C15) >> 58)
    }
}
