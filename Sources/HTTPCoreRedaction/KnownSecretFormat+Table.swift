extension KnownSecretFormat {
    /// The formats, one row each, grouped by provider.
    static let all: [KnownSecretFormat] = [
        KnownSecretFormat("OpenAI or Anthropic API key", prefix: "sk-", .atLeast(20), of: .base64URL),
        KnownSecretFormat("Stripe live secret key", prefix: "sk_live_", .atLeast(16), of: .alphanumeric),
        KnownSecretFormat("Stripe test secret key", prefix: "sk_test_", .atLeast(16), of: .alphanumeric),
        KnownSecretFormat("Stripe live restricted key", prefix: "rk_live_", .atLeast(16), of: .alphanumeric),
        KnownSecretFormat("Stripe test restricted key", prefix: "rk_test_", .atLeast(16), of: .alphanumeric),
        KnownSecretFormat("Stripe webhook signing secret", prefix: "whsec_", .atLeast(24), of: .alphanumeric),
        KnownSecretFormat("Stripe PaymentIntent client secret", prefix: "pi_", .atLeast(20), of: .base64URL, containing: "_secret_"),
        KnownSecretFormat("Stripe SetupIntent client secret", prefix: "seti_", .atLeast(20), of: .base64URL, containing: "_secret_"),
        KnownSecretFormat("GitHub personal access token", prefix: "ghp_", .atLeast(30), of: .alphanumeric),
        KnownSecretFormat("GitHub OAuth token", prefix: "gho_", .atLeast(30), of: .alphanumeric),
        KnownSecretFormat("GitHub user-to-server token", prefix: "ghu_", .atLeast(30), of: .alphanumeric),
        KnownSecretFormat("GitHub installation token", prefix: "ghs_", .atLeast(30), of: .alphanumeric),
        KnownSecretFormat("GitHub refresh token", prefix: "ghr_", .atLeast(30), of: .alphanumeric),
        KnownSecretFormat("GitHub fine-grained token", prefix: "github_pat_", .atLeast(22), of: .base64URL),
        KnownSecretFormat("Slack bot token", prefix: "xoxb-", .atLeast(10), of: .base64URL),
        KnownSecretFormat("Slack user token", prefix: "xoxp-", .atLeast(10), of: .base64URL),
        KnownSecretFormat("Slack app token", prefix: "xoxa-", .atLeast(10), of: .base64URL),
        KnownSecretFormat("Slack refresh token", prefix: "xoxe-", .atLeast(10), of: .base64URL),
        KnownSecretFormat("Slack legacy token", prefix: "xoxs-", .atLeast(10), of: .base64URL),
        KnownSecretFormat("Slack app-level token", prefix: "xapp-", .atLeast(10), of: .base64URL),
        KnownSecretFormat("AWS access key id", prefix: "AKIA", .atLeast(16), of: .upperAlphanumeric),
        KnownSecretFormat("AWS temporary access key id", prefix: "ASIA", .atLeast(16), of: .upperAlphanumeric),
        KnownSecretFormat("Google API key", prefix: "AIza", .atLeast(35), of: .base64URL),
        KnownSecretFormat("Google OAuth access token", prefix: "ya29.", .atLeast(20), of: .base64URLAndDot),
        KnownSecretFormat("GitLab personal access token", prefix: "glpat-", .atLeast(20), of: .base64URL),
        KnownSecretFormat("GitLab deploy token", prefix: "gldt-", .atLeast(20), of: .base64URL),
        KnownSecretFormat("GitLab runner token", prefix: "glrt-", .atLeast(20), of: .base64URL),
        KnownSecretFormat("Hugging Face token", prefix: "hf_", .atLeast(30), of: .alphanumeric),
        KnownSecretFormat("Groq API key", prefix: "gsk_", .atLeast(40), of: .alphanumeric),
        KnownSecretFormat("xAI API key", prefix: "xai-", .atLeast(40), of: .alphanumeric),
        KnownSecretFormat("Replicate API token", prefix: "r8_", .atLeast(30), of: .alphanumeric),
        KnownSecretFormat("Perplexity API key", prefix: "pplx-", .atLeast(40), of: .alphanumeric),
        KnownSecretFormat("npm access token", prefix: "npm_", .atLeast(36), of: .alphanumeric),
        KnownSecretFormat("PyPI API token", prefix: "pypi-", .atLeast(50), of: .base64URL),
        KnownSecretFormat("SendGrid API key", prefix: "SG.", .atLeast(60), of: .base64URLAndDot),
        KnownSecretFormat("Shopify access token", prefix: "shpat_", .atLeast(32), of: .hex),
        KnownSecretFormat("Shopify shared secret", prefix: "shpss_", .atLeast(32), of: .hex),
        KnownSecretFormat("DigitalOcean token", prefix: "dop_v1_", .atLeast(64), of: .hex),
        KnownSecretFormat("Linear API key", prefix: "lin_api_", .atLeast(30), of: .alphanumeric),
        KnownSecretFormat("Notion integration secret", prefix: "ntn_", .atLeast(40), of: .alphanumeric),
        KnownSecretFormat("Postman API key", prefix: "PMAK-", .atLeast(50), of: .base64URL),
        KnownSecretFormat("Databricks token", prefix: "dapi", .atLeast(32), of: .hex),
        KnownSecretFormat("Atlassian API token", prefix: "ATATT", .atLeast(50), of: .base64URL),
        KnownSecretFormat("Square access token", prefix: "EAAA", .atLeast(60), of: .base64URL),
        KnownSecretFormat("Mapbox secret token", prefix: "sk.eyJ", .atLeast(60), of: .base64URLAndDot),
        // Private keys in PEM and OpenSSH armour.
        KnownSecretFormat("PEM or OpenSSH private key block", prefix: "-----BEGIN ", body: .privateKeyBlock),
        // Telegram bot token: the bot's id, a colon, then the secret, which starts `AA` (34 to 36 bytes).
        KnownSecretFormat("Telegram bot token", prefix: ":AA", .between(32, 34), of: .base64URL, afterDigits: 8...10),
    ]

    /// The length of the secret that starts `bytes`, when one of the formats does (see
    /// ``SecretFormatIndex``).
    static func secretLength<Bytes: Collection<UInt8>>(atStartOf bytes: Bytes) -> Int? where Bytes.Index == Int {
        SecretFormatIndex.shared.secretLength(atStartOf: bytes)
    }
}
