import Foundation
import HTTPCoreText

/// A JSON object read by key: the one place the GenAI readers turn parsed JSON
/// (``JSONValue``) into typed values, `nil` for a key that is absent, `null` or of another type.
struct JSONObject: Sendable {
    private let members: [(key: String, value: JSONValue)]

    /// The deepest nesting read: LLM bodies nest a few levels, and the readers run on the
    /// client's threads, so the bound is tighter than ``JSONValue/defaultMaximumDepth``.
    static let maximumDepth = 64

    /// The object in `data`; `nil` when `data` is not a JSON object (an array's first
    /// element is taken when `takesFirstOfArray`, for bodies such as TGI's `[{…}]`).
    init?(data: Data, takesFirstOfArray: Bool = false) {
        guard let first = data.first(where: { !Self.isWhitespace($0) }),
            first == UInt8(ascii: "{") || (takesFirstOfArray && first == UInt8(ascii: "[")),
            let value = try? JSONValue.parse(data, maximumDepth: Self.maximumDepth)
        else { return nil }
        switch value {
        case .object(let fields): self.members = fields
        case .array(let elements) where takesFirstOfArray:
            guard case .object(let fields) = elements.first else { return nil }
            self.members = fields
        default: return nil
        }
    }

    init?(_ value: JSONValue?) {
        guard case .object(let fields) = value else { return nil }
        self.members = fields
    }

    /// The value of `key`; the last one when a key repeats, as in a dictionary.
    private subscript(_ key: String) -> JSONValue? {
        members.last { $0.key == key }?.value
    }

    /// Whether `key` holds a value other than `null`.
    func has(_ key: String) -> Bool {
        switch self[key] {
        case nil, .null: false
        default: true
        }
    }

    /// Whether `key` holds content: a non-empty string, array or object. Servers that copy
    /// OpenAI send `"tool_calls": []` or `"content": ""` on deltas that carry nothing.
    func hasContent(_ key: String) -> Bool {
        switch self[key] {
        case .string(let text): !text.isEmpty
        case .array(let elements): !elements.isEmpty
        case .object(let members): !members.isEmpty
        default: false
        }
    }

    func object(_ key: String) -> JSONObject? { JSONObject(self[key]) }

    func objects(_ key: String) -> [JSONObject]? {
        guard case .array(let elements) = self[key] else { return nil }
        return elements.compactMap(JSONObject.init)
    }

    func string(_ key: String) -> String? {
        guard case .string(let text) = self[key] else { return nil }
        return text
    }

    func bool(_ key: String) -> Bool? {
        guard case .bool(let flag) = self[key] else { return nil }
        return flag
    }

    /// An integral number; `nil` for one with a fraction.
    func int(_ key: String) -> Int? {
        guard case .number(let number, _) = self[key], number.rounded() == number, abs(number) < 9e15 else { return nil }
        return Int(number)
    }

    func double(_ key: String) -> Double? {
        guard case .number(let number, _) = self[key] else { return nil }
        return number
    }

    /// A list of strings, or one string as a list of one (`stop` may be either).
    func strings(_ key: String) -> [String]? {
        switch self[key] {
        case .string(let one): [one]
        case .array(let elements):
            elements.compactMap {
                guard case .string(let text) = $0 else { return nil }
                return text
            }
        default: nil
        }
    }

    /// The object at a path of object keys, e.g. `output`, `message`.
    func object(at path: String...) -> JSONObject? {
        var current: JSONObject? = self
        for key in path { current = current?.object(key) }
        return current
    }

    private static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09
    }
}
