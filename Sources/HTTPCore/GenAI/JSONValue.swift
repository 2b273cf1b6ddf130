import Foundation
import HTTPCoreText

/// A JSON value parsed into Swift values, for the GenAI readers: Foundation's
/// `JSONSerialization` builds bridged `NSDictionary`/`NSNumber` trees whose every read is a
/// dynamic cast, several times the cost of parsing, and a stream reads one per message.
indirect enum JSONValue: Sendable {
    case null
    case bool(Bool)
    /// A number; integers are exact up to 2⁵³, far above any token count.
    case number(Double)
    case string(String)
    case array([JSONValue])
    /// An object's members in order: LLM objects have a few keys each, which a scan finds
    /// faster than a dictionary hashes them.
    case object([Member])

    /// One member of an object.
    struct Member: Sendable {
        let key: String
        let value: JSONValue
    }

    /// The value `data` holds; `nil` when it is not JSON, has anything but whitespace after
    /// the value, or nests deeper than ``maximumDepth``.
    init?(parsing data: Data) {
        guard
            let value = data.withUnsafeBytes({ raw -> JSONValue? in
                var parser = Parser(bytes: raw.bindMemory(to: UInt8.self))
                guard let value = parser.value(depth: 0) else { return nil }
                parser.skipWhitespace()
                return parser.isAtEnd ? value : nil
            })
        else { return nil }
        self = value
    }

    /// The deepest nesting parsed; LLM bodies nest a few levels, and the bound keeps a
    /// hostile body from exhausting the stack.
    static let maximumDepth = 64

    private struct Parser {
        let bytes: UnsafeBufferPointer<UInt8>
        var position = 0

        var isAtEnd: Bool { position == bytes.count }

        mutating func skipWhitespace() {
            while position < bytes.count, [0x20, 0x0A, 0x0D, 0x09].contains(bytes[position]) { position += 1 }
        }

        mutating func value(depth: Int) -> JSONValue? {
            skipWhitespace()
            guard position < bytes.count, depth < JSONValue.maximumDepth else { return nil }
            switch bytes[position] {
            case UInt8(ascii: "{"): return object(depth: depth)
            case UInt8(ascii: "["): return array(depth: depth)
            case UInt8(ascii: "\""): return string().map(JSONValue.string)
            case UInt8(ascii: "t"): return literal("true", .bool(true))
            case UInt8(ascii: "f"): return literal("false", .bool(false))
            case UInt8(ascii: "n"): return literal("null", .null)
            default: return number()
            }
        }

        private mutating func object(depth: Int) -> JSONValue? {
            position += 1
            var fields: [Member] = []
            skipWhitespace()
            if position < bytes.count, bytes[position] == UInt8(ascii: "}") {
                position += 1
                return .object(fields)
            }
            while true {
                skipWhitespace()
                guard position < bytes.count, bytes[position] == UInt8(ascii: "\""), let key = string() else { return nil }
                skipWhitespace()
                guard position < bytes.count, bytes[position] == UInt8(ascii: ":") else { return nil }
                position += 1
                guard let value = value(depth: depth + 1) else { return nil }
                fields.append(Member(key: key, value: value))
                skipWhitespace()
                guard position < bytes.count else { return nil }
                position += 1
                switch bytes[position - 1] {
                case UInt8(ascii: ","): continue
                case UInt8(ascii: "}"): return .object(fields)
                default: return nil
                }
            }
        }

        private mutating func array(depth: Int) -> JSONValue? {
            position += 1
            var elements: [JSONValue] = []
            skipWhitespace()
            if position < bytes.count, bytes[position] == UInt8(ascii: "]") {
                position += 1
                return .array(elements)
            }
            while true {
                guard let element = value(depth: depth + 1) else { return nil }
                elements.append(element)
                skipWhitespace()
                guard position < bytes.count else { return nil }
                position += 1
                switch bytes[position - 1] {
                case UInt8(ascii: ","): continue
                case UInt8(ascii: "]"): return .array(elements)
                default: return nil
                }
            }
        }

        /// A string token from its opening quote; escapes are resolved by ``JSONString``.
        private mutating func string() -> String? {
            let start = position + 1
            var end = start
            var hasEscape = false
            while end < bytes.count, bytes[end] != UInt8(ascii: "\"") {
                if bytes[end] == UInt8(ascii: "\\") {
                    hasEscape = true
                    end += 1
                }
                end += 1
            }
            guard end < bytes.count else { return nil }
            position = end + 1
            let content = bytes[start..<end]
            return hasEscape ? JSONString.decode(content) : String(decoding: content, as: UTF8.self)
        }

        private mutating func literal(_ word: StaticString, _ value: JSONValue) -> JSONValue? {
            let count = word.utf8CodeUnitCount
            guard bytes.count - position >= count,
                word.withUTF8Buffer({ bytes[position..<(position + count)].elementsEqual($0) })
            else { return nil }
            position += count
            return value
        }

        private mutating func number() -> JSONValue? {
            let start = position
            var integer = 0.0
            var isInteger = true
            var isNegative = false
            if bytes[position] == UInt8(ascii: "-") {
                isNegative = true
                position += 1
            }
            while position < bytes.count {
                let byte = bytes[position]
                if byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") {
                    integer = integer * 10 + Double(byte - UInt8(ascii: "0"))
                } else if byte == UInt8(ascii: ".") || byte == UInt8(ascii: "e") || byte == UInt8(ascii: "E")
                    || byte == UInt8(ascii: "+") || byte == UInt8(ascii: "-")
                {
                    isInteger = false
                } else {
                    break
                }
                position += 1
            }
            guard position > start + (isNegative ? 1 : 0) else { return nil }
            if isInteger, integer < 9e15 { return .number(isNegative ? -integer : integer) }
            return Double(String(decoding: bytes[start..<position], as: UTF8.self)).map(JSONValue.number)
        }
    }
}
