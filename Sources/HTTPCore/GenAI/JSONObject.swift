import Foundation

/// A decoded JSON object, as `JSONSerialization` gives it, read by key: the one place the
/// GenAI readers turn `Any` into typed values.
struct JSONObject {
    let fields: [String: Any]

    /// The object in `data`; `nil` when `data` is not a JSON object (an array's first
    /// element is taken when `takesFirstOfArray`, for bodies such as TGI's `[{…}]`).
    init?(data: Data, takesFirstOfArray: Bool = false) {
        guard let first = data.first(where: { !Self.isWhitespace($0) }),
            first == UInt8(ascii: "{") || (takesFirstOfArray && first == UInt8(ascii: "["))
        else { return nil }
        let value = try? JSONSerialization.jsonObject(with: data)
        if let fields = value as? [String: Any] {
            self.fields = fields
        } else if takesFirstOfArray, let fields = (value as? [Any])?.first as? [String: Any] {
            self.fields = fields
        } else {
            return nil
        }
    }

    init?(_ value: Any?) {
        guard let fields = value as? [String: Any] else { return nil }
        self.fields = fields
    }

    func has(_ key: String) -> Bool { fields[key] != nil && !(fields[key] is NSNull) }
    func object(_ key: String) -> JSONObject? { JSONObject(fields[key]) }
    func objects(_ key: String) -> [JSONObject]? { (fields[key] as? [Any])?.compactMap(JSONObject.init) }
    func string(_ key: String) -> String? { fields[key] as? String }
    func bool(_ key: String) -> Bool? { Self.bool(fields[key]) }
    func int(_ key: String) -> Int? { Self.int(fields[key]) }
    func double(_ key: String) -> Double? { Self.double(fields[key]) }

    /// A list of strings, or one string as a list of one (`stop` may be either).
    func strings(_ key: String) -> [String]? {
        if let one = fields[key] as? String { return [one] }
        return (fields[key] as? [Any])?.compactMap { $0 as? String }
    }

    /// The value at a dotted path of object keys, e.g. `usage.prompt_tokens_details`.
    func object(at path: String...) -> JSONObject? {
        var current: JSONObject? = self
        for key in path { current = current?.object(key) }
        return current
    }

    static func bool(_ value: Any?) -> Bool? {
        guard let number = value as? NSNumber, Self.isBoolean(number) else { return nil }
        return number.boolValue
    }

    static func int(_ value: Any?) -> Int? {
        guard let number = value as? NSNumber, !isBoolean(number) else { return nil }
        let double = number.doubleValue
        guard double.rounded() == double, abs(double) < 9e15 else { return nil }
        return number.intValue
    }

    static func double(_ value: Any?) -> Double? {
        guard let number = value as? NSNumber, !isBoolean(number) else { return nil }
        return number.doubleValue
    }

    /// Whether a number is JSON's `true` or `false`: `JSONSerialization` gives both as
    /// numbers, and only their type encoding (`c`, a C `char`) tells them from `1` and `0`.
    private static func isBoolean(_ number: NSNumber) -> Bool {
        number.objCType.pointee == CChar(UInt8(ascii: "c"))
    }

    private static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09
    }
}
