/// Which names a masker masks: one kind's rules or any kind's, and, for URLs, a blank name.
///
/// A raw name of plain bytes is judged in place, without a copy; any other is decoded first
/// (``Redactor/formDecoded(_:)``) and judged whole and by its parts.
struct NameTest {
    let rules: NameRules
    /// The kind whose rules apply; `nil` masks a name that any kind masks.
    let kind: NameKind?
    /// Whether a blank name (`?=...`, `?%00=...`) is masked: nothing says what its value is.
    let masksBlank: Bool

    /// The URL rules' names: query names, and a blank name unless the level is `.none`.
    static func urlNames(_ redactor: Redactor) -> NameTest {
        NameTest(rules: redactor.nameRules, kind: .query, masksBlank: redactor.level != .none)
    }

    /// The names of a form body's fields (and of multipart parts): a form is a query sent as
    /// a body, so a name is masked as a query item's or a body key's (`code`, `sig`, `key` of
    /// an OAuth or a signed form, as well as `password`).
    static func formKeys(_ redactor: Redactor) -> NameTest {
        NameTest(rules: redactor.nameRules, kind: nil, masksBlank: false)
    }

    /// A name masked as any kind, as free text names them.
    static func anyKind(_ redactor: Redactor) -> NameTest {
        NameTest(rules: redactor.nameRules, kind: nil, masksBlank: false)
    }

    /// Whether a raw name masks text values.
    func masks(raw name: ArraySlice<UInt8>) -> Bool {
        rule(raw: name).masksAnything
    }

    /// What a raw name says of its values. A name of letters, digits, `_`, `-` and spaces is
    /// matched as it is, without decoding or copying; any other is decoded (percent escapes,
    /// `+`, JSON's `\u` escapes) and matched by its parts too.
    func rule(raw name: ArraySlice<UInt8>) -> ValueRule {
        var isPlain = true, isDecoded = true
        for byte in name where !PairMasker.isPlainNameByte(byte) {
            isPlain = false
            // Nothing to decode or drop: no escape, no `+`, no control or non-ASCII byte.
            if byte == PairMasker.ASCII.percent || byte == PairMasker.ASCII.plus || byte == PairMasker.ASCII.backslash || byte < 0x20
                || byte >= 0x7F
            {
                isDecoded = false
                break
            }
        }
        if isPlain { return rule(decoded: name) }
        if isDecoded { return rule(formKey: name) }
        let (decoded, isFullyDecoded) = Redactor.decodedNameBytes(name)
        return isFullyDecoded ? rule(formKey: decoded[...]) : .maskEvery
    }

    /// Whether a form key, already decoded, masks text values.
    func masks(formKey name: ArraySlice<UInt8>) -> Bool {
        rule(formKey: name).masksAnything
    }

    /// What a form key, already decoded, says of its values: the strongest rule of it and of
    /// its parts (``Redactor/forEachNamePart(of:_:)``).
    func rule(formKey name: ArraySlice<UInt8>) -> ValueRule {
        var rule = rule(decoded: name)
        guard rule != .maskEvery else { return rule }
        _ = Redactor.forEachNamePart(of: name) { part in
            rule = rule.union(self.rule(decoded: part))
            return rule == .maskEvery
        }
        return rule
    }

    /// What a decoded name, as UTF-8 bytes, says of its values; ASCII is read in place.
    private func rule(decoded name: ArraySlice<UInt8>) -> ValueRule {
        if masksBlank, name.allSatisfy({ $0 == PairMasker.ASCII.space }) { return .maskEvery }
        guard name.allSatisfy({ $0 < 0x80 }) else { return NameKey.with(String(decoding: name, as: UTF8.self), rule) }
        return name.withUnsafeBufferPointer { bytes in NameKey.with(utf8: bytes, rule) }
    }

    private func rule(_ key: NameKey) -> ValueRule {
        guard let kind else { return rules.valueRuleAsAnyKind(key) }
        return rules.valueRule(for: key, as: kind)
    }
}
