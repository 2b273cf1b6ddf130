import Foundation

extension Redactor {
    /// The body with masked values replaced, chosen by its content type.
    ///
    /// - JSON (`application/json`, `+json`, or an untyped body that starts with `{` or `[`):
    ///   values of sensitive keys at any depth become ``mask``, in one pass that keeps every
    ///   other byte; a top-level `query` string is GraphQL text whose literals become `***`;
    ///   a string value that is itself JSON is masked the same way.
    /// - `application/graphql`: literals become `***`.
    /// - `application/x-www-form-urlencoded`: values of sensitive keys become ``mask``.
    /// - `multipart/form-data`: the content of parts with a sensitive name becomes ``mask``.
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
        case .graphQL:
            guard level != .strict else { return Self.note(for: body, media: media) }
            return Data(GraphQLMasker.maskLiterals(in: String(decoding: body, as: UTF8.self)).utf8)
        case .form:
            guard level != .strict else { return Self.note(for: body, media: media) }
            let text = String(decoding: body, as: UTF8.self)
            return Data(maskedPairs(Substring(text), masks: masksBodyKey).utf8)
        case .multipart(let boundary):
            guard level != .strict else { return Self.note(for: body, media: media) }
            return maskedMultipart(body, boundary: boundary)
        case .other:
            return level == .strict ? Self.note(for: body, media: media) : body
        }
    }

    private enum BodyKind {
        case json, graphQL, form, multipart(boundary: String), other

        init(media: (type: String, boundary: String?)?, body: Data) {
            switch media?.type {
            case "application/json", "text/json": self = .json
            case let type? where type.hasSuffix("+json"): self = .json
            case "application/graphql": self = .graphQL
            case "application/x-www-form-urlencoded": self = .form
            case "multipart/form-data":
                self = media?.boundary.map { .multipart(boundary: $0) } ?? .other
            case nil, "text/plain", "application/octet-stream":
                // Skip whitespace and a UTF-8 byte order mark (EF BB BF) before sniffing.
                let first = body.first { ![0x20, 0x0A, 0x0D, 0x09, 0xEF, 0xBB, 0xBF].contains($0) }
                self = first == UInt8(ascii: "{") || first == UInt8(ascii: "[") ? .json : .other
            default: self = .other
            }
        }
    }

    private func maskedJSON(_ body: Data, isTruncated: Bool) -> Data {
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

    /// `name=value&...` text with the values of masked names replaced, raw names kept.
    func maskedPairs(_ text: Substring, masks: (String) -> Bool) -> String {
        text.split(separator: "&", omittingEmptySubsequences: false).map { pair -> String in
            guard let equals = pair.firstIndex(of: "=") else { return String(pair) }
            let name = pair[..<equals]
            return Self.formKeyCandidates(Self.formDecoded(name)).contains(where: masks) ? "\(name)=\(Self.mask)" : String(pair)
        }.joined(separator: "&")
    }

    /// The names a form key is matched by: itself and, for `user[password]`, the last
    /// bracketed component.
    static func formKeyCandidates(_ name: String) -> [String] {
        guard let open = name.lastIndex(of: "["), let close = name.lastIndex(of: "]"), open < close else { return [name] }
        return [name, String(name[name.index(after: open)..<close])]
    }

    /// Multipart text with the content of sensitively named parts masked. Every segment after
    /// a delimiter is a part, the last one too: a body cut inside a part (by a capture cap)
    /// has no closing delimiter, and a part whose headers were cut is replaced by a marker.
    private func maskedMultipart(_ body: Data, boundary: String) -> Data {
        let delimiter = Data("--\(boundary)".utf8)
        let headerEnd = Data("\r\n\r\n".utf8)
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
                let name = Self.partName(String(decoding: part[..<separator.lowerBound], as: UTF8.self))
                output += name.map(masksBodyKey) ?? false ? Data("\(Self.mask)\r\n".utf8) : part[separator.upperBound...]
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

    private static func partName(_ headers: String) -> String? {
        for line in headers.split(whereSeparator: \.isNewline) where line.lowercased().hasPrefix("content-disposition") {
            for parameter in line.split(separator: ";") {
                let trimmed = parameter.trimmingCharacters(in: .whitespaces)
                if trimmed.lowercased().hasPrefix("name=") {
                    return String(trimmed.dropFirst(5)).trimmingCharacters(in: CharacterSet(charactersIn: "\""))
                }
            }
        }
        return nil
    }

    private static func note(for body: Data, media: (type: String, boundary: String?)?) -> Data {
        Data("[REDACTED: \(body.count) bytes of \(media?.type ?? "unknown type")]".utf8)
    }

    /// The lowercased media type of a `Content-Type` value and its `boundary` parameter.
    static func mediaType(_ contentType: String) -> (type: String, boundary: String?) {
        // A repeated Content-Type arrives joined with ", ": the first one counts.
        let first = contentType.components(separatedBy: ", ").first ?? contentType
        let parts = first.split(separator: ";")
        let type = parts.first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() } ?? ""
        let boundary = parts.dropFirst().lazy
            .map { $0.trimmingCharacters(in: .whitespaces) }
            .first { $0.lowercased().hasPrefix("boundary=") }
            .map { String($0.dropFirst(9)).trimmingCharacters(in: CharacterSet(charactersIn: "\"")) }
        return (type, boundary)
    }
}
