import Foundation
import HTTPCoreRedaction
import XCTest

/// Webhook URLs whose path is their credential are masked after the service's prefix,
/// wherever the URL stands; the same paths on other hosts, and other paths, are kept.
final class WebhookURLFormatTests: XCTestCase {
    private let redactor = Redactor.standard

    func testEachServicesWebhookPathIsMaskedAfterItsPrefix() {
        let cases = [
            ("https://hooks.slack.com/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX", "https://hooks.slack.com/services/[REDACTED]"),
            ("https://hooks.slack.com/workflows/T0000/A0000/123456789/abcDEF123", "https://hooks.slack.com/workflows/[REDACTED]"),
            (
                "https://contoso.webhook.office.com/webhookb2/7aa49aa6-7840-443d-806c-08ebe8f59966@c662313f-14fc/IncomingWebhook/0b3d2a7c/47a9",
                "https://contoso.webhook.office.com/webhookb2/[REDACTED]"
            ),
            ("https://outlook.office.com/webhook/a1269812-6d10-44b1-abc5-b84f93580ba0@9e7b80c7/IncomingWebhook/3fdd6767bae/ac", "https://outlook.office.com/webhook/[REDACTED]"),
            ("https://discord.com/api/webhooks/123456789012345678/abcDEFghiJKL-mnoPQR_stu", "https://discord.com/api/webhooks/[REDACTED]"),
            ("https://canary.discordapp.com/api/webhooks/1234/abc", "https://canary.discordapp.com/api/webhooks/[REDACTED]"),
            ("https://hooks.zapier.com/hooks/catch/1234567/abcdef1/", "https://hooks.zapier.com/hooks/catch/[REDACTED]"),
            ("https://maker.ifttt.com/trigger/door/with/key/bXyZ12abc", "https://maker.ifttt.com/trigger/[REDACTED]"),
            ("https://hook.eu1.make.com/abcdefgh12345678ijkl", "https://hook.eu1.make.com/[REDACTED]"),
            ("https://open.feishu.cn/open-apis/bot/v2/hook/0a1b2c3d-4e5f", "https://open.feishu.cn/open-apis/bot/v2/hook/[REDACTED]"),
            ("https://HOOKS.Slack.com.:443/services/T0/B0/XX?x=1", "https://HOOKS.Slack.com.:443/services/[REDACTED]?x=1"),
        ]
        for (url, expected) in cases {
            XCTAssertEqual(redactor.redactedURL(string: url), expected, url)
            XCTAssertEqual(redactor.redactedText("posting to \(url) failed"), "posting to \(expected) failed", url)
            let json = redactor.redactedBody(Data(#"{"hook":"\#(url)"}"#.utf8), contentType: "application/json")
            XCTAssertEqual(String(decoding: json, as: UTF8.self), #"{"hook":"\#(expected)"}"#, url)
        }
    }

    func testOtherPathsAndOtherHostsAreKept() {
        let kept = [
            "https://hooks.slack.com/", "https://hooks.slack.com/services/", "https://api.slack.com/services/T0/B0/XX",
            "https://notslack.com/services/T0/B0/XX", "https://hooks.slack.com.evil.example/other", "https://discord.com/channels/1234/5678",
            "https://www.make.com/en/pricing", "https://example.com/api/webhooks/123/abc", "https://evildiscord.com/api/webhooks/1/a",
        ]
        for url in kept {
            XCTAssertEqual(redactor.redactedURL(string: url), url, url)
        }
    }

    func testAtLevelNoneTheWebhookIsShown() {
        let url = "https://hooks.slack.com/services/T0/B0/XX"
        XCTAssertEqual(Redactor.none.redactedURL(string: url), url)
    }
}
