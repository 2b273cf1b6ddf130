/// What a name is the name of; each kind has its own lists.
enum NameKind: Sendable, Hashable, CaseIterable {
    case header, query, body
}

/// What the lists say about one name.
enum NameRule {
    case mask, keep, levelDecides
}

/// What a redactor's lists and level say about names. Cheap to copy: one reference.
///
/// A configured sensitive name is masked; then an allowed name is kept; then the built-in
/// names mask (at `.standard` and `.strict`); otherwise the level decides.
struct NameRules: Sendable {
    let lists: NameLists
    let level: Redactor.Level

    func rule(for key: NameKey, as kind: NameKind) -> NameRule {
        let lists = lists
        if lists.sensitive(kind).matches(key) { return .mask }
        if lists.allowed(kind).matchesWhole(key) { return .keep }
        if level != .none, lists.builtIn(kind).matchesWhole(key) || lists.builtInWords.matches(key, exemptingDescriptors: true)
            || kind == .header && lists.builtInHeaderWords.matches(key, exemptingDescriptors: true)
                && !lists.builtInHeaderWordExemptions.matchesWhole(key)
        {
            return .mask
        }
        return .levelDecides
    }

    /// Whether the name is masked as a header, a query item or a body key; the built-in words,
    /// the same for every kind, are matched once.
    func masksAsAnyKind(_ key: NameKey) -> Bool {
        var matchesWords: Bool?
        func masks(as kind: NameKind) -> Bool {
            let lists = lists
            if lists.sensitive(kind).matches(key) { return true }
            if lists.allowed(kind).matchesWhole(key) || level == .none { return false }
            if level == .strict || lists.builtIn(kind).matchesWhole(key) { return true }
            if matchesWords == nil { matchesWords = lists.builtInWords.matches(key, exemptingDescriptors: true) }
            return matchesWords == true
        }
        // Written out rather than over `allCases`, which would build an array per name.
        return masks(as: .header) || masks(as: .query) || masks(as: .body)
    }

    func masks(_ key: NameKey, as kind: NameKind) -> Bool {
        switch rule(for: key, as: kind) {
        case .mask: true
        case .keep: false
        case .levelDecides: level == .strict
        }
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
