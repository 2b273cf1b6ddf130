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

    /// One member of an object.
    struct Member: Sendable, Equatable {
        let name: String
        let value: HARJSON
    }

    /// The value as UTF-8 JSON, indented by two spaces per level.
    var serialized: [UInt8] {
        var output: [UInt8] = []
        write(to: &output, indent: 0)
        output.append(UInt8(ascii: "\n"))
        return output
    }

    private func write(to output: inout [UInt8], indent: Int) {
        switch self {
        case .string(let text):
            output.append(contentsOf: JSONString.encode(text))
        case .integer(let value):
            output.append(contentsOf: String(value).utf8)
        case .thousandths(let value):
            output.append(contentsOf: Self.decimal(thousandths: value).utf8)
        case .bool(let value):
            output.append(contentsOf: (value ? "true" : "false").utf8)
        case .array(let elements):
            writeContainer(elements, open: "[", close: "]", to: &output, indent: indent) { element, output in
                element.write(to: &output, indent: indent + 1)
            }
        case .object(let members):
            writeContainer(members, open: "{", close: "}", to: &output, indent: indent) { member, output in
                output.append(contentsOf: JSONString.encode(member.name))
                output.append(contentsOf: ": ".utf8)
                member.value.write(to: &output, indent: indent + 1)
            }
        }
    }

    private func writeContainer<Element>(
        _ elements: [Element], open: Unicode.Scalar, close: Unicode.Scalar, to output: inout [UInt8], indent: Int,
        writeElement: (Element, inout [UInt8]) -> Void
    ) {
        output.append(UInt8(ascii: open))
        guard !elements.isEmpty else { return output.append(UInt8(ascii: close)) }
        for (index, element) in elements.enumerated() {
            output.append(contentsOf: (index == 0 ? "\n" : ",\n").utf8)
            output.append(contentsOf: repeatElement(UInt8(ascii: " "), count: 2 * (indent + 1)))
            writeElement(element, &output)
        }
        output.append(UInt8(ascii: "\n"))
        output.append(contentsOf: repeatElement(UInt8(ascii: " "), count: 2 * indent))
        output.append(UInt8(ascii: close))
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
