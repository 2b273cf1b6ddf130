import Foundation

/// The headers of one multipart part, read as RFC 7578 and RFC 6266 describe them: folded
/// lines joined, `Content-Disposition` parameters as tokens or quoted strings (with `\`
/// escapes, and single quotes tolerated), whitespace around `=` and `;` allowed, and an
/// RFC 5987 `name*` preferred to `name`.
struct MultipartPartHeaders {
    /// The part's field name, decoded; `nil` when it has none.
    let name: String?
    /// The part's `Content-Type`, as written; `nil` when it has none.
    let contentType: String?

    init(_ text: String) {
        var name: String?
        var extendedName: String?
        var contentType: String?
        for line in Self.unfoldedLines(text) {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let field = line[..<colon].trimmingCharacters(in: .whitespaces).lowercased()
            let value = line[line.index(after: colon)...]
            if field == "content-type", contentType == nil {
                contentType = value.trimmingCharacters(in: .whitespaces)
            } else if field == "content-disposition" {
                for (parameter, parameterValue) in Self.parameters(value) {
                    if parameter == "name", name == nil { name = parameterValue }
                    if parameter == "name*", extendedName == nil { extendedName = Self.decodedExtendedValue(parameterValue) }
                }
            }
        }
        self.name = extendedName ?? name
        self.contentType = contentType
    }

    /// Header lines with continuation lines (starting with a space or tab) joined to the line
    /// before them.
    private static func unfoldedLines(_ text: String) -> [String] {
        var lines: [String] = []
        for raw in text.split(omittingEmptySubsequences: true, whereSeparator: { $0 == "\r\n" || $0 == "\n" || $0 == "\r" }) {
            if let first = raw.first, first == " " || first == "\t", !lines.isEmpty {
                lines[lines.count - 1] += " " + raw.trimmingCharacters(in: .whitespaces)
            } else {
                lines.append(String(raw))
            }
        }
        return lines
    }

    /// The `name=value` parameters after the disposition type, names lowercased.
    private static func parameters(_ value: Substring) -> [(String, String)] {
        var result: [(String, String)] = []
        var rest = value
        // Skip the disposition type (`form-data`).
        rest = rest.drop { $0 != ";" }
        while !rest.isEmpty {
            rest = rest.drop { $0 == ";" || $0.isWhitespace }
            let nameEnd = rest.firstIndex { $0 == "=" || $0 == ";" } ?? rest.endIndex
            let parameter = rest[..<nameEnd].trimmingCharacters(in: .whitespaces).lowercased()
            rest = rest[nameEnd...]
            guard rest.first == "=" else { continue }
            rest = rest.dropFirst().drop { $0.isWhitespace }
            var parameterValue = ""
            if let quote = rest.first, quote == "\"" || quote == "'" {
                rest = rest.dropFirst()
                var isEscaped = false
                while let character = rest.first {
                    rest = rest.dropFirst()
                    if isEscaped {
                        parameterValue.append(character)
                        isEscaped = false
                    } else if character == "\\" && quote == "\"" {
                        isEscaped = true
                    } else if character == quote {
                        break
                    } else {
                        parameterValue.append(character)
                    }
                }
                rest = rest.drop { $0 != ";" }
            } else {
                let end = rest.firstIndex(of: ";") ?? rest.endIndex
                parameterValue = rest[..<end].trimmingCharacters(in: .whitespaces)
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
}
