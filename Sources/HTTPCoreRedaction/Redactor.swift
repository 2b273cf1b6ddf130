/// The one redaction engine: every place where data leaves the process applies it.
///
/// `HTTPCorePolicy` applies it to what events expose; `DevSeeObserver` applies it to every
/// payload it ships; the console observer to every line it prints. A masked header, query or
/// body value becomes `[REDACTED]` (``mask``); only literals inside GraphQL query text become
/// `***`, which keeps the query readable. Masking is one-way: nothing of the original value
/// is kept, not even its length.
///
/// Names (of headers, query items, body keys) are compared by their letters and digits,
/// without case, after percent-decoding, resolving `\u` escapes and folding look-alike
/// characters, so `card_number`, `cardNumber` and `card-number` are one name. They are also
/// split into words (`newPassword` is `new` `Password`) and judged by the sensitive words in
/// them (`password`, `token`, `api_key`, `secret` and the others listed in the privacy
/// levels article), never inside a longer word (`pin` does not mask
/// `shipping`): a name a sensitive word ends (`access_token`) masks every value under it, one
/// that only mentions a secret (`max_tokens`, `hadAuthorization`) masks text and keeps
/// numbers and booleans, one where a descriptor follows (`token_type`) keeps its value.
///
/// Precedence for a name: a configured sensitive name (matched as a word) is always masked;
/// otherwise an allowed name (matched whole) is always kept; otherwise the level decides
/// (`.standard`: the built-in sensitive names and words are masked; `.strict`: everything
/// is masked). Provider keys of a known format (`sk-proj-…`, `ghp_…`, `AKIA…`) are masked
/// wherever they stand, under any name.
///
/// ```swift
/// let redactor = Redactor(level: .standard, sensitiveHeaderNames: ["X-Session"])
/// redactor.redactedURL(URL(string: "https://u:p@api.example.com/a?token=abc&page=2")!)
/// // "https://api.example.com/a?token=[REDACTED]&page=2"
/// ```
public struct Redactor: Sendable, Hashable {
    /// How much is masked.
    public enum Level: String, Sendable, Hashable, CaseIterable {
        /// Everything is kept as it is. For local development only.
        case none
        /// Known-sensitive items are masked: credentials in headers, the URL's userinfo,
        /// secrets in the query, JSON, form, multipart and GraphQL bodies. The default.
        case standard
        /// Every header value outside the allowlist, every query value and every body value
        /// is masked; bodies that are not JSON are replaced by a note of their size and type.
        case strict
    }

    /// The marker that replaces a masked header, query or body value.
    public static let mask = "[REDACTED]"

    /// The marker that replaces a literal inside GraphQL query text.
    package static let graphQLLiteralMask = "***"

    /// Header names masked at `.standard`: credentials as the common APIs and frameworks
    /// name them. Names are compared without case, surrounding whitespace, or the difference
    /// between `_` and `-`.
    package static let defaultSensitiveHeaderNames: Set<String> = [
        "authorization", "proxy-authorization", "cookie", "set-cookie", "x-api-key", "x-auth-token",
        "api-key", "x-goog-api-key", "x-amz-security-token", "x-csrf-token", "x-xsrf-token", "csrf-token",
        "private-token", "x-access-token", "x-refresh-token", "x-forwarded-authorization", "x-session-token",
    ]

    /// Header names kept at `.strict` unless configured otherwise.
    public static let defaultAllowedHeaderNamesAtStrict: Set<String> = [
        "accept", "accept-encoding", "accept-language", "cache-control", "connection", "content-encoding",
        "content-length", "content-type", "date", "host", "transfer-encoding", "user-agent",
    ]

    /// Words masked at `.standard` wherever they stand as whole words of a header name (and
    /// not of query names or body keys, where `key` or `session` name ordinary data): custom
    /// credential headers such as `X-Custom-Auth`, `X-Signature`, `X-Hub-Signature-256`,
    /// `X-Shopify-Hmac-Sha256`, `X-Session`, `X-Client-Key`. Descriptor endings are exempt as
    /// for ``defaultSensitiveWords`` (`X-Session-Expires` is kept), and so are the WebSocket
    /// handshake's `Sec-WebSocket-Key` and `Sec-WebSocket-Accept`, which carry a nonce.
    package static let defaultSensitiveHeaderWords: Set<String> = [
        "auth", "signature", "signatures", "hmac", "key", "keys", "session",
    ]

    /// Query item names whose values are masked at `.standard`.
    package static let defaultSensitiveQueryNames: Set<String> = [
        "token", "access_token", "refresh_token", "id_token", "api_key", "apikey", "key", "password",
        "passwd", "secret", "client_secret", "signature", "sig", "hmac", "code", "session", "auth",
        "x-amz-signature", "x-amz-credential", "x-amz-security-token", "sessionid", "jsessionid",
    ]

    /// Body keys whose values are masked at `.standard`, as whole keys, whatever their type.
    /// (`key` alone is not one: S3's `<Key>` and many APIs' `key` name ordinary data.)
    package static let defaultSensitiveBodyKeys: Set<String> = [
        "password", "passwd", "token", "access_token", "refresh_token", "id_token", "secret", "client_secret",
        "authorization", "api_key", "card_number", "cvv", "cvc", "ssn", "pin", "refresh", "auth",
    ]

    /// Names masked at `.standard` wherever they appear as whole words of a header name, a
    /// query item name or a body key: `password` masks `newPassword`, `password_confirmation`
    /// and `current-password`; `token` masks `auth_token` and `refreshToken`; `api_key` masks
    /// `X-Api-Key` and `stripeApiKey`. A word is never matched inside a longer one: `pin` does
    /// not mask `shipping`. A name where a descriptor follows the word (`token_type`,
    /// `password_expires_at`, `secret_name`, `cvc_check`) is kept; one that only mentions a
    /// secret (a plural, more words after it, a question: `max_tokens`, `tokens_used`,
    /// `hadAuthorization`) keeps numbers and booleans, unless the word's secrets are numbers
    /// (`password_confirmation`, `pin_code`).
    package static let defaultSensitiveWords: Set<String> = [
        "password", "passwords", "passwd", "pwd", "passphrase", "passcode", "secret", "secrets", "token", "tokens", "otp",
        "ssn", "cvv", "cvc", "pin", "api_key", "api_keys", "private_key", "secret_key", "access_key", "signing_key",
        "encryption_key", "session_id", "session_key", "card_number", "authorization", "auth_code", "device_code",
        "cookie", "csrf", "xsrf", "jwt",
    ]

    /// The level.
    public var level: Level
    /// Extra header names always masked (normalized to lowercase).
    package private(set) var sensitiveHeaderNames: Set<String>
    /// Header names never masked unless also listed as sensitive (lowercase).
    package private(set) var allowedHeaderNames: Set<String>
    /// Extra query item names whose values are always masked (normalized like body keys).
    package private(set) var sensitiveQueryNames: Set<String>
    /// Query item names never masked unless also listed as sensitive (normalized like body keys).
    package private(set) var allowedQueryNames: Set<String>
    /// Extra body keys whose values are always masked (normalized).
    package private(set) var sensitiveBodyKeys: Set<String>
    /// Body keys never masked unless also listed as sensitive (normalized).
    package private(set) var allowedBodyKeys: Set<String>

    /// Creates a redactor; every list is matched case-insensitively.
    ///
    /// - Parameters:
    ///   - level: How much is masked; `.standard` by default.
    ///   - sensitiveHeaderNames: Extra header names always masked, matched as words.
    ///   - allowedHeaderNames: Header names never masked unless also sensitive; by default
    ///     ``defaultAllowedHeaderNamesAtStrict``, which matters at `.strict`.
    ///   - sensitiveQueryNames: Extra query item names whose values are always masked.
    ///   - allowedQueryNames: Query item names never masked unless also sensitive.
    ///   - sensitiveBodyKeys: Extra body keys whose values are always masked, matched as words.
    ///   - allowedBodyKeys: Body keys never masked unless also sensitive, matched whole.
    public init(
        level: Level = .standard,
        sensitiveHeaderNames: Set<String> = [],
        allowedHeaderNames: Set<String> = Redactor.defaultAllowedHeaderNamesAtStrict,
        sensitiveQueryNames: Set<String> = [],
        allowedQueryNames: Set<String> = [],
        sensitiveBodyKeys: Set<String> = [],
        allowedBodyKeys: Set<String> = []
    ) {
        self.level = level
        self.sensitiveHeaderNames = Set(sensitiveHeaderNames.map(Self.normalizedName))
        self.allowedHeaderNames = Set(allowedHeaderNames.map(Self.normalizedName))
        self.sensitiveQueryNames = Set(sensitiveQueryNames.map(Self.normalizedKey))
        self.allowedQueryNames = Set(allowedQueryNames.map(Self.normalizedKey))
        self.sensitiveBodyKeys = Set(sensitiveBodyKeys.map(Self.normalizedKey))
        self.allowedBodyKeys = Set(allowedBodyKeys.map(Self.normalizedKey))
        lists = NameLists(
            sensitiveHeaderNames: sensitiveHeaderNames, allowedHeaderNames: allowedHeaderNames,
            sensitiveQueryNames: sensitiveQueryNames, allowedQueryNames: allowedQueryNames,
            sensitiveBodyKeys: sensitiveBodyKeys, allowedBodyKeys: allowedBodyKeys
        )
    }

    /// The configured lists as matchers, built once.
    private let lists: NameLists

    /// Where names that read as secrets' hold ordinary content, as the policy's interpreters
    /// know it (``NameExceptions``); none by default. Not part of the redactor's equality.
    package var nameExceptions: NameExceptions {
        get { exceptions.value }
        set { exceptions.value = newValue }
    }

    private var exceptions = Uncompared(value: NameExceptions.none)

    /// What the lists and the level say about names; one reference to copy.
    var nameRules: NameRules { NameRules(lists: lists, level: level) }

    /// A redactor that keeps everything; for local development only.
    public static let none = Redactor(level: .none)
    /// The default redactor: known-sensitive items masked.
    public static let standard = Redactor(level: .standard)
    /// A redactor that masks everything outside its allowlists.
    public static let strict = Redactor(level: .strict)

    // MARK: Headers

    /// Whether the value of the header with this name is masked, when it is text: a name that
    /// only mentions a secret (`X-RateLimit-Remaining-Tokens`) keeps a number.
    package func masksHeader(named name: String) -> Bool {
        masks(name, as: .header)
    }

    /// A header's value as events and sinks show it: ``mask`` when the name is masked.
    /// Otherwise, unless the level is `.none`:
    /// - A URL gets the URL rules: `Location`, `Content-Location` and `Referer`, the URL of a
    ///   `Refresh` (`5; url=…`), and any value that is an absolute `http` or `https` URL.
    /// - `baggage` and `tracestate` keep their keys and lose every value (W3C lists carry
    ///   user data: `userId=…`).
    /// - `Sec-WebSocket-Protocol` is read entry by entry: a token offered as a subprotocol (a
    ///   JWT, Kubernetes' `base64url.bearer.authorization.k8s.io.<token>`) is masked, and
    ///   protocol names are kept.
    /// - Every other value gets the text rules (``redactedText(_:)``): a credential under any
    ///   name (`Bearer …`, `Basic …`, a JWT), the URLs of a `Link`, `token=…` pairs.
    ///
    /// - Parameters:
    ///   - value: The header's value.
    ///   - name: The header's name, compared without case.
    /// - Returns: The value as it may be shown.
    public func redactedHeaderValue(_ value: String, name: String) -> String {
        if valueRule(for: name, as: .header).masks(text: value.utf8) { return Self.mask }
        guard level != .none else { return value }
        switch Self.normalizedName(name) {
        case "location", "content-location", "referer": return redactedURL(string: value)
        case "refresh": return redactedRefresh(value)
        case "baggage", "tracestate": return Self.maskingListValues(value)
        case "sec-websocket-protocol": return redactedSubprotocols(value)
        default:
            if Self.isAbsoluteHTTPURL(value) { return redactedURL(string: value) }
            return textRulesMayChange(value) ? redactedText(value) : value
        }
    }

    /// A header's name as events and sinks show it: the text rules (``redactedText(_:)``), as
    /// at `.standard` whatever the level but `.none`, for a name that holds more than a name:
    /// a line pasted whole (`X-Debug-Authorization: Bearer …` becomes
    /// `X-Debug-Authorization: Bearer [REDACTED]`), a provider key or a JWT used as a name.
    ///
    /// Ordinary names (`Content-Type`, `X-Request-Id`) cost one scan that changes nothing. At
    /// `.strict` a name is not masked for looking random, as `X-Amz-Content-Sha256` would be:
    /// names are chosen by programs, and the value beside it is masked anyway.
    package func redactedHeaderName(_ name: String) -> String {
        guard level != .none else { return name }
        var rules = self
        if rules.level == .strict { rules.level = .standard }
        return rules.textRulesMayChange(name) ? rules.redactedText(name) : name
    }

    /// A WebSocket handshake's subprotocol list, entry by entry: a token sent as a protocol
    /// (Kubernetes' `base64url.bearer.authorization.k8s.io.<token>`) is masked after its
    /// prefix, and any other entry gets the text rules, so a JWT offered as a protocol is
    /// masked and a name such as `graphql-transport-ws` is kept.
    private func redactedSubprotocols(_ value: String) -> String {
        let bearerPrefix = "base64url.bearer.authorization.k8s.io."
        return value.split(separator: ",", omittingEmptySubsequences: false).map { entry -> String in
            let name = entry.trimmingCharacters(in: .whitespaces)
            let lead = entry.prefix { $0 == " " || $0 == "\t" }
            if name.lowercased().hasPrefix(bearerPrefix), name.count > bearerPrefix.count {
                return lead + name.prefix(bearerPrefix.count) + Self.mask
            }
            return textRulesMayChange(String(entry)) ? redactedText(String(entry)) : String(entry)
        }.joined(separator: ",")
    }

    /// A `Refresh` value (`5; url=https://…`) with its URL redacted by the URL rules.
    private func redactedRefresh(_ value: String) -> String {
        guard let range = value.range(of: "url=", options: .caseInsensitive) else { return redactedText(value) }
        var url = value[range.upperBound...].trimmingCharacters(in: .whitespaces)
        let quote = url.first.flatMap { $0 == "\"" || $0 == "'" ? $0 : nil }
        if let quote, url.last == quote, url.count >= 2 { url = String(url.dropFirst().dropLast()) }
        let redacted = redactedURL(string: url)
        return value[..<range.upperBound] + (quote.map { "\($0)\(redacted)\($0)" } ?? redacted)
    }

    /// A W3C list (`baggage`, `tracestate`) with each member's key and property names kept
    /// and every value after `=` masked: `userId=[REDACTED];prop=[REDACTED],lang=[REDACTED]`.
    static func maskingListValues(_ value: String) -> String {
        value.split(separator: ",", omittingEmptySubsequences: false).map { member in
            member.split(separator: ";", omittingEmptySubsequences: false).map { part in
                guard let equals = part.firstIndex(of: "=") else { return String(part) }
                return part[..<equals] + "=" + mask
            }.joined(separator: ";")
        }.joined(separator: ",")
    }

    /// Whether the whole value is an absolute `http` or `https` URL.
    private static func isAbsoluteHTTPURL(_ value: String) -> Bool {
        let utf8 = value.utf8.drop { $0 == 0x20 }
        let scheme = utf8.prefix(8).map { $0 | 0x20 }
        guard scheme.starts(with: "http://".utf8) || scheme.starts(with: "https://".utf8) else { return false }
        return !utf8.reversed().drop { $0 == 0x20 }.contains { $0 <= 0x20 }
    }

    /// Whether ``redactedHeaderValue(_:name:)`` can change any value: `false` at `.none` with no
    /// extra sensitive names, so callers can skip the pass.
    package var redactsHeaders: Bool {
        level != .none || !sensitiveHeaderNames.isEmpty
    }

    // MARK: Metadata

    /// Request metadata with each value masked when its key is a sensitive name (as a header,
    /// a query item or a body key), and otherwise scrubbed like free text
    /// (``redactedText(_:)``). Keys are kept, unless a key is itself shaped like a secret (a
    /// JWT, or a random-looking word of 16 bytes or more, as a careless `[token: "1"]` makes):
    /// such a key becomes `redacted_key` (then `redacted_key_2`, …, in the keys' order), a name
    /// every log format accepts, and its value ``mask``. (At `.strict` every value is masked.)
    package func redactedMetadata(_ metadata: [String: String]) -> [String: String] {
        guard level != .none || !sensitiveHeaderNames.isEmpty || !sensitiveQueryNames.isEmpty || !sensitiveBodyKeys.isEmpty
        else { return metadata }
        var result: [String: String] = [:]
        result.reserveCapacity(metadata.count)
        // Renamed in the keys' order, so the names are stable.
        let secretKeys = level == .none ? [] : metadata.keys.filter(Self.isSecretShaped).sorted()
        for (number, _) in secretKeys.enumerated() {
            result[number == 0 ? "redacted_key" : "redacted_key_\(number + 1)"] = Self.mask
        }
        for (key, value) in metadata where !secretKeys.contains(key) {
            if valueRuleAsAnyKind(for: key).masks(text: value.utf8) {
                result[key] = Self.mask
            } else {
                result[key] = redactedText(value)
            }
        }
        return result
    }

    // MARK: Names

    /// Whether the value of the query item with this (percent-decoded) name is masked, when it
    /// is text (`max_tokens=256` keeps its number).
    ///
    /// Query names are compared like body keys, by their letters and digits, so `accessToken`
    /// and `access_token` are one name.
    package func masksQueryItem(named name: String) -> Bool {
        masks(name, as: .query)
    }

    /// Whether a string value of the body field with this key is masked. Numbers and booleans
    /// are kept under a key that only mentions a secret (`max_tokens`, `hadAuthorization`,
    /// `tokens_used`), and masked under one that holds it (`password`, `pin`, `access_token`).
    package func masksBodyKey(_ key: String) -> Bool {
        masks(key, as: .body)
    }

    func masks(_ name: String, as kind: NameKind) -> Bool {
        valueRule(for: name, as: kind).masksAnything
    }

    /// What a name of one kind says of its values (see ``ValueRule``).
    func valueRule(for name: String, as kind: NameKind) -> ValueRule {
        let rules = nameRules
        return NameKey.with(name) { rules.valueRule(for: $0, as: kind) }
    }

    /// A header name as names are compared: trimmed, lowercased, `_` read as `-`.
    static func normalizedName(_ name: String) -> String {
        String(name.trimmingCharacters(in: .whitespaces).lowercased().map { $0 == "_" ? "-" : $0 })
    }

    /// A body key or query name as the lists keep it: lowercased, `_`, `-` and spaces dropped.
    static func normalizedKey(_ key: String) -> String {
        String(String.UnicodeScalarView(key.lowercased().unicodeScalars.filter { !"_- ".unicodeScalars.contains($0) }))
    }
}
