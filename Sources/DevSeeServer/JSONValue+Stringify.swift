import HTTPCoreText

extension JSONValue {
    /// This value as JavaScript's `JSON.stringify` writes it: a number that is not finite
    /// (what `JSON.parse` reads from `1e400`) becomes `null`, at any depth; `self` when it
    /// holds none, without copying.
    var nonFiniteNumbersAsNull: JSONValue {
        containsNonFiniteNumber ? replacingNonFiniteNumbers() : self
    }

    private var containsNonFiniteNumber: Bool {
        switch self {
        case .number(let value, _): !value.isFinite
        case .array(let values): values.contains { $0.containsNonFiniteNumber }
        case .object(let members): members.contains { $0.value.containsNonFiniteNumber }
        case .null, .bool, .string: false
        }
    }

    private func replacingNonFiniteNumbers() -> JSONValue {
        switch self {
        case .number(let value, _) where !value.isFinite: .null
        case .array(let values): .array(values.map { $0.replacingNonFiniteNumbers() })
        case .object(let members): .object(members.map { ($0.key, $0.value.replacingNonFiniteNumbers()) })
        case .null, .bool, .number, .string: self
        }
    }
}
