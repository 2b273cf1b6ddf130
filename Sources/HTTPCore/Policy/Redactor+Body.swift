import Foundation

extension Redactor {
    /// The body with masked values replaced, chosen by its content type.
    ///
    /// - JSON (any media type with `json` in its subtype, or a body of another type that
    ///   starts with `{` or `[`): values of sensitive keys at any depth become ``mask``, in one
    ///   pass that keeps every other byte; an operation's `query` string is GraphQL text whose
    ///   literals become `***`; a string value that is itself JSON is masked the same way.
    ///   NDJSON and JSON Lines are masked line by line.
    /// - `application/graphql`: literals become `***`.
    /// - `application/x-www-form-urlencoded`, or a body of another type shaped like one
    ///   (`name=value&...`): values of sensitive keys become ``mask``.
    /// - `multipart/form-data`: the content of parts with a sensitive name becomes ``mask``;
    ///   other parts are redacted by their own content type. Without a usable boundary the
    ///   body is replaced by a note.
    /// - Anything else is kept at `.standard` and replaced by a note of its size and type at
    ///   `.strict`.
    ///
    /// Bodies that cannot be read as their type are never returned raw: the output ends at
    /// the last complete token with a marker. Pass `isTruncated` when the body was cut short
    /// on purpose, so the marker says so. Bodies that no rule needs are not parsed.
    public func redactedBody(_ body: Data, contentType: String?, isTruncated: Bool = false) -> Data {
        guard !body.isEmpty, level != .none || !sensitiveBodyKeys.isEmpty else { return body }
        let media = contentType.map(Self.mediaType)
        switch BodyKind(media: media, body: body) {
        case .json:
            return maskedJSON(body, isTruncated: isTruncated)
        case .jsonLines:
            let lines = body.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
            let masked = lines.enumerated().map { index, line in
                line.isEmpty ? Data() : maskedJSON(Data(line), isTruncated: isTruncated && index == lines.count - 1)
            }
            return Data(masked.joined(separator: [UInt8(ascii: "\n")]))
        case .graphQL:
            guard level != .strict else { return Self.note(for: body, media: media) }
            return Data(GraphQLMasker.maskLiterals(in: String(decoding: body, as: UTF8.self)).utf8)
        case .form:
            guard level != .strict else { return Self.note(for: body, media: media) }
            let text = String(decoding: body, as: UTF8.self)
            return Data(maskedPairs(Substring(text), masks: masksBodyKey).utf8)
        case .multipart(let boundary?):
            guard level != .strict else { return Self.note(for: body, media: media) }
            return maskedMultipart(body, boundary: boundary) ?? Self.note(for: body, media: media)
        case .multipart(nil):
            return Self.note(for: body, media: media)
        case .other:
            return level == .strict ? Self.note(for: body, media: media) : body
        }
    }

    private enum BodyKind {
        case json, jsonLines, graphQL, form, multipart(boundary: String?), other

        init(media: (type: String, boundary: String?)?, body: Data) {
            let type = media?.type ?? ""
            let subtype = type.split(separator: "/").last.map(String.init) ?? ""
            if ["ndjson", "jsonl", "jsonlines", "json-seq"].contains(where: subtype.contains) {
                self = .jsonLines
            } else if subtype.contains("json") {
                self = .json
            } else if type == "application/graphql" {
                self = .graphQL
            } else if type == "application/x-www-form-urlencoded" {
                self = .form
            } else if type.hasPrefix("multipart/") {
                self = .multipart(boundary: media?.boundary)
            } else {
                // Whatever the label says, a body shaped like JSON or a form is masked as one.
                let first = body.first { ![0x20, 0x0A, 0x0D, 0x09, 0xEF, 0xBB, 0xBF].contains($0) }
                if first == UInt8(ascii: "{") || first == UInt8(ascii: "[") {
                    self = .json
                } else if Self.looksLikeForm(body) {
                    self = .form
                } else {
                    self = .other
                }
            }
        }

        /// `name=value(&name=value)*` in printable ASCII without spaces.
        private static func looksLikeForm(_ body: Data) -> Bool {
            guard body.count < 1 << 20, let first = body.first, first != UInt8(ascii: "="), first != UInt8(ascii: "&") else { return false }
            var sawEquals = false
            var segmentHasEquals = false
            for byte in body {
                guard byte > 0x20, byte < 0x7F else { return false }
                if byte == UInt8(ascii: "=") {
                    sawEquals = true
                    segmentHasEquals = true
                } else if byte == UInt8(ascii: "&") {
                    guard segmentHasEquals else { return false }
                    segmentHasEquals = false
                }
            }
            return sawEquals
        }
    }

    private func maskedJSON(_ body: Data, isTruncated: Bool) -> Data {
        // A UTF-8 byte order mark is kept and the JSON after it masked.
        let bom = Data([0xEF, 0xBB, 0xBF])
        if body.starts(with: bom) {
            return bom + maskedJSON(Data(body.dropFirst(3)), isTruncated: isTruncated)
        }
        let masker = JSONMasker(
            redactor: self,
            mode: level == .strict ? .everyValue : .sensitiveKeys,
            masksGraphQLQuery: true
        )
        let result = body.withUnsafeBytes { raw in masker.mask(raw.bindMemory(to: UInt8.self)) }
        guard let failedAt = result.failedAt else { return Data(result.output) }
        let marker = isTruncated
            ? "…[truncated]"
            : "…[REDACTED: unreadable JSON, \(body.count - failedAt) more bytes]"
        return Data(result.output) + Data(marker.utf8)
    }

    /// `name=value&...` text (`;` separates pairs too) with the values of masked names
    /// replaced, raw names and separators kept.
    func maskedPairs(_ text: Substring, masks: (String) -> Bool) -> String {
        var output = ""
        var rest = text
        while true {
            let end = rest.firstIndex { $0 == "&" || $0 == ";" } ?? rest.endIndex
            let pair = rest[..<end]
            if let equals = pair.firstIndex(of: "="),
                Self.formKeyCandidates(Self.formDecoded(pair[..<equals])).contains(where: masks)
            {
                output += pair[...equals] + Self.mask
            } else {
                output += pair
            }
            guard end < rest.endIndex else { return output }
            output.append(rest[end])
            rest = rest[rest.index(after: end)...]
        }
    }

    /// The names a form key is matched by: itself and, for `user[password]`, the last
    /// bracketed component.
    static func formKeyCandidates(_ name: String) -> [String] {
        var trimmed = Substring(name)
        while trimmed.hasSuffix("[]") { trimmed = trimmed.dropLast(2) }
        guard let open = trimmed.lastIndex(of: "["), let close = trimmed.lastIndex(of: "]"), open < close else {
            return [name, String(trimmed)]
        }
        return [name, String(trimmed), String(trimmed[trimmed.index(after: open)..<close])]
    }

    /// Multipart text with the content of sensitively named parts masked and other parts
    /// redacted by their own content type; `nil` when the boundary never occurs. Every segment
    /// after a delimiter is a part, the last one too: a body cut inside a part (by a capture
    /// cap) has no closing delimiter, and a part whose headers were cut becomes a marker.
    private func maskedMultipart(_ body: Data, boundary: String) -> Data? {
        let delimiter = Data("--\(boundary)".utf8)
        let headerEnd = Data("\r\n\r\n".utf8)
        guard !boundary.isEmpty, body.range(of: delimiter) != nil else { return nil }
        var output = Data()
        var cursor = body.startIndex
        var isPreamble = true
        while cursor <= body.endIndex {
            let next = body.range(of: delimiter, in: cursor..<body.endIndex)
            let part = body[cursor..<(next?.lowerBound ?? body.endIndex)]
            if isPreamble || part.starts(with: Data("--".utf8)) {
                output += part
            } else if let separator = part.range(of: headerEnd) {
                output += part[..<separator.upperBound]
                let headers = String(decoding: part[..<separator.lowerBound], as: UTF8.self)
                let isSensitive = Self.partName(headers).map { Self.formKeyCandidates($0).contains(where: masksBodyKey) } ?? false
                let content = Data(part[separator.upperBound...])
                output += isSensitive
                    ? Data("\(Self.mask)\r\n".utf8)
                    : redactedBody(content, contentType: Self.partContentType(headers))
            } else if !part.isEmpty {
                output += Data("\r\n[REDACTED: incomplete part]".utf8)
            }
            guard let next else { break }
            output += delimiter
            cursor = next.upperBound
            isPreamble = false
        }
        return output
    }

    /// The `name` of a part, plain (`name="x"`) or RFC 5987 (`name*=utf-8''x`).
    private static func partName(_ headers: String) -> String? {
        for line in headers.split(whereSeparator: \.isNewline) where line.lowercased().hasPrefix("content-disposition") {
            for parameter in line.split(separator: ";") {
                let trimmed = parameter.trimmingCharacters(in: .whitespaces)
                let lowered = trimmed.lowercased()
                if lowered.hasPrefix("name=") {
                    return String(trimmed.dropFirst(5)).trimmingCharacters(in: CharacterSet(charactersIn: "\""))
                }
                if lowered.hasPrefix("name*=") {
                    let value = trimmed.dropFirst(6)
                    let encoded = value.range(of: "''").map { value[$0.upperBound...] } ?? value
                    return String(encoded).removingPercentEncoding ?? String(encoded)
                }
            }
        }
        return nil
    }

    private static func partContentType(_ headers: String) -> String? {
        headers.split(whereSeparator: \.isNewline)
            .first { $0.lowercased().hasPrefix("content-type:") }
            .map { $0.dropFirst("content-type:".count).trimmingCharacters(in: .whitespaces) }
    }

    private static func note(for body: Data, media: (type: String, boundary: String?)?) -> Data {
        Data("[REDACTED: \(body.count) bytes of \(media?.type ?? "unknown type")]".utf8)
    }

    /// The lowercased media type of a `Content-Type` value and its `boundary` parameter.
    static func mediaType(_ contentType: String) -> (type: String, boundary: String?) {
        // A repeated Content-Type arrives joined with ",": the first one counts.
        let first = contentType.split(separator: ",", maxSplits: 1).first.map(String.init) ?? contentType
        let parts = first.split(separator: ";")
        let type = parts.first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() } ?? ""
        let boundary = parts.dropFirst().lazy
            .map { $0.trimmingCharacters(in: .whitespaces) }
            .first { $0.lowercased().hasPrefix("boundary=") }
            .map { String($0.dropFirst(9)).trimmingCharacters(in: CharacterSet(charactersIn: "\"")) }
        return (type, boundary)
    }
}
