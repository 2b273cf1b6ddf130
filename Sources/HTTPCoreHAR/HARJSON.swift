import HTTPCore
import HTTPCoreText

/// A JSON value whose object members keep the order they were written in, so the same
/// exchanges always give the same bytes, with `version` before `entries` as people expect.
enum HARJSON: Sendable, Equatable {
    case string(String)
    case integer(Int)
    /// A number given in thousandths (milliseconds from microseconds), written with up to
    /// three decimals: `12345` is `12.345`, `-1000` is `-1`. Exact, unlike a `Double`.
    case thousandths(Int)
    case bool(Bool)
    case array([HARJSON])
    case object([Member])
    /// A note's attributes, as one object of their names to their values
    /// (``/HTTPCore/HTTPExchangeNote/attributes``).
    case noteAttributes(HTTPExchangeNote)

    /// One member of an object.
    struct Member: Sendable, Equatable {
        let name: String
        let value: HARJSON
    }

    /// The value as UTF-8 JSON, indented by two spaces per level.
    var serialized: [UInt8] {
        var writer = JSONWriter(style: .indented)
        write(to: &writer)
        return writer.bytes + [UInt8(ascii: "\n")]
    }

    private func write(to writer: inout JSONWriter) {
        switch self {
        case .string(let text): writer.string(text)
        case .integer(let value): writer.integer(value)
        case .thousandths(let value): writer.raw(Self.decimal(thousandths: value))
        case .bool(let value): writer.bool(value)
        case .array(let elements):
            writer.beginArray()
            for element in elements { element.write(to: &writer) }
            writer.endArray()
        case .object(let members):
            writer.beginObject()
            for member in members {
                writer.key(member.name)
                member.value.write(to: &writer)
            }
            writer.endObject()
        case .noteAttributes(let note): note.writeAttributes(to: &writer)
        }
    }

    /// `value / 1000` in decimal, without trailing zeros: `12.3`, `0.045`, `-1`.
    static func decimal(thousandths value: Int) -> String {
        let sign = value < 0 ? "-" : ""
        let magnitude = value.magnitude
        let whole = magnitude / 1000
        var fraction = String(magnitude % 1000)
        guard fraction != "0" else { return sign + String(whole) }
        fraction = String(repeating: "0", count: 3 - fraction.count) + fraction
        while fraction.hasSuffix("0") { fraction.removeLast() }
        return "\(sign)\(whole).\(fraction)"
    }
}

extension HARJSON: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByBooleanLiteral {
    init(stringLiteral value: String) { self = .string(value) }
    init(integerLiteral value: Int) { self = .integer(value) }
    init(booleanLiteral value: Bool) { self = .bool(value) }
}

extension HARJSON: ExpressibleByArrayLiteral {
    init(arrayLiteral elements: HARJSON...) { self = .array(elements) }
}

extension HARJSON: ExpressibleByDictionaryLiteral {
    /// An object whose members keep the literal's order.
    init(dictionaryLiteral elements: (String, HARJSON)...) {
        self = .object(elements.map { Member(name: $0.0, value: $0.1) })
    }
}

extension HARJSON {
    /// A `{"name": ..., "value": ...}` object, the shape of HAR headers, cookies and query items.
    static func nameValue(_ name: String, _ value: String) -> HARJSON {
        ["name": .string(name), "value": .string(value)]
    }

    /// An object of `members`, in their order.
    static func object(_ members: [(String, HARJSON)]) -> HARJSON {
        .object(members.map { Member(name: $0.0, value: $0.1) })
    }

    /// This object with `members` appended; other values are returned as they are.
    func adding(_ members: [(String, HARJSON)]) -> HARJSON {
        guard case .object(let existing) = self else { return self }
        return .object(existing + members.map { Member(name: $0.0, value: $0.1) })
    }
}
