import Foundation

/// The values of a body as a reader of its format sees them, each with a path: JSON scalars,
/// server-sent events' data (JSON read on) and fields, JSON lines, form pairs, multipart
/// parts, XML element text and attribute values.
enum CorpusValues {
    /// One value and its type.
    enum Value: Hashable, CustomStringConvertible {
        /// A JSON string (decoded), or any text value of another format.
        case string(String)
        /// A JSON number, as written.
        case number(String)
        case boolean(Bool)
        case null

        /// The value as text, for finding secrets in it.
        var text: String {
            switch self {
            case .string(let text), .number(let text): text
            case .boolean(let value): String(value)
            case .null: "null"
            }
        }

        var description: String {
            switch self {
            case .string(let text): "\"\(text)\""
            case .number(let text): text
            case .boolean(let value): String(value)
            case .null: "null"
            }
        }
    }

    static func values(of body: String, contentType: String) -> [(path: String, value: Value)] {
        let type = contentType.lowercased()
        if type.contains("event-stream") { return eventStream(body) }
        if type.contains("ndjson") || type.contains("jsonl") {
            return body.split(separator: "\n").enumerated().flatMap { index, line in json(String(line), path: "line\(index)") }
        }
        if type.contains("json") { return json(body, path: "") }
        if type.contains("x-www-form-urlencoded") { return form(body) }
        if type.hasPrefix("multipart/") { return multipart(body, contentType: contentType) }
        if type.contains("xml") { return xml(body) }
        return [("body", .string(body))]
    }

    // MARK: JSON

    /// The scalars of a JSON text; text that is not JSON is one string value.
    static func json(_ text: String, path: String) -> [(path: String, value: Value)] {
        var parser = JSONLeaves(bytes: Array(text.utf8))
        guard let leaves = parser.document(path: path) else { return [(path, .string(text))] }
        return leaves
    }

    // MARK: Server-sent events

    static func eventStream(_ body: String) -> [(path: String, value: Value)] {
        var values: [(path: String, value: Value)] = []
        let normalized = body.replacingOccurrences(of: "\r\n", with: "\n").replacingOccurrences(of: "\r", with: "\n")
        for (index, block) in normalized.components(separatedBy: "\n\n").enumerated() {
            var data: [String] = []
            for line in block.split(separator: "\n", omittingEmptySubsequences: false) {
                let field = line.prefix { $0 != ":" }
                var value = line.dropFirst(field.count).dropFirst()
                if value.first == " " { value = value.dropFirst() }
                switch field {
                case "data": data.append(String(value))
                case "event", "id": values.append(("event\(index).\(field)", .string(String(value))))
                default: break
                }
            }
            guard !data.isEmpty else { continue }
            values += json(data.joined(separator: "\n"), path: "event\(index).data")
        }
        return values
    }

    // MARK: Forms and multipart

    static func form(_ body: String) -> [(path: String, value: Value)] {
        body.trimmingCharacters(in: .newlines).split(separator: "&").enumerated().map { index, pair in
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            func decoded(_ text: Substring) -> String {
                String(text).replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? String(text)
            }
            return ("\(decoded(parts[0]))#\(index)", .string(parts.count > 1 ? decoded(parts[1]) : ""))
        }
    }

    static func multipart(_ body: String, contentType: String) -> [(path: String, value: Value)] {
        guard let boundary = contentType.components(separatedBy: "boundary=").last?.trimmingCharacters(in: CharacterSet(charactersIn: "\" ")) else {
            return [("body", .string(body))]
        }
        var values: [(path: String, value: Value)] = []
        for (index, part) in body.components(separatedBy: "--\(boundary)").enumerated() {
            guard let separator = part.range(of: "\r\n\r\n") else { continue }
            let headers = part[..<separator.lowerBound]
            let name = headers.range(of: "name=\"").map { headers[$0.upperBound...].prefix { $0 != "\"" } } ?? "part"
            var content = part[separator.upperBound...]
            if content.hasSuffix("\r\n") { content = content.dropLast() }  // "\r\n" is one Character
            values.append(("\(name)#\(index)", .string(String(content))))
        }
        return values
    }

    // MARK: XML

    static func xml(_ body: String) -> [(path: String, value: Value)] {
        var values: [(path: String, value: Value)] = []
        var index = body.startIndex
        var counter = 0
        // Element text between a start tag and the next tag, and attribute values.
        while let open = body[index...].firstIndex(of: "<") {
            guard let close = body[open...].firstIndex(of: ">") else { break }
            let tag = body[body.index(after: open)..<close]
            let name = tag.prefix { !$0.isWhitespace && $0 != "/" && $0 != ">" }
            var rest = tag.dropFirst(name.count)
            while let equals = rest.firstIndex(of: "=") {
                let attribute = rest[..<equals].trimmingCharacters(in: .whitespaces)
                let afterEquals = rest[rest.index(after: equals)...]
                guard let quote = afterEquals.first, quote == "\"" || quote == "'",
                    let end = afterEquals.dropFirst().firstIndex(of: quote)
                else { break }
                values.append(("\(name)@\(attribute)#\(counter)", .string(String(afterEquals[afterEquals.index(after: afterEquals.startIndex)..<end]))))
                counter += 1
                rest = afterEquals[afterEquals.index(after: end)...]
            }
            index = body.index(after: close)
            if let next = body[index...].firstIndex(of: "<"), !name.hasPrefix("?"), !name.hasPrefix("/") {
                let text = body[index..<next]
                if !text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty {
                    values.append(("\(name)#\(counter)", .string(String(text))))
                    counter += 1
                }
            }
        }
        return values
    }
}

/// A strict reader of JSON that lists its scalars with their paths, numbers as written.
private struct JSONLeaves {
    let bytes: [UInt8]
    var index = 0
    var leaves: [(path: String, value: CorpusValues.Value)] = []

    init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    mutating func document(path: String) -> [(path: String, value: CorpusValues.Value)]? {
        skipSpace()
        guard value(path: path) else { return nil }
        skipSpace()
        return index == bytes.count ? leaves : nil
    }

    private mutating func skipSpace() {
        while index < bytes.count, [0x20, 0x0A, 0x0D, 0x09].contains(bytes[index]) { index += 1 }
    }

    private mutating func value(path: String) -> Bool {
        guard index < bytes.count else { return false }
        switch bytes[index] {
        case UInt8(ascii: "{"):
            index += 1
            skipSpace()
            if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
                index += 1
                return true
            }
            while true {
                skipSpace()
                guard let key = string() else { return false }
                skipSpace()
                guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { return false }
                index += 1
                skipSpace()
                guard value(path: path.isEmpty ? key : "\(path).\(key)") else { return false }
                skipSpace()
                guard index < bytes.count else { return false }
                index += 1
                if bytes[index - 1] == UInt8(ascii: "}") { return true }
                guard bytes[index - 1] == UInt8(ascii: ",") else { return false }
            }
        case UInt8(ascii: "["):
            index += 1
            skipSpace()
            if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
                index += 1
                return true
            }
            var position = 0
            while true {
                skipSpace()
                guard value(path: "\(path)[\(position)]") else { return false }
                position += 1
                skipSpace()
                guard index < bytes.count else { return false }
                index += 1
                if bytes[index - 1] == UInt8(ascii: "]") { return true }
                guard bytes[index - 1] == UInt8(ascii: ",") else { return false }
            }
        case UInt8(ascii: "\""):
            guard let text = string() else { return false }
            leaves.append((path, .string(text)))
            return true
        default:
            let start = index
            while index < bytes.count, !",]} \n\r\t".utf8.contains(bytes[index]) { index += 1 }
            let token = String(decoding: bytes[start..<index], as: UTF8.self)
            switch token {
            case "true": leaves.append((path, .boolean(true)))
            case "false": leaves.append((path, .boolean(false)))
            case "null": leaves.append((path, .null))
            default:
                guard Double(token) != nil else { return false }
                leaves.append((path, .number(token)))
            }
            return true
        }
    }

    /// A string token, decoded.
    private mutating func string() -> String? {
        guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { return nil }
        let start = index
        index += 1
        while index < bytes.count, bytes[index] != UInt8(ascii: "\"") {
            index += bytes[index] == UInt8(ascii: "\\") ? 2 : 1
        }
        guard index < bytes.count else { return nil }
        index += 1
        return (try? JSONSerialization.jsonObject(with: Data(bytes[start..<index]), options: .fragmentsAllowed)) as? String
    }
}
