/// A provider's credential format: a prefix and what follows it. A word of this shape is
/// masked wherever it stands (free text, JSON string values, header values, URL query values
/// and path segments, stream deltas) at `.standard` and `.strict`, whatever name it is under.
///
/// A word matches when it starts with a prefix followed by at least the row's number of bytes
/// of its alphabet, one of them a digit or a capital (generated secrets have one; prose such
/// as `sk-learn-…` does not); the secret runs as far as the alphabet does.
///
/// The formats are the ones the providers document for their secret keys and tokens;
/// identifiers that are not secrets (Stripe's `cus_…`, `tok_…`, Twilio's `AC…` and `SK…` SIDs,
/// OpenAI's `chatcmpl-…`) are not listed. Adding a format is one row of ``all``.
struct KnownSecretFormat: Sendable {
    /// The provider and the kind of secret.
    let name: String
    /// The bytes the secret starts with, matched with case.
    let prefix: [UInt8]
    /// The fewest bytes of ``alphabet`` that must follow the prefix.
    let minimumLength: Int
    /// The bytes that may follow the prefix.
    let alphabet: Alphabet
    /// Bytes the secret must hold after its prefix (Stripe's `_secret_`), if any.
    let infix: [UInt8]?

    init(_ name: String, prefix: String, atLeast minimumLength: Int, of alphabet: Alphabet, containing infix: String? = nil) {
        self.name = name
        self.prefix = Array(prefix.utf8)
        self.minimumLength = minimumLength
        self.alphabet = alphabet
        self.infix = infix.map { Array($0.utf8) }
    }

    /// What may follow a prefix.
    enum Alphabet: Sendable {
        /// `A-Z`, `a-z`, `0-9`.
        case alphanumeric
        /// Letters, digits, `_` and `-`: base64url.
        case base64URL
        /// Letters, digits, `_`, `-` and `.`.
        case base64URLAndDot
        /// `A-Z` and `0-9`.
        case upperAlphanumeric
        /// `0-9`, `a-f`, `A-F`.
        case hex

        func contains(_ byte: UInt8) -> Bool {
            let isDigit = byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
            let isUpper = byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z")
            let isLower = byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z")
            switch self {
            case .alphanumeric: return isDigit || isUpper || isLower
            case .base64URL: return isDigit || isUpper || isLower || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "-")
            case .base64URLAndDot:
                return isDigit || isUpper || isLower || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".")
            case .upperAlphanumeric: return isDigit || isUpper
            case .hex: return isDigit || (byte | 0x20 >= UInt8(ascii: "a") && byte | 0x20 <= UInt8(ascii: "f"))
            }
        }
    }

    /// The formats, one row each.
    static let all: [KnownSecretFormat] = [
        // OpenAI (sk-…, sk-proj-…, sk-svcacct-…, sk-admin-…), Anthropic (sk-ant-api03-…), DeepSeek.
        KnownSecretFormat("OpenAI or Anthropic API key", prefix: "sk-", atLeast: 20, of: .base64URL),
        KnownSecretFormat("Stripe live secret key", prefix: "sk_live_", atLeast: 16, of: .alphanumeric),
        KnownSecretFormat("Stripe test secret key", prefix: "sk_test_", atLeast: 16, of: .alphanumeric),
        KnownSecretFormat("Stripe live restricted key", prefix: "rk_live_", atLeast: 16, of: .alphanumeric),
        KnownSecretFormat("Stripe test restricted key", prefix: "rk_test_", atLeast: 16, of: .alphanumeric),
        KnownSecretFormat("Stripe webhook signing secret", prefix: "whsec_", atLeast: 24, of: .alphanumeric),
        KnownSecretFormat("Stripe PaymentIntent client secret", prefix: "pi_", atLeast: 20, of: .base64URL, containing: "_secret_"),
        KnownSecretFormat("Stripe SetupIntent client secret", prefix: "seti_", atLeast: 20, of: .base64URL, containing: "_secret_"),
        KnownSecretFormat("GitHub personal access token", prefix: "ghp_", atLeast: 30, of: .alphanumeric),
        KnownSecretFormat("GitHub OAuth token", prefix: "gho_", atLeast: 30, of: .alphanumeric),
        KnownSecretFormat("GitHub user-to-server token", prefix: "ghu_", atLeast: 30, of: .alphanumeric),
        KnownSecretFormat("GitHub installation token", prefix: "ghs_", atLeast: 30, of: .alphanumeric),
        KnownSecretFormat("GitHub refresh token", prefix: "ghr_", atLeast: 30, of: .alphanumeric),
        KnownSecretFormat("GitHub fine-grained token", prefix: "github_pat_", atLeast: 22, of: .base64URL),
        KnownSecretFormat("Slack bot token", prefix: "xoxb-", atLeast: 10, of: .base64URL),
        KnownSecretFormat("Slack user token", prefix: "xoxp-", atLeast: 10, of: .base64URL),
        KnownSecretFormat("Slack app token", prefix: "xoxa-", atLeast: 10, of: .base64URL),
        KnownSecretFormat("Slack refresh token", prefix: "xoxe-", atLeast: 10, of: .base64URL),
        KnownSecretFormat("Slack legacy token", prefix: "xoxs-", atLeast: 10, of: .base64URL),
        KnownSecretFormat("Slack app-level token", prefix: "xapp-", atLeast: 10, of: .base64URL),
        KnownSecretFormat("AWS access key id", prefix: "AKIA", atLeast: 16, of: .upperAlphanumeric),
        KnownSecretFormat("AWS temporary access key id", prefix: "ASIA", atLeast: 16, of: .upperAlphanumeric),
        KnownSecretFormat("Google API key", prefix: "AIza", atLeast: 35, of: .base64URL),
        KnownSecretFormat("Google OAuth access token", prefix: "ya29.", atLeast: 20, of: .base64URLAndDot),
        KnownSecretFormat("GitLab personal access token", prefix: "glpat-", atLeast: 20, of: .base64URL),
        KnownSecretFormat("GitLab deploy token", prefix: "gldt-", atLeast: 20, of: .base64URL),
        KnownSecretFormat("GitLab runner token", prefix: "glrt-", atLeast: 20, of: .base64URL),
        KnownSecretFormat("Hugging Face token", prefix: "hf_", atLeast: 30, of: .alphanumeric),
        KnownSecretFormat("Groq API key", prefix: "gsk_", atLeast: 40, of: .alphanumeric),
        KnownSecretFormat("xAI API key", prefix: "xai-", atLeast: 40, of: .alphanumeric),
        KnownSecretFormat("Replicate API token", prefix: "r8_", atLeast: 30, of: .alphanumeric),
        KnownSecretFormat("Perplexity API key", prefix: "pplx-", atLeast: 40, of: .alphanumeric),
        KnownSecretFormat("npm access token", prefix: "npm_", atLeast: 36, of: .alphanumeric),
        KnownSecretFormat("PyPI API token", prefix: "pypi-", atLeast: 50, of: .base64URL),
        KnownSecretFormat("SendGrid API key", prefix: "SG.", atLeast: 60, of: .base64URLAndDot),
        KnownSecretFormat("Shopify access token", prefix: "shpat_", atLeast: 32, of: .hex),
        KnownSecretFormat("Shopify shared secret", prefix: "shpss_", atLeast: 32, of: .hex),
        KnownSecretFormat("DigitalOcean token", prefix: "dop_v1_", atLeast: 64, of: .hex),
        KnownSecretFormat("Linear API key", prefix: "lin_api_", atLeast: 30, of: .alphanumeric),
        KnownSecretFormat("Notion integration secret", prefix: "ntn_", atLeast: 40, of: .alphanumeric),
        KnownSecretFormat("Postman API key", prefix: "PMAK-", atLeast: 50, of: .base64URL),
        KnownSecretFormat("Databricks token", prefix: "dapi", atLeast: 32, of: .hex),
        KnownSecretFormat("Atlassian API token", prefix: "ATATT", atLeast: 50, of: .base64URL),
        KnownSecretFormat("Square access token", prefix: "EAAA", atLeast: 60, of: .base64URL),
        KnownSecretFormat("Mapbox secret token", prefix: "sk.eyJ", atLeast: 60, of: .base64URLAndDot),
    ]

    /// For each byte, the formats whose prefix starts with it: a word is compared with those only.
    private static let formatsByFirstByte: [[KnownSecretFormat]] = {
        var table = [[KnownSecretFormat]](repeating: [], count: 256)
        for format in all { table[Int(format.prefix[0])].append(format) }
        return table
    }()

    /// The first two bytes of every prefix, as bits of a 65,536-bit set: most words are
    /// answered by their first two bytes, without touching the formats.
    private static let prefixPairs: [UInt64] = {
        var bits = [UInt64](repeating: 0, count: 1024)
        for format in all {
            let pair = Int(format.prefix[0]) << 8 | Int(format.prefix[1])
            bits[pair >> 6] |= 1 << UInt64(pair & 63)
        }
        return bits
    }()

    /// The length of the secret that starts `bytes`, when one of the formats does; the
    /// secret runs as far as its alphabet does.
    static func secretLength<Bytes: Collection<UInt8>>(atStartOf bytes: Bytes) -> Int? where Bytes.Index == Int {
        guard bytes.count >= 2 else { return nil }
        let first = bytes[bytes.startIndex], pair = Int(first) << 8 | Int(bytes[bytes.startIndex + 1])
        guard prefixPairs[pair >> 6] & (1 << UInt64(pair & 63)) != 0 else { return nil }
        for format in formatsByFirstByte[Int(first)] where bytes.count >= format.prefix.count + format.minimumLength {
            guard zip(format.prefix, bytes).allSatisfy({ $0 == $1 }) else { continue }
            let bodyStart = bytes.startIndex + format.prefix.count
            var end = bodyStart
            while end < bytes.endIndex, format.alphabet.contains(bytes[end]) { end += 1 }
            // A sentence's full stop after the secret is not part of it.
            while end > bodyStart, bytes[end - 1] == UInt8(ascii: ".") { end -= 1 }
            // Generated secrets hold a digit or a capital; prose (`sk-learn-…`) does not.
            guard end - bodyStart >= format.minimumLength,
                bytes[bodyStart..<end].contains(where: { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") || $0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z") })
            else { continue }
            if let infix = format.infix, !bytes[bodyStart..<end].contains(infix) { continue }
            return end - bytes.startIndex
        }
        return nil
    }
}

extension Collection where Element == UInt8, Index == Int {
    /// Whether the bytes hold `pattern` somewhere.
    fileprivate func contains(_ pattern: [UInt8]) -> Bool {
        guard count >= pattern.count else { return false }
        return (startIndex...(endIndex - pattern.count)).contains { self[$0..<($0 + pattern.count)].elementsEqual(pattern) }
    }
}
