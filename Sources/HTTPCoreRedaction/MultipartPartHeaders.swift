import Foundation

/// The headers of one multipart part, read as RFC 7578 and RFC 6266 describe them: folded
/// lines joined, `Content-Disposition` parameters as tokens or quoted strings (with `\`
/// escapes, and single quotes tolerated), whitespace around `=` and `;` allowed, and an
/// RFC 5987 `name*` preferred to `name`. Read on bytes: a body may have thousands of parts.
struct MultipartPartHeaders {
    /// The part's field name, decoded; `nil` when it has none.
    let name: String?
    /// The part's `Content-Type`, as written; `nil` when it has none.
    let contentType: String?

    init(_ bytes: ArraySlice<UInt8>) {
        var name: String?
        var extendedName: String?
        var contentType: String?
        for line in Self.unfoldedLines(bytes) {
            guard let colon = line.firstIndex(of: UInt8(ascii: ":")) else { continue }
            let field = Self.trimmed(line[..<colon])
            let value = line[(colon + 1)...]
            if Self.equalsCaseless(field, "content-type"), contentType == nil {
                contentType = String(decoding: Self.trimmed(value), as: UTF8.self)
            } else if Self.equalsCaseless(field, "content-disposition") {
                for (parameter, parameterValue) in Self.parameters(value) {
                    if Self.equalsCaseless(parameter, "name"), name == nil {
                        name = String(decoding: parameterValue, as: UTF8.self)
                    }
                    if Self.equalsCaseless(parameter, "name*"), extendedName == nil {
                        extendedName = Self.decodedExtendedValue(String(decoding: parameterValue, as: UTF8.self))
                    }
                }
            }
        }
        self.name = extendedName ?? name
        self.contentType = contentType
    }

    /// Header lines with continuation lines (starting with a space or tab) joined to the line
    /// before them.
    private static func unfoldedLines(_ bytes: ArraySlice<UInt8>) -> [ArraySlice<UInt8>] {
        var lines: [ArraySlice<UInt8>] = []
        for raw in bytes.split(whereSeparator: { $0 == 0x0A || $0 == 0x0D }) {
            if let first = raw.first, first == 0x20 || first == 0x09, let last = lines.popLast() {
                lines.append(last + [0x20] + trimmed(raw))
            } else {
                lines.append(raw)
            }
        }
        return lines
    }

    /// The `name=value` parameters after the disposition type.
    private static func parameters(_ value: ArraySlice<UInt8>) -> [(ArraySlice<UInt8>, [UInt8])] {
        let semicolon = UInt8(ascii: ";")
        var result: [(ArraySlice<UInt8>, [UInt8])] = []
        // Skip the disposition type (`form-data`).
        var rest = value.drop { $0 != semicolon }
        while !rest.isEmpty {
            rest = rest.drop { $0 == semicolon || isSpace($0) }
            let nameEnd = rest.firstIndex { $0 == UInt8(ascii: "=") || $0 == semicolon } ?? rest.endIndex
            let parameter = trimmed(rest[..<nameEnd])
            rest = rest[nameEnd...]
            guard rest.first == UInt8(ascii: "=") else { continue }
            rest = rest.dropFirst().drop(while: isSpace)
            var parameterValue: [UInt8] = []
            if let quote = rest.first, quote == UInt8(ascii: "\"") || quote == UInt8(ascii: "'") {
                rest = rest.dropFirst()
                var isEscaped = false
                while let byte = rest.first {
                    rest = rest.dropFirst()
                    if isEscaped {
                        parameterValue.append(byte)
                        isEscaped = false
                    } else if byte == UInt8(ascii: "\\") && quote == UInt8(ascii: "\"") {
                        isEscaped = true
                    } else if byte == quote {
                        break
                    } else {
                        parameterValue.append(byte)
                    }
                }
                rest = rest.drop { $0 != semicolon }
            } else {
                let end = rest.firstIndex(of: semicolon) ?? rest.endIndex
                parameterValue = Array(trimmed(rest[..<end]))
                rest = rest[end...]
            }
            if !parameter.isEmpty { result.append((parameter, parameterValue)) }
        }
        return result
    }

    /// An RFC 5987 value (`utf-8'lang'percent%20encoded`), decoded.
    private static func decodedExtendedValue(_ value: String) -> String {
        let encoded = value.range(of: "'", options: .backwards).map { String(value[$0.upperBound...]) } ?? value
        return encoded.removingPercentEncoding ?? encoded
    }

    private static func isSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09
    }

    private static func trimmed(_ bytes: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        guard let first = bytes.firstIndex(where: { !isSpace($0) }), let last = bytes.lastIndex(where: { !isSpace($0) }) else {
            return bytes[bytes.endIndex...]
        }
        return bytes[first...last]
    }

    /// Whether bytes are the lowercase ASCII `word`, in any case.
    private static func equalsCaseless(_ bytes: ArraySlice<UInt8>, _ word: StaticString) -> Bool {
        let letters = UnsafeBufferPointer(start: word.utf8Start, count: word.utf8CodeUnitCount)
        return bytes.count == letters.count
            && zip(bytes, letters).allSatisfy { byte, letter in (byte >= 65 && byte <= 90 ? byte | 0x20 : byte) == letter }
    }
}
