import Foundation
import HTTPCoreText

/// A JSON value as parsed by ``DevSeeReceiver``: keeps booleans apart from numbers, object keys
/// in order, and numbers in the spelling they were sent, which `JSONSerialization` does not.
enum JSONValue: Sendable, Hashable {
    case null
    case bool(Bool)
    /// A number: its value and its text exactly as it appeared in the input.
    case number(Double, text: String)
    case string(String)
    case array([JSONValue])
    /// Members in input order; a repeated key keeps its first position and its last value, as
    /// JavaScript's `JSON.parse` does.
    case object([(key: String, value: JSONValue)])

    static func == (lhs: JSONValue, rhs: JSONValue) -> Bool {
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

    func hash(into hasher: inout Hasher) {
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

    /// The value of the last member named `key`, for objects.
    subscript(key: String) -> JSONValue? {
        guard case .object(let members) = self else { return nil }
        return members.last { $0.key == key }?.value
    }

    /// Sets a member of an object, in place when the key exists, else at the end.
    mutating func set(_ key: String, _ value: JSONValue) {
        guard case .object(var members) = self else { return }
        if let index = members.firstIndex(where: { $0.key == key }) {
            members[index].value = value
        } else {
            members.append((key, value))
        }
        self = .object(members)
    }

    /// Compact JSON text, escaping as JavaScript's `JSON.stringify` does.
    var serialized: String {
        var writer = JSONWriter()
        write(to: &writer)
        return String(decoding: writer.bytes, as: UTF8.self)
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

extension JSONValue {
    /// Why a text is not JSON, with the byte offset where parsing stopped.
    struct SyntaxError: Error, Sendable, Hashable, CustomStringConvertible {
        var message: String
        var offset: Int

        var description: String { "\(message) at position \(offset)" }
    }

    /// Parses one JSON text (RFC 8259), allowing surrounding whitespace and nothing else.
    static func parse(_ data: Data) throws(SyntaxError) -> JSONValue {
        var parser = Parser(bytes: [UInt8](data))
        return try parser.parseDocument()
    }

    private struct Parser {
        let bytes: [UInt8]
        var position = 0
        var depth = 0

        init(bytes: [UInt8]) {
            self.bytes = bytes
        }

        mutating func parseDocument() throws(SyntaxError) -> JSONValue {
            skipWhitespace()
            let value = try parseValue()
            skipWhitespace()
            guard position == bytes.count else { throw error("Unexpected data after JSON value") }
            return value
        }

        private func error(_ message: String) -> SyntaxError {
            SyntaxError(message: message, offset: position)
        }

        private var current: UInt8? {
            position < bytes.count ? bytes[position] : nil
        }

        private mutating func skipWhitespace() {
            while let byte = current, byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D {
                position += 1
            }
        }

        private mutating func expect(_ literal: String, _ value: JSONValue) throws(SyntaxError) -> JSONValue {
            let expected = Array(literal.utf8)
            guard bytes.count - position >= expected.count,
                Array(bytes[position..<(position + expected.count)]) == expected
            else { throw error("Unexpected token") }
            position += expected.count
            return value
        }

        private mutating func parseValue() throws(SyntaxError) -> JSONValue {
            guard let byte = current else { throw error("Unexpected end of JSON input") }
            switch byte {
            case UInt8(ascii: "{"): return try parseObject()
            case UInt8(ascii: "["): return try parseArray()
            case UInt8(ascii: "\""): return .string(try parseString())
            case UInt8(ascii: "t"): return try expect("true", .bool(true))
            case UInt8(ascii: "f"): return try expect("false", .bool(false))
            case UInt8(ascii: "n"): return try expect("null", .null)
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try parseNumber()
            default: throw error("Unexpected token")
            }
        }

        private mutating func enter() throws(SyntaxError) {
            depth += 1
            // Deeper nesting than any log needs; the bound keeps recursion off the stack's edge.
            guard depth <= 256 else { throw error("JSON nested too deeply") }
        }

        private mutating func parseObject() throws(SyntaxError) -> JSONValue {
            try enter()
            defer { depth -= 1 }
            position += 1
            var object = JSONValue.object([])
            skipWhitespace()
            if current == UInt8(ascii: "}") {
                position += 1
                return object
            }
            while true {
                skipWhitespace()
                guard current == UInt8(ascii: "\"") else { throw error("Expected a property name") }
                let key = try parseString()
                skipWhitespace()
                guard current == UInt8(ascii: ":") else { throw error("Expected ':' after property name") }
                position += 1
                skipWhitespace()
                object.set(key, try parseValue())
                skipWhitespace()
                switch current {
                case UInt8(ascii: ","): position += 1
                case UInt8(ascii: "}"):
                    position += 1
                    return object
                default: throw error("Expected ',' or '}' after property value")
                }
            }
        }

        private mutating func parseArray() throws(SyntaxError) -> JSONValue {
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
                values.append(try parseValue())
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

        private mutating func parseNumber() throws(SyntaxError) -> JSONValue {
            let start = position
            if current == UInt8(ascii: "-") { position += 1 }
            guard let first = current, isDigit(first) else { throw error("No number after minus sign") }
            position += 1
            if first != UInt8(ascii: "0") {
                while let byte = current, isDigit(byte) { position += 1 }
            }
            if current == UInt8(ascii: ".") {
                position += 1
                guard let byte = current, isDigit(byte) else { throw error("Unterminated fractional number") }
                while let byte = current, isDigit(byte) { position += 1 }
            }
            if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
                position += 1
                if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { position += 1 }
                guard let byte = current, isDigit(byte) else { throw error("Exponent part is missing a number") }
                while let byte = current, isDigit(byte) { position += 1 }
            }
            let text = String(decoding: bytes[start..<position], as: UTF8.self)
            guard let value = Double(text) else { throw error("Invalid number") }
            return .number(value, text: text)
        }

        private func isDigit(_ byte: UInt8) -> Bool {
            byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
        }

        /// Scans a string token for its end and for raw control characters, then decodes it
        /// with HTTPCore's `JSONString`: invalid UTF-8 and lone surrogates become U+FFFD, as when
        /// Node decodes a request body before `JSON.parse`.
        private mutating func parseString() throws(SyntaxError) -> String {
            let start = position + 1
            position = start
            while true {
                guard let byte = current else { throw error("Unterminated string in JSON") }
                switch byte {
                case UInt8(ascii: "\""):
                    let end = position
                    position += 1
                    guard let text = bytes.withUnsafeBufferPointer({ JSONString.decode($0[start..<end]) }) else {
                        throw SyntaxError(message: "Bad escaped character in JSON", offset: start)
                    }
                    return text
                case UInt8(ascii: "\\"):
                    position += 2
                case 0..<0x20:
                    throw error("Bad control character in string literal")
                default:
                    position += 1
                }
            }
        }
    }
}
