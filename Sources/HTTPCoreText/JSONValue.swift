/// A JSON value (RFC 8259) as Swift values: the package's one JSON tree, which its one reader
/// parses (the dev-see receiver and logger, devsee-tail, the GenAI readers) and HAR files are
/// built of.
///
/// Booleans stay apart from numbers, object members keep their input order, and numbers keep
/// the spelling they were sent, which `JSONSerialization` does not; and reading a value is a
/// `switch`, not the dynamic casts of `JSONSerialization`'s bridged trees.
///
/// ```swift
/// let value = try JSONValue.parse(Data(#"{"model":"gpt-4o","n":2}"#.utf8))
/// value["model"] // .string("gpt-4o")
/// ```
package enum JSONValue: Sendable, Hashable {
    /// `null`.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// A number: its value and its text exactly as it appeared in the input.
    case number(Double, text: String)
    /// A string, escapes resolved.
    case string(String)
    /// An array's elements, in order.
    case array([JSONValue])
    /// An object's members in input order; a repeated key keeps its first position and its
    /// last value, as JavaScript's `JSON.parse` does.
    case object([(key: String, value: JSONValue)])

    package static func == (lhs: JSONValue, rhs: JSONValue) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): true
        case (.bool(let a), .bool(let b)): a == b
        case (.number(let a, let aText), .number(let b, let bText)): a == b && aText == bText
        case (.string(let a), .string(let b)): a == b
        case (.array(let a), .array(let b)): a == b
        case (.object(let a), .object(let b)): a.map(\.key) == b.map(\.key) && a.map(\.value) == b.map(\.value)
        default: false
        }
    }

    package func hash(into hasher: inout Hasher) {
        switch self {
        case .null: hasher.combine(0)
        case .bool(let value): hasher.combine(value)
        case .number(_, let text): hasher.combine(text)
        case .string(let value): hasher.combine(value)
        case .array(let values): hasher.combine(values)
        case .object(let members):
            for member in members {
                hasher.combine(member.key)
                hasher.combine(member.value)
            }
        }
    }

    /// The value of the member named `key`, for objects; `nil` for other values.
    package subscript(key: String) -> JSONValue? {
        guard case .object(let members) = self else { return nil }
        return members.last { $0.key == key }?.value
    }

    /// Sets a member of an object, in place when the key exists, else at the end; does
    /// nothing to other values.
    package mutating func set(_ key: String, _ value: JSONValue) {
        guard case .object(var members) = self else { return }
        if let index = members.firstIndex(where: { $0.key == key }) {
            members[index].value = value
        } else {
            members.append((key, value))
        }
        self = .object(members)
    }

    /// Compact JSON text, escaping as JavaScript's `JSON.stringify` does.
    package var serialized: String {
        String(decoding: serialized(style: .compact), as: UTF8.self)
    }

    /// JSON text as UTF-8, laid out in `style`, escaping as ``serialized`` does.
    package func serialized(style: JSONWriter.Style) -> [UInt8] {
        var writer = JSONWriter(style: style)
        write(to: &writer)
        return writer.bytes
    }

    private func write(to writer: inout JSONWriter) {
        switch self {
        case .null: writer.null()
        case .bool(let value): writer.bool(value)
        case .number(_, let text): writer.raw(text)
        case .string(let value): writer.string(value)
        case .array(let values):
            writer.beginArray()
            for value in values { value.write(to: &writer) }
            writer.endArray()
        case .object(let members):
            writer.beginObject()
            for member in members {
                writer.key(member.key)
                member.value.write(to: &writer)
            }
            writer.endObject()
        }
    }
}
