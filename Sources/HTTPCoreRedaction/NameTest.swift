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

    /// Body keys, as form bodies name them.
    static func bodyKeys(_ redactor: Redactor) -> NameTest {
        NameTest(rules: redactor.nameRules, kind: .body, masksBlank: false)
    }

    /// A name masked as any kind, as free text names them.
    static func anyKind(_ redactor: Redactor) -> NameTest {
        NameTest(rules: redactor.nameRules, kind: nil, masksBlank: false)
    }

    /// Whether a raw name is masked. A name of letters, digits, `_`, `-` and spaces is matched
    /// as it is, without decoding or copying; any other is decoded and matched by its parts too.
    func masks(raw name: ArraySlice<UInt8>) -> Bool {
        var isPlain = true, isDecoded = true
        for byte in name where !PairMasker.isPlainNameByte(byte) {
            isPlain = false
            // Nothing to decode or drop: no escape, no `+`, no control or non-ASCII byte.
            if byte == PairMasker.ASCII.percent || byte == PairMasker.ASCII.plus || byte < 0x20 || byte >= 0x7F {
                isDecoded = false
                break
            }
        }
        if isPlain { return masks(decoded: name) }
        if isDecoded { return masks(formKey: name) }
        let (decoded, isFullyDecoded) = Redactor.decodedNameBytes(name)
        return !isFullyDecoded || masks(formKey: decoded[...])
    }

    /// Whether a form key, already decoded, is masked by one of ``Redactor/formKeyCandidates(_:)``.
    func masks(formKey name: ArraySlice<UInt8>) -> Bool {
        masks(decoded: name) || Redactor.forEachNamePart(of: name) { masks(decoded: $0) }
    }

    /// Whether a decoded name, as UTF-8 bytes, is masked; ASCII is read in place.
    private func masks(decoded name: ArraySlice<UInt8>) -> Bool {
        if masksBlank, name.allSatisfy({ $0 == PairMasker.ASCII.space }) { return true }
        guard name.allSatisfy({ $0 < 0x80 }) else { return NameKey.with(String(decoding: name, as: UTF8.self), masks) }
        return name.withUnsafeBufferPointer { bytes in NameKey.with(utf8: bytes, masks) }
    }

    private func masks(_ key: NameKey) -> Bool {
        guard let kind else { return rules.masksAsAnyKind(key) }
        return rules.masks(key, as: kind)
    }
}
