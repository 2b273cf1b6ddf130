/// The recursive-descent parser behind ``JSONValue/parse(_:maximumDepth:keepingMembersNamed:options:)``,
/// over bytes that stay valid while it runs.
///
/// Each rule takes `building`: a value that is not kept is checked by the same grammar
/// without building its strings, arrays and objects.
struct JSONParser {
    private let bytes: UnsafeBufferPointer<UInt8>
    private let maximumDepth: Int
    /// The names of the object members to build; `nil` for all.
    private let keptKeys: Set<String>?
    /// Read only where strict RFC 8259 refuses: a number out of `Double`'s range, a string
    /// of invalid UTF-8.
    private let options: JSONValue.ParsingOptions
    private var position = 0
    private var depth = 0

    init(bytes: UnsafeBufferPointer<UInt8>, maximumDepth: Int, keptKeys: Set<String>?, options: JSONValue.ParsingOptions) {
        self.bytes = bytes
        self.maximumDepth = maximumDepth
        self.keptKeys = keptKeys
        self.options = options
    }

    /// One value and nothing after it but whitespace.
    mutating func parseDocument() throws(JSONValue.SyntaxError) -> JSONValue {
        skipWhitespace()
        let value = try parseValue(building: true)
        skipWhitespace()
        guard position == bytes.count else { throw error("Unexpected data after JSON value") }
        return value
    }

    private func error(_ message: String) -> JSONValue.SyntaxError {
        JSONValue.SyntaxError(message: message, offset: position)
    }

    private var current: UInt8? {
        position < bytes.count ? bytes[position] : nil
    }

    private mutating func skipWhitespace() {
        while let byte = current, byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D {
            position += 1
        }
    }

    private mutating func expect(_ literal: StaticString, _ value: JSONValue) throws(JSONValue.SyntaxError) -> JSONValue {
        let count = literal.utf8CodeUnitCount
        guard bytes.count - position >= count,
            literal.withUTF8Buffer({ bytes[position..<(position + count)].elementsEqual($0) })
        else { throw error("Unexpected token") }
        position += count
        return value
    }

    /// The value at the position; when not `building`, a string is checked and read as `.null`
    /// and a container as empty.
    private mutating func parseValue(building: Bool) throws(JSONValue.SyntaxError) -> JSONValue {
        guard let byte = current else { throw error("Unexpected end of JSON input") }
        switch byte {
        case UInt8(ascii: "{"): return try parseObject(building: building)
        case UInt8(ascii: "["): return try parseArray(building: building)
        case UInt8(ascii: "\""): return try parseString(building: building).map(JSONValue.string) ?? .null
        case UInt8(ascii: "t"): return try expect("true", .bool(true))
        case UInt8(ascii: "f"): return try expect("false", .bool(false))
        case UInt8(ascii: "n"): return try expect("null", .null)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try parseNumber()
        default: throw error("Unexpected token")
        }
    }

    private mutating func enter() throws(JSONValue.SyntaxError) {
        depth += 1
        guard depth <= maximumDepth else { throw error("JSON nested too deeply") }
    }

    private mutating func parseObject(building: Bool) throws(JSONValue.SyntaxError) -> JSONValue {
        try enter()
        defer { depth -= 1 }
        position += 1
        var members = ObjectMembers()
        skipWhitespace()
        if current == UInt8(ascii: "}") {
            position += 1
            return .object([])
        }
        while true {
            skipWhitespace()
            guard current == UInt8(ascii: "\"") else { throw error("Expected a property name") }
            let key = try parseString(building: building)
            skipWhitespace()
            guard current == UInt8(ascii: ":") else { throw error("Expected ':' after property name") }
            position += 1
            skipWhitespace()
            let keeps = key.map { keptKeys?.contains($0) ?? true } ?? false
            let value = try parseValue(building: keeps)
            if let key, keeps { members.set(key, value) }
            skipWhitespace()
            switch current {
            case UInt8(ascii: ","): position += 1
            case UInt8(ascii: "}"):
                position += 1
                return .object(members.list)
            default: throw error("Expected ',' or '}' after property value")
            }
        }
    }

    private mutating func parseArray(building: Bool) throws(JSONValue.SyntaxError) -> JSONValue {
        try enter()
        defer { depth -= 1 }
        position += 1
        var values: [JSONValue] = []
        skipWhitespace()
        if current == UInt8(ascii: "]") {
            position += 1
            return .array(values)
        }
        while true {
            skipWhitespace()
            let value = try parseValue(building: building)
            if building { values.append(value) }
            skipWhitespace()
            switch current {
            case UInt8(ascii: ","): position += 1
            case UInt8(ascii: "]"):
                position += 1
                return .array(values)
            default: throw error("Expected ',' or ']' after array element")
            }
        }
    }

    /// A number as RFC 8259 spells it: `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`,
    /// whose value is finite, or, with ``JSONValue/ParsingOptions/overflowingNumbersAsInfinity``,
    /// an infinity when it overflows `Double`.
    private mutating func parseNumber() throws(JSONValue.SyntaxError) -> JSONValue {
        let start = position
        if current == UInt8(ascii: "-") { position += 1 }
        guard let first = current, isDigit(first) else { throw error("No number after minus sign") }
        position += 1
        if first != UInt8(ascii: "0") {
            while let byte = current, isDigit(byte) { position += 1 }
        }
        var isInteger = true
        if current == UInt8(ascii: ".") {
            isInteger = false
            position += 1
            guard let byte = current, isDigit(byte) else { throw error("Unterminated fractional number") }
            while let byte = current, isDigit(byte) { position += 1 }
        }
        if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
            isInteger = false
            position += 1
            if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { position += 1 }
            guard let byte = current, isDigit(byte) else { throw error("Exponent part is missing a number") }
            while let byte = current, isDigit(byte) { position += 1 }
        }
        let digits = bytes[start..<position]
        let text = String(decoding: digits, as: UTF8.self)
        // Integers of up to 15 digits, every token count, are exact in a Double: summed here
        // rather than handed to the C library's conversion.
        if isInteger, digits.count <= 15 {
            var value = 0.0
            for byte in digits where byte != UInt8(ascii: "-") { value = value * 10 + Double(byte - UInt8(ascii: "0")) }
            return .number(digits.first == UInt8(ascii: "-") ? -value : value, text: text)
        }
        guard let value = Double(text), value.isFinite || options.contains(.overflowingNumbersAsInfinity) else {
            throw JSONValue.SyntaxError(message: "Number out of range", offset: start)
        }
        return .number(value, text: text)
    }

    /// A string's content of invalid UTF-8 read as Node reads a body it decodes before
    /// `JSON.parse`: each maximal ill-formed subsequence becomes one U+FFFD (the WHATWG
    /// decoder's rule, which `String(decoding:as:)` follows), then escapes are resolved.
    /// Escapes are ASCII, so the repair cannot make or break one.
    private static func decodeRepairing(
        _ content: Slice<UnsafeBufferPointer<UInt8>>, building: Bool, offset: Int
    ) throws(JSONValue.SyntaxError) -> String? {
        var repaired = String(decoding: content, as: UTF8.self)
        let text = repaired.withUTF8 { bytes in
            building ? JSONString.decode(bytes[...]) : JSONString.hasValidEscapes(bytes[...]) ? "" : nil
        }
        guard let text else { throw JSONValue.SyntaxError(message: "Bad escaped character in JSON", offset: offset) }
        return building ? text : nil
    }

    private func isDigit(_ byte: UInt8) -> Bool {
        byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
    }

    /// A string token from its opening quote: its end found and raw control characters
    /// refused here, its UTF-8 validated (or repaired, with
    /// ``JSONValue/ParsingOptions/invalidUTF8AsReplacementCharacter``), and its escapes
    /// resolved by ``JSONString`` (only checked, and `nil` returned, when not `building`).
    private mutating func parseString(building: Bool) throws(JSONValue.SyntaxError) -> String? {
        let start = position + 1
        position = start
        var isASCII = true
        while true {
            guard let byte = current else { throw error("Unterminated string in JSON") }
            switch byte {
            case UInt8(ascii: "\""):
                let content = bytes[start..<position]
                position += 1
                guard isASCII || UTF8Text.isValid(content) else {
                    guard options.contains(.invalidUTF8AsReplacementCharacter) else {
                        throw JSONValue.SyntaxError(message: "Invalid UTF-8 in string", offset: start)
                    }
                    return try Self.decodeRepairing(content, building: building, offset: start)
                }
                guard let text = building ? JSONString.decode(content) : JSONString.hasValidEscapes(content) ? "" : nil else {
                    throw JSONValue.SyntaxError(message: "Bad escaped character in JSON", offset: start)
                }
                return building ? text : nil
            case UInt8(ascii: "\\"):
                position += 2
            case 0..<0x20:
                throw error("Bad control character in string literal")
            case 0x80...:
                isASCII = false
                position += 1
            default:
                position += 1
            }
        }
    }
}

/// An object's members as they are parsed: a repeated key keeps its first position and takes
/// its last value. Keys are found by a scan while the object is small, as LLM and log objects
/// are, and through an index past that, so a hostile object of many keys costs linear time.
private struct ObjectMembers {
    private(set) var list: [(key: String, value: JSONValue)] = []
    private var index: [String: Int]?
    private static let scannedCount = 16

    mutating func set(_ key: String, _ value: JSONValue) {
        if index == nil, list.count >= Self.scannedCount {
            var built: [String: Int] = [:]
            for (position, member) in list.enumerated() { built[member.key] = position }
            index = built
        }
        let existing = index.map { $0[key] } ?? list.firstIndex { $0.key == key }
        if let existing {
            list[existing].value = value
        } else {
            index?[key] = list.count
            list.append((key, value))
        }
    }
}
