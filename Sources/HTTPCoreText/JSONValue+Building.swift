extension JSONValue {
    /// A whole number, spelled as Swift prints it.
    package static func integer(_ value: Int) -> JSONValue {
        .number(Double(value), text: String(value))
    }

    /// The value a JSON writer writes, read back as a tree: how a document built from
    /// values joins something that only knows how to write itself, so the writer stays its
    /// one spelling. `.null` when `write` writes no single JSON value.
    package init(writtenBy write: (inout JSONWriter) -> Void) {
        var writer = JSONWriter()
        write(&writer)
        self = writer.bytes.withUnsafeBufferPointer { bytes in
            var parser = JSONParser(bytes: bytes, maximumDepth: Self.defaultMaximumDepth, keptKeys: nil, options: [])
            return (try? parser.parseDocument()) ?? .null
        }
    }

    /// This object with `members` appended; other values are returned as they are.
    package func adding(_ members: [(key: String, value: JSONValue)]) -> JSONValue {
        guard case .object(let existing) = self else { return self }
        return .object(existing + members)
    }
}

extension JSONValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByBooleanLiteral {
    package init(stringLiteral value: String) { self = .string(value) }
    package init(integerLiteral value: Int) { self = .integer(value) }
    package init(booleanLiteral value: Bool) { self = .bool(value) }
}

extension JSONValue: ExpressibleByArrayLiteral {
    package init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
}

extension JSONValue: ExpressibleByDictionaryLiteral {
    /// An object whose members keep the literal's order.
    package init(dictionaryLiteral elements: (String, JSONValue)...) {
        self = .object(elements.map { (key: $0.0, value: $0.1) })
    }
}
