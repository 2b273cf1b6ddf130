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
    /// host and the path goes on past the row's prefix.
    static func secretStart(host: ArraySlice<UInt8>, path: ArraySlice<UInt8>) -> Int? {
        for format in all where format.matches(host: host) {
            guard path.count > format.pathPrefix.count, path.starts(with: format.pathPrefix) else { continue }
            // Make's webhooks live on `hook.<zone>.make.com`; its other hosts are its site.
            if format.pathPrefix.count == 1, !host.starts(with: "hook.".utf8) { continue }
            return path.startIndex + format.pathPrefix.count
        }
        return nil
    }

    /// Whether `host` (any case, a port and a final dot allowed) is this row's host.
    private func matches(host: ArraySlice<UInt8>) -> Bool {
        var end = host.endIndex
        if let colon = host.lastIndex(of: UInt8(ascii: ":")) { end = colon }
        if end > host.startIndex, host[end - 1] == UInt8(ascii: ".") { end -= 1 }
        let name = host[host.startIndex..<end]
        guard name.count >= self.host.count else { return false }
        let tail = name.suffix(self.host.count)
        guard zip(tail, self.host).allSatisfy({ ($0 >= 65 && $0 <= 90 ? $0 | 0x20 : $0) == $1 }) else { return false }
        return name.count == self.host.count || matchesSubdomains && name[tail.startIndex - 1] == UInt8(ascii: ".")
    }
}
