/// What a name is the name of; each kind has its own lists.
enum NameKind: Sendable, Hashable, CaseIterable {
    case header, query, body
}

/// What the lists say about one name.
enum NameRule {
    /// Every value is masked, whatever its type.
    case mask
    /// Text is masked; a number or a boolean is kept.
    case maskText
    /// Kept, whatever the level.
    case keep
    /// The level decides: kept at `.standard`, masked at `.strict`.
    case levelDecides
}

/// What a name says of the values under it, the level applied: the engine's one decision on
/// a value by its name.
///
/// | Name | Example | Values masked |
/// |---|---|---|
/// | configured sensitive, as a word | `email`, `billingEmail` | every value |
/// | configured allowed, whole | `code` | none |
/// | a built-in whole name | `password`, `token`, `pin`, `api_key` | every value |
/// | a built-in word ends it | `access_token`, `idToken`, `newPassword`, `card_pin` | every value |
/// | a descriptor follows the word | `token_type`, `token_count`, `password_expires_at` | none |
/// | a question or a quantity of one | `hadAuthorization`, `has_password`, `max_token` | text only |
/// | other words follow, or a plural | `tokens_used`, `max_tokens`, `api_keys` | text only |
/// | … of a word whose secrets are numbers | `password_confirmation`, `pin_code`, `otp_value` | every value |
/// | anything else | `id`, `name`, `tokenizer` | none (every value at `.strict`) |
///
/// `null` is kept under every name at `.standard`: it is no value. Text is a JSON string, and
/// any header, query, form, XML or free-text value that is not a number (`256`, `-1.5e3`),
/// a duration (`6m0s`) or a boolean (`true`, `false`).
enum ValueRule: Sendable, Hashable {
    /// Every value is masked, whatever its type.
    case maskEvery
    /// Text is masked; numbers and booleans keep their value and type.
    case maskText
    /// Nothing is masked by name.
    case keep

    /// Whether a JSON scalar of this kind is masked.
    func masks(_ kind: JSONScalarKind) -> Bool {
        switch self {
        case .maskEvery: kind != .null
        case .maskText: kind == .string
        case .keep: false
        }
    }

    /// Whether a value given as text (a header, query, form, XML or free-text value) is masked:
    /// under ``maskText``, a number or a boolean is kept.
    func masks<Bytes: Collection<UInt8>>(text value: Bytes) -> Bool {
        switch self {
        case .maskEvery: true
        case .maskText: !Self.isNumberOrBoolean(value)
        case .keep: false
        }
    }

    /// Whether the rule masks anything.
    var masksAnything: Bool { self != .keep }

    /// The stronger of two rules.
    func union(_ other: ValueRule) -> ValueRule {
        switch (self, other) {
        case (.maskEvery, _), (_, .maskEvery): .maskEvery
        case (.maskText, _), (_, .maskText): .maskText
        default: .keep
        }
    }

    /// A JSON number (`256`, `-1.5e3`), a duration (`6m0s`, `20ms`, `1.5h`, as rate-limit
    /// headers write them), or `true` / `false` in any case.
    static func isNumberOrBoolean<Bytes: Collection<UInt8>>(_ value: Bytes) -> Bool {
        isNumber(value) || isDuration(value) || isBoolean(value)
    }

    /// Numbers each followed by a unit: `ns`, `us`, `ms`, `s`, `m`, `h`.
    private static func isDuration<Bytes: Collection<UInt8>>(_ value: Bytes) -> Bool {
        var sawUnit = false, sawDigit = false
        var index = value.startIndex
        while index != value.endIndex {
            let byte = value[index]
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "."):
                sawDigit = true
                sawUnit = false
            case UInt8(ascii: "n"), UInt8(ascii: "u"), UInt8(ascii: "m"):
                guard sawDigit else { return false }
                let next = value.index(after: index)
                if next != value.endIndex, value[next] == UInt8(ascii: "s") {
                    index = next
                } else if byte != UInt8(ascii: "m") {
                    return false
                }
                sawUnit = true
                sawDigit = false
            case UInt8(ascii: "s"), UInt8(ascii: "h"):
                guard sawDigit else { return false }
                sawUnit = true
                sawDigit = false
            default: return false
            }
            value.formIndex(after: &index)
        }
        return sawUnit && !sawDigit
    }

    private static func isBoolean<Bytes: Collection<UInt8>>(_ value: Bytes) -> Bool {
        guard let first = value.first, first | 0x20 == UInt8(ascii: "t") || first | 0x20 == UInt8(ascii: "f") else { return false }
        let lowered = value.lazy.map { $0 | 0x20 }
        return lowered.elementsEqual("true".utf8) || lowered.elementsEqual("false".utf8)
    }

    private static func isNumber<Bytes: Collection<UInt8>>(_ value: Bytes) -> Bool {
        guard !value.isEmpty else { return false }
        var sawDigit = false
        var index = value.startIndex
        if value[index] == UInt8(ascii: "-") { value.formIndex(after: &index) }
        var sawDot = false, sawExponent = false
        while index != value.endIndex {
            let byte = value[index]
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): sawDigit = true
            case UInt8(ascii: ".") where !sawDot && !sawExponent && sawDigit: sawDot = true
            case UInt8(ascii: "e"), UInt8(ascii: "E"):
                guard sawDigit, !sawExponent else { return false }
                sawExponent = true
                sawDigit = false
                let next = value.index(after: index)
                if next != value.endIndex, value[next] == UInt8(ascii: "-") || value[next] == UInt8(ascii: "+") { index = next }
            default: return false
            }
            value.formIndex(after: &index)
        }
        return sawDigit
    }
}

/// The kind of a JSON scalar value.
enum JSONScalarKind: Sendable, Hashable {
    case string, number, boolean, null
}

/// What a redactor's lists and level say about names. Cheap to copy: one reference.
///
/// A configured sensitive name is masked; then an allowed name is kept; then the built-in
/// names mask (at `.standard` and `.strict`); otherwise the level decides.
struct NameRules: Sendable {
    let lists: NameLists
    let level: Redactor.Level

    func rule(for key: NameKey, as kind: NameKind) -> NameRule {
        rule(for: key, as: kind, headerWords: kind == .header, wordRule: nil)
    }

    /// The rule, with the header-only words (`key`, `session`, …) or without them; `wordRule`
    /// is the built-in words' rule when already known (it is the same for every kind).
    private func rule(for key: NameKey, as kind: NameKind, headerWords: Bool, wordRule: NameRule?) -> NameRule {
        let lists = lists
        if lists.sensitive(kind).matches(key) { return .mask }
        if lists.allowed(kind).matchesWhole(key) { return .keep }
        guard level != .none else { return .levelDecides }
        if lists.builtIn(kind).matchesWhole(key) { return .mask }
        var rule = wordRule ?? builtInWordRule(key)
        if headerWords, rule != .mask, !key.looksGenerated, !lists.builtInHeaderWordExemptions.matchesWhole(key) {
            let headerRule = Self.rule(for: lists.builtInHeaderWords.wordMatch(key, pluralWords: NameLists.pluralWords), key, lists)
            if headerRule != .levelDecides { rule = headerRule }
        }
        return rule
    }

    /// The rule the built-in words make of a name, the same for every kind. A name that reads
    /// as a generated value (``NameKey/looksGenerated``) has no words to match.
    private func builtInWordRule(_ key: NameKey) -> NameRule {
        guard !key.looksGenerated else { return .levelDecides }
        return Self.rule(for: lists.builtInWords.wordMatch(key, pluralWords: NameLists.pluralWords), key, lists)
    }

    /// The rule a built-in word match makes.
    private static func rule(for match: NameMatcher.WordMatch, _ key: NameKey, _ lists: NameLists) -> NameRule {
        switch match {
        case .none, .describes: .levelDecides
        case .holds: .mask
        case .mentions: lists.numericSecretWords.matches(key) && !isQuestion(key) ? .mask : .maskText
        }
    }

    /// Whether the name's first word asks about, or counts, what follows (`hasPassword`).
    private static func isQuestion(_ key: NameKey) -> Bool {
        let letters = key.letters
        var firstEnd = 1
        while firstEnd < letters.count, !key.wordStarts[firstEnd] { firstEnd += 1 }
        return firstEnd < letters.count && NameMatcher.predicateWords.contains(UnsafeBufferPointer(rebasing: letters[0..<firstEnd]))
    }

    /// The value rule of a name of one kind, the level applied.
    func valueRule(for key: NameKey, as kind: NameKind) -> ValueRule {
        valueRule(for: key, as: kind, headerWords: kind == .header, wordRule: nil)
    }

    private func valueRule(for key: NameKey, as kind: NameKind, headerWords: Bool, wordRule: NameRule?) -> ValueRule {
        switch rule(for: key, as: kind, headerWords: headerWords, wordRule: wordRule) {
        case .mask: .maskEvery
        case .maskText: .maskText
        case .keep: .keep
        case .levelDecides: level == .strict ? .maskEvery : .keep
        }
    }

    /// The value rule of a name read as a header, a query item or a body key, whichever
    /// masks most; the header-only words (`key`, `session`) are left out, since in free text
    /// and metadata they name ordinary data (`NSErrorFailingURLKey`).
    func valueRuleAsAnyKind(_ key: NameKey) -> ValueRule {
        // The built-in words are matched once; the kinds written out rather than over
        // `allCases`, which would build an array per name.
        let wordRule = level == .none ? NameRule.levelDecides : builtInWordRule(key)
        let body = valueRule(for: key, as: .body, headerWords: false, wordRule: wordRule)
        guard body != .maskEvery else { return body }
        return body.union(valueRule(for: key, as: .query, headerWords: false, wordRule: wordRule))
            .union(valueRule(for: key, as: .header, headerWords: false, wordRule: wordRule))
    }

    /// Whether the name masks text as a header, a query item or a body key.
    func masksAsAnyKind(_ key: NameKey) -> Bool {
        valueRuleAsAnyKind(key).masksAnything
    }

    /// Whether a text value under this name is masked, as one kind.
    func masks(_ key: NameKey, as kind: NameKind) -> Bool {
        valueRule(for: key, as: kind).masksAnything
    }
}

/// A redactor's configured name lists as matchers, built once with the redactor.
final class NameLists: Sendable, Hashable {
    private let sensitiveHeaderNames, sensitiveQueryNames, sensitiveBodyKeys: NameMatcher
    private let allowedHeaderNames, allowedQueryNames, allowedBodyKeys: NameMatcher

    init(
        sensitiveHeaderNames: Set<String>, allowedHeaderNames: Set<String>,
        sensitiveQueryNames: Set<String>, allowedQueryNames: Set<String>,
        sensitiveBodyKeys: Set<String>, allowedBodyKeys: Set<String>
    ) {
        self.sensitiveHeaderNames = NameMatcher(wordNames: sensitiveHeaderNames)
        self.sensitiveQueryNames = NameMatcher(wordNames: sensitiveQueryNames)
        self.sensitiveBodyKeys = NameMatcher(wordNames: sensitiveBodyKeys)
        self.allowedHeaderNames = NameMatcher(wholeNames: allowedHeaderNames)
        self.allowedQueryNames = NameMatcher(wholeNames: allowedQueryNames)
        self.allowedBodyKeys = NameMatcher(wholeNames: allowedBodyKeys)
    }

    /// The built-in matchers, held by every instance so that a lookup reads a field, not a
    /// global behind a once-check.
    private let builtInHeaderNames = NameLists.sharedBuiltInHeaderNames
    private let builtInQueryNames = NameLists.sharedBuiltInQueryNames
    private let builtInBodyKeys = NameLists.sharedBuiltInBodyKeys
    /// The built-in words, shared by every kind.
    let builtInWords = NameLists.sharedBuiltInWords
    /// The built-in words of header names only.
    let builtInHeaderWords = NameLists.sharedBuiltInHeaderWords
    /// Standard headers whose names carry a header word but whose values are no secret: the
    /// WebSocket handshake's nonce and its answer.
    let builtInHeaderWordExemptions = NameLists.sharedBuiltInHeaderWordExemptions

    func sensitive(_ kind: NameKind) -> NameMatcher {
        switch kind {
        case .header: sensitiveHeaderNames
        case .query: sensitiveQueryNames
        case .body: sensitiveBodyKeys
        }
    }

    func allowed(_ kind: NameKind) -> NameMatcher {
        switch kind {
        case .header: allowedHeaderNames
        case .query: allowedQueryNames
        case .body: allowedBodyKeys
        }
    }

    /// The built-in whole names of a kind.
    func builtIn(_ kind: NameKind) -> NameMatcher {
        switch kind {
        case .header: builtInHeaderNames
        case .query: builtInQueryNames
        case .body: builtInBodyKeys
        }
    }

    private static let sharedBuiltInHeaderNames = NameMatcher(wholeNames: Redactor.defaultSensitiveHeaderNames)
    private static let sharedBuiltInQueryNames = NameMatcher(wholeNames: Redactor.defaultSensitiveQueryNames)
    private static let sharedBuiltInBodyKeys = NameMatcher(wholeNames: Redactor.defaultSensitiveBodyKeys)
    private static let sharedBuiltInWords = NameMatcher(wordNames: Redactor.defaultSensitiveWords)
    private static let sharedBuiltInHeaderWords = NameMatcher(wordNames: Redactor.defaultSensitiveHeaderWords)
    /// Built-in words whose secrets are often numbers (a PIN, a card number), so a name that
    /// only mentions one still masks every value: `password_confirmation`, `pin_code`.
    let numericSecretWords = NameLists.sharedNumericSecretWords
    /// Plurals among the built-in words: a name they end counts or lists (`max_tokens`).
    static let pluralWords = FlatNames(["tokens", "passwords", "secrets", "apikeys", "cookies"].map { Array($0.utf8) })

    private static let sharedNumericSecretWords = NameMatcher(wordNames: [
        "password", "passwords", "passwd", "pwd", "passphrase", "passcode", "pin", "otp", "cvv", "cvc", "ssn", "card_number",
    ])
    private static let sharedBuiltInHeaderWordExemptions = NameMatcher(wholeNames: ["sec-websocket-key", "sec-websocket-accept"])

    static func == (left: NameLists, right: NameLists) -> Bool {
        left === right || NameKind.allCases.allSatisfy { left.sensitive($0) == right.sensitive($0) && left.allowed($0) == right.allowed($0) }
    }

    func hash(into hasher: inout Hasher) {
        for kind in NameKind.allCases {
            hasher.combine(sensitive(kind))
            hasher.combine(allowed(kind))
        }
    }
}
