import Foundation
import HTTPCoreText

extension Redactor {
    /// The body with masked values replaced, chosen by its content type.
    ///
    /// - JSON (any media type with `json` in its subtype, or a body of another type that
    ///   starts with `{` or `[`): values of sensitive keys at any depth become ``mask``, in one
    ///   pass that keeps every other byte; an operation's `query` string is GraphQL text whose
    ///   literals become `***`; a string value that is itself JSON is masked the same way.
    ///   NDJSON and JSON Lines are masked line by line; a line that is not JSON gets the text
    ///   rules.
    /// - `text/event-stream` (server-sent events): event by event, the `data:` lines of each
    ///   joined as one message and masked by ``redactedStreamData(_:isTruncated:eventType:)``
    ///   (so a pretty-printed object spread over several lines is read whole), every other
    ///   line by the text rules (``redactedText(_:)``); at `.strict`, a note of its size and type.
    /// - `application/graphql`: literals become `***`.
    /// - `application/x-www-form-urlencoded`, or a body of another type shaped like one
    ///   (`name=value&...`): values of sensitive keys become ``mask``; a value that is JSON is
    ///   masked by the JSON rules and written back form-encoded.
    /// - XML (`xml` or `+xml` media types, or a body of another type that starts with a tag):
    ///   the values of attributes and the content of elements with sensitive names become
    ///   ``mask``, matched by local name (`wsse:Password`).
    /// - `multipart/form-data`: the content of parts with a sensitive name becomes ``mask``;
    ///   other parts are redacted by their own content type. Without a usable boundary the
    ///   body is replaced by a note.
    /// - Anything else, at `.standard`: text gets the text rules (YAML, JSONP, GraphQL or
    ///   forms as `text/plain`, HTML), compressed data and UTF-16 text become
    ///   `[unparsed body: N bytes, gzip]`, other binary data is kept; at `.strict`, a note of
    ///   its size and type.
    ///
    /// Bodies that cannot be read as their type are never returned raw: the output ends at
    /// the last complete token with a marker. Bodies that no rule needs are not parsed.
    ///
    /// Pass `isTruncated` when `body` is the first bytes of a longer body (cut at a capture
    /// cap): it is then masked as far as it goes, by the rules of a whole one. The value it
    /// ends in is kept up to the cut, or masked whole when its name is sensitive (a
    /// `"password":"…` cut in the middle becomes `"password":"[REDACTED]"`); a JSON key or
    /// a multipart part whose headers were cut is left out. Nothing marks the cut: the caller
    /// knows the whole size and says so once. Redacting a prefix reads only its bytes.
    ///
    /// A body in a declared charset other than UTF-8 (`text/plain; charset=iso-8859-1`,
    /// `application/json; charset=utf-16`) is decoded and returned as UTF-8 text, masked by the
    /// same rules, so every output shows it as text.
    ///
    /// - Parameters:
    ///   - body: The body, or the captured start of it.
    ///   - contentType: The body's `Content-Type`, which chooses the rules; `nil` when unknown.
    ///   - isTruncated: Whether `body` is only the start of a longer body.
    /// - Returns: The masked body.
    public func redactedBody(_ body: Data, contentType: String?, isTruncated: Bool = false) -> Data {
        redactedBody(Self.utf8Text(of: body, contentType: contentType) ?? body, contentType: contentType, isTruncated: isTruncated, depth: 0)
    }

    /// A body in a declared charset other than UTF-8, as UTF-8; `nil` when none is declared,
    /// it is UTF-8, unknown, or the bytes do not decode in it. A body already decoded (an
    /// output that redacts what the policy exposed) is not decoded twice: an 8-bit charset is
    /// decoded only when the bytes are not UTF-8, UTF-16 only when they hold a zero byte.
    static func utf8Text(of body: Data, contentType: String?) -> Data? {
        guard let contentType, let charset = charset(of: contentType), let encoding = declaredEncodings[charset] else { return nil }
        let isSixteenBit = encoding == .utf16 || encoding == .utf16LittleEndian || encoding == .utf16BigEndian
        guard isSixteenBit ? body.contains(0) : String(data: body, encoding: .utf8) == nil,
            let text = String(data: body, encoding: encoding)
        else { return nil }
        return Data(text.utf8)
    }

    /// The lowercased `charset` parameter of a `Content-Type`.
    private static func charset(of contentType: String) -> String? {
        for parameter in contentType.split(separator: ";").dropFirst() {
            let parts = parameter.split(separator: "=", maxSplits: 1)
            guard parts.count == 2, parts[0].trimmingCharacters(in: .whitespaces).lowercased() == "charset" else { continue }
            return parts[1].trimmingCharacters(in: CharacterSet(charactersIn: "\" ")).lowercased()
        }
        return nil
    }

    /// The charsets other than UTF-8 that bodies declare, by IANA name and common alias.
    private static let declaredEncodings: [String: String.Encoding] = [
        "iso-8859-1": .isoLatin1, "iso_8859-1": .isoLatin1, "latin1": .isoLatin1, "l1": .isoLatin1,
        "iso-8859-2": .isoLatin2, "latin2": .isoLatin2, "windows-1252": .windowsCP1252, "cp1252": .windowsCP1252,
        "windows-1250": .windowsCP1250, "windows-1251": .windowsCP1251, "us-ascii": .ascii, "ascii": .ascii,
        "utf-16": .utf16, "utf-16le": .utf16LittleEndian, "utf-16be": .utf16BigEndian, "shift_jis": .shiftJIS,
        "euc-jp": .japaneseEUC, "iso-2022-jp": .iso2022JP,
    ]

    /// How deep multipart bodies may nest before the rest is masked as unreadable.
    static let maximumMultipartDepth = 8

    private func redactedBody(_ body: Data, contentType: String?, isTruncated: Bool, depth: Int) -> Data {
        guard !body.isEmpty, level != .none || !sensitiveBodyKeys.isEmpty else { return body }
        let media = contentType.map(Self.mediaType)
        switch BodyKind(media: media, body: body) {
        case .json:
            return maskedJSON(body, isTruncated: isTruncated)
        case .jsonLines:
            // Each line is one message: JSON by the JSON rules, any other line by the text rules.
            return body.withUnsafeBytes { raw in
                let bytes = raw.bindMemory(to: UInt8.self)
                var output: [UInt8] = []
                output.reserveCapacity(bytes.count)
                let keyMemory = JSONKeyMemory(slotCount: 64)
                var start = 0
                while start < bytes.count {
                    let end = bytes[start...].firstIndex(of: UInt8(ascii: "\n")) ?? bytes.count
                    let line = bytes[start..<end]
                    output += maskedMessage(line, isTruncated: isTruncated && end == bytes.count, eventRule: nil, keyMemory: keyMemory) ?? Array(line)
                    if end < bytes.count { output.append(UInt8(ascii: "\n")) }
                    start = end + 1
                }
                return Data(output)
            }
        case .eventStream:
            guard level != .strict else { return Self.note(for: body, media: media) }
            return maskedEventStream(body, isTruncated: isTruncated)
        case .graphQL:
            guard level != .strict else { return Self.note(for: body, media: media) }
            return Data(GraphQLMasker.maskLiterals(in: String(decoding: body, as: UTF8.self), redactor: self).utf8)
        case .form:
            guard level != .strict else { return Self.note(for: body, media: media) }
            let text = String(decoding: body, as: UTF8.self)
            let masked = maskingJSONValues(in: maskedPairs(Substring(text), names: .formKeys(self)))
            return Data((isTruncated ? Self.maskingCutCredential(masked) : masked).utf8)
        case .multipart(let boundary?):
            guard level != .strict else { return Self.note(for: body, media: media) }
            guard depth < Self.maximumMultipartDepth else {
                return Data("[REDACTED: multipart nested too deep, \(body.count) bytes]".utf8)
            }
            return maskedMultipart(body, boundary: boundary, isTruncated: isTruncated, depth: depth) ?? Self.note(for: body, media: media)
        case .multipart(nil):
            return Self.note(for: body, media: media)
        case .xml:
            guard level != .strict else { return Self.note(for: body, media: media) }
            return Data(XMLMasker.mask([UInt8](body), redactor: self))
        case .unparsed(let kind):
            guard level != .strict else { return Self.note(for: body, media: media) }
            return Data("[unparsed body: \(body.count) bytes, \(kind)]".utf8)
        case .other:
            guard level != .strict else { return Self.note(for: body, media: media) }
            return redactedOtherBody(body, isTruncated: isTruncated)
        }
    }

    /// A form whose values that are JSON (`data={"password":…}`, encoded or not) are masked
    /// by the JSON rules, and written back form-encoded; every other pair as it was. One scan
    /// finds the values that start like JSON (`{`, `[` other than a mask, `%7B`, `%5B`); a form
    /// without one is returned as it is.
    private func maskingJSONValues(in form: String) -> String {
        let bytes = Array(form.utf8)
        var valueStarts: [Int] = []
        var index = 0
        while index < bytes.count {
            if bytes[index] == UInt8(ascii: "="), Self.valueStartsLikeJSON(bytes, at: index + 1) {
                valueStarts.append(index + 1)
            }
            index += 1
        }
        guard !valueStarts.isEmpty else { return form }
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count)
        var copied = 0
        for start in valueStarts where start >= copied {
            let end = bytes[start...].firstIndex(of: UInt8(ascii: "&")) ?? bytes.count
            output += bytes[copied..<start]
            output += maskedJSONFormValue(bytes[start..<end])
            copied = end
        }
        output += bytes[copied...]
        return String(decoding: output, as: UTF8.self)
    }

    /// Whether the value at `start` starts like JSON, raw or percent-encoded, and is not a mask.
    private static func valueStartsLikeJSON(_ bytes: [UInt8], at start: Int) -> Bool {
        guard start < bytes.count else { return false }
        switch bytes[start] {
        case UInt8(ascii: "{"): return true
        case UInt8(ascii: "["): return !bytes[start...].starts(with: mask.utf8)
        case UInt8(ascii: "%"):
            guard start + 2 < bytes.count else { return false }
            let high = bytes[start + 1], low = bytes[start + 2] | 0x20
            return (high == UInt8(ascii: "7") && low == UInt8(ascii: "b")) || (high == UInt8(ascii: "5") && low == UInt8(ascii: "b"))
        default: return false
        }
    }

    /// A form value that starts like JSON, masked by the JSON rules and form-encoded again;
    /// as it was when it is not JSON or holds nothing to mask.
    private func maskedJSONFormValue(_ raw: ArraySlice<UInt8>) -> [UInt8] {
        let text = String(decoding: raw, as: UTF8.self)
        guard let value = text.replacingOccurrences(of: "+", with: " ").removingPercentEncoding else { return Array(raw) }
        let masked = String(decoding: redactedBody(Data(value.utf8), contentType: "application/json"), as: UTF8.self)
        guard masked != value else { return Array(raw) }
        return Array((masked.addingPercentEncoding(withAllowedCharacters: Self.formValueAllowed) ?? Self.mask).utf8)
    }

    /// What a form value may hold unescaped.
    private static let formValueAllowed = CharacterSet.alphanumerics.union(CharacterSet(charactersIn: "-._~[]"))

    /// A body of no known shape at `.standard`, decided by what it holds:
    /// - UTF-8 text without control characters but tabs and line breaks (YAML, JSONP
    ///   `callback({…})`, GraphQL or a form sent as
    ///   `text/plain`, HTML, an `application/http` part) gets the text rules
    ///   (``redactedText(_:)``), so `password: …`, `"token":"…"`, `name=value` pairs,
    ///   credentials and URLs are masked; past the text rules' 64 KiB a marker says how much
    ///   was left out.
    /// - Other binary data (an image, protobuf) is kept. (Compressed data and UTF-16 text,
    ///   which may hide any of that, are classified apart and noted as unparsed.)
    private func redactedOtherBody(_ body: Data, isTruncated: Bool) -> Data {
        let isText = !body.contains { $0 < 0x20 && $0 != 0x09 && $0 != 0x0A && $0 != 0x0D && $0 != 0x0C || $0 == 0x7F }
        // Text that no rule could touch anywhere (a multipart part's `value`) is returned whole,
        // read in place; it is ASCII, since any other byte makes a rule possible.
        guard isText, body.withUnsafeBytes({ textRulesMayChange(utf8: $0.bindMemory(to: UInt8.self)) }) else { return body }
        // A cut may end inside a character.
        if let text = UTF8Text.decode(body, isCut: isTruncated) { return Data(redactedTextBody(text).utf8) }
        // Text in an undeclared 8-bit charset: read as Latin-1, returned as it came unless a
        // rule masked something in it.
        guard let text = String(data: body, encoding: .isoLatin1) else { return body }
        let scrubbed = redactedTextBody(text)
        return scrubbed == text ? body : Data(scrubbed.utf8)
    }

    /// Text of any length by the text rules, read in pieces of at most
    /// ``maximumScrubbedTextBytes`` cut at whitespace, so a body is masked whole up to its
    /// capture cap and never cut by the text rules' own limit. A run without whitespace that
    /// goes on past a piece (minified code, a data URL, a long query string) is read whole,
    /// with what leads it in its piece: it is masked where the rules find a secret in it (a
    /// known format, a JWT, a pair, a URL's query item), never for its length alone.
    private func redactedTextBody(_ text: String) -> String {
        guard text.utf8.count > Self.maximumScrubbedTextBytes else { return redactedText(text) }
        let bytes = Array(text.utf8)
        func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 || byte == 0x0C }
        var output = ""
        output.reserveCapacity(bytes.count)
        var start = 0
        while start < bytes.count {
            var end = min(start + Self.maximumScrubbedTextBytes, bytes.count)
            if end < bytes.count {
                var cut = end
                while cut > start, !isSpace(bytes[cut - 1]) { cut -= 1 }
                var runEnd = end
                while runEnd < bytes.count, !isSpace(bytes[runEnd]) { runEnd += 1 }
                // A run longer than a piece would be cut by any piece: it is read with the words
                // before it (`Bearer`, `token`), which say what it is.
                end = cut == start || runEnd - cut > Self.maximumScrubbedTextBytes ? runEnd : cut
            }
            let piece = String(decoding: bytes[start..<end], as: UTF8.self)
            output += end - start > Self.maximumScrubbedTextBytes ? redactedText(piece, byteLimit: .max) : redactedText(piece)
            start = end
        }
        return output
    }

    /// What a body that hides text in a form no masker reads is: compressed, or UTF-16.
    fileprivate static func unparsedKind(of body: Data) -> String? {
        guard let first = body.first, first == 0x1F || first == 0x28 || first == 0x50 || first == 0x78 || first == 0xFF || first == 0xFE
            || first == 0 || body.count > 1 && body[body.startIndex + 1] == 0
        else { return nil }
        let head = [UInt8](body.prefix(4))
        if head.starts(with: [0x1F, 0x8B]) { return "gzip" }
        if head.starts(with: [0x28, 0xB5, 0x2F, 0xFD]) { return "zstd" }
        if head.starts(with: [0x50, 0x4B, 0x03, 0x04]) { return "zip" }
        if head.count >= 2, head[0] == 0x78, [0x01, 0x5E, 0x9C, 0xDA].contains(head[1]) { return "zlib" }
        if head.starts(with: [0xFF, 0xFE]) || head.starts(with: [0xFE, 0xFF]) { return "UTF-16 text" }
        // UTF-16 without a byte order mark: ASCII text with a zero byte beside every character.
        let sample = [UInt8](body.prefix(64))
        if sample.count >= 8 {
            let evenZeros = stride(from: 0, to: sample.count, by: 2).allSatisfy { sample[$0] == 0 }
            let oddZeros = stride(from: 1, to: sample.count, by: 2).allSatisfy { sample[$0] == 0 }
            if evenZeros || oddZeros { return "UTF-16 text" }
        }
        return nil
    }

    /// The data of one streamed message (a server-sent event's `data:` value, a JSON line):
    /// by the JSON rules when it is JSON (an object, an array, or a string, which may carry
    /// JSON), or when it was cut short and starts like JSON; otherwise (OpenAI's `[DONE]`,
    /// plain tokens, a line that is not JSON) by the text rules at `.standard` and as a note of
    /// its size at `.strict`, as a body that is not JSON would be.
    ///
    /// A server-sent event's `event:` name (`eventType`) judges its data as a body key judges
    /// its value: the data of `event: session_token` is masked.
    ///
    /// - Parameters:
    ///   - data: The message's data, or the captured start of it.
    ///   - isTruncated: Whether `data` is only the start of a longer message.
    ///   - eventType: A server-sent event's `event:` name, if any.
    /// - Returns: The masked data.
    public func redactedStreamData(_ data: Data, isTruncated: Bool, eventType: String? = nil) -> Data {
        guard level != .none || !sensitiveBodyKeys.isEmpty, !data.isEmpty else { return data }
        let rule = eventRule(eventType)
        let masked = data.withUnsafeBytes { maskedMessage($0.bindMemory(to: UInt8.self)[...], isTruncated: isTruncated, eventRule: rule) }
        return masked.map { Data($0) } ?? data
    }

    /// What an event's `event:` name says of its data, as a body key of its value: `nil` for
    /// no name, a name no list makes sensitive (the level then applies as to any data), and
    /// a name the exceptions make ordinary (``nameExceptions``).
    private func eventRule(_ eventType: String?) -> ValueRule? {
        guard let eventType, !eventType.isEmpty else { return nil }
        let rules = nameRules
        let exceptions = nameExceptions
        return NameKey.with(eventType) { key -> ValueRule? in
            guard !exceptions.isOrdinaryEvent(key) else { return nil }
            switch rules.rule(for: key, as: .body) {
            case .mask: return .maskEvery
            case .maskText: return .maskText
            case .keep, .levelDecides: return nil
            }
        }
    }

    /// One message's data masked (see ``redactedStreamData(_:isTruncated:eventType:)``), or
    /// `nil` when nothing in it changes.
    /// `keyMemory` holds the facts of the keys of the stream's messages before.
    private func maskedMessage(
        _ data: Slice<UnsafeBufferPointer<UInt8>>, isTruncated: Bool, eventRule: ValueRule?, keyMemory: JSONKeyMemory? = nil
    ) -> [UInt8]? {
        let first = data.first { $0 != 0x20 && $0 != 0x09 && $0 != 0x0A && $0 != 0x0D }
        if first == UInt8(ascii: "{") || first == UInt8(ascii: "[") || first == UInt8(ascii: "\"") {
            let masker = JSONMasker(
                redactor: self, mode: level == .strict ? .everyValue : .sensitiveKeys, masksGraphQLQuery: true,
                isPrefix: isTruncated, documentRule: eventRule, keyMemory: keyMemory
            )
            let result = masker.mask(UnsafeBufferPointer(rebasing: data))
            if result.failedAt == nil {
                let isUnchanged = result.output.count == data.count
                    && result.output.withUnsafeBufferPointer { memcmp($0.baseAddress!, data.base.baseAddress! + data.startIndex, data.count) == 0 }
                return isUnchanged ? nil : result.output
            }
        }
        if let eventRule, eventRule.masks(text: data) { return Array(Self.mask.utf8) }
        guard level != .strict else { return Array("[REDACTED: \(data.count) bytes of text]".utf8) }
        guard textRulesMayChange(utf8: UnsafeBufferPointer(rebasing: data)) else { return nil }
        let text = String(decoding: data, as: UTF8.self)
        let scrubbed = redactedText(text)
        return scrubbed == text ? nil : Array(scrubbed.utf8)
    }

    /// A server-sent event stream, event by event as WHATWG's parser reads it (framed by
    /// `EventStreamLine`, as the observers' message parser frames it): the `data:`
    /// lines of one event are joined with line feeds and masked as one message
    /// (``redactedStreamData(_:isTruncated:eventType:)``, under the event's `event:` name), then
    /// written back as data lines in their places; every other line (`event:`, `id:`,
    /// comments) gets the text rules. Line ends are kept as they were; an event that nothing
    /// changes is copied as it came.
    private func maskedEventStream(_ body: Data, isTruncated: Bool) -> Data {
        body.withUnsafeBytes { raw in
            let bytes = raw.bindMemory(to: UInt8.self)
            var output: [UInt8] = []
            output.reserveCapacity(bytes.count)
            var event: [SSELine] = []
            let keyMemory = JSONKeyMemory(slotCount: 64)
            var index = 0
            while index < bytes.count {
                // A CR that ends the body ends its last line: no byte follows to join it.
                let (end, next) = EventStreamLine.end(in: bytes, from: index) ?? (bytes.count, bytes.count)
                let line = SSELine(bytes, text: index..<end, next: next)
                event.append(line)
                index = next
                if line.text.isEmpty {
                    appendMaskedEvent(event, in: bytes, isCut: false, keyMemory: keyMemory, to: &output)
                    event.removeAll(keepingCapacity: true)
                }
            }
            appendMaskedEvent(event, in: bytes, isCut: isTruncated, keyMemory: keyMemory, to: &output)
            return Data(output)
        }
    }

    /// One line of an event stream, as ranges of the stream's bytes.
    private struct SSELine {
        /// The line without its break.
        let text: Range<Int>
        /// The line's field value: after the colon and one space (empty without a colon).
        let value: Range<Int>
        /// Where the next line starts: after the break.
        let next: Int
        let isData: Bool
        let isEvent: Bool

        init(_ bytes: UnsafeBufferPointer<UInt8>, text: Range<Int>, next: Int) {
            self.text = text
            self.next = next
            let (field, value) = EventStreamLine.field(of: bytes[text])
            self.value = value
            isData = field == .data
            isEvent = field == .event
        }
    }

    /// The lines of one event, masked: its data as one message, the other lines by the text
    /// rules; copied as they came when nothing changes.
    private func appendMaskedEvent(
        _ lines: [SSELine], in bytes: UnsafeBufferPointer<UInt8>, isCut: Bool, keyMemory: JSONKeyMemory, to output: inout [UInt8]
    ) {
        guard let first = lines.first, let last = lines.last else { return }
        let eventRule = eventRule(lines.last { $0.isEvent }.map { String(decoding: bytes[$0.value], as: UTF8.self) })
        let dataLines = lines.filter(\.isData)
        var masked: [UInt8]?
        if dataLines.count == 1 {
            masked = maskedMessage(bytes[dataLines[0].value], isTruncated: isCut, eventRule: eventRule, keyMemory: keyMemory)
        } else if dataLines.count > 1 {
            var joined: [UInt8] = []
            for (position, line) in dataLines.enumerated() {
                if position > 0 { joined.append(0x0A) }
                joined += bytes[line.value]
            }
            masked = joined.withUnsafeBufferPointer { maskedMessage($0[...], isTruncated: isCut, eventRule: eventRule, keyMemory: keyMemory) }
        }
        let otherLinesChange = lines.contains { !$0.isData && !$0.text.isEmpty && textRulesMayChange(utf8: UnsafeBufferPointer(rebasing: bytes[$0.text])) }
        guard masked != nil || otherLinesChange else {
            output += bytes[first.text.lowerBound..<last.next]
            return
        }
        // The masked data, split at its line feeds, one piece per data line; the last data line
        // takes every piece left.
        var pieces = masked.map { $0.split(separator: 0x0A, omittingEmptySubsequences: false) } ?? dataLines.map { bytes[$0.value].map { $0 }[...] }
        var dataLinesLeft = dataLines.count
        for line in lines {
            guard line.isData else {
                output += Array(redactedText(String(decoding: bytes[line.text], as: UTF8.self)).utf8)
                output += bytes[line.text.upperBound..<line.next]
                continue
            }
            dataLinesLeft -= 1
            let count = dataLinesLeft == 0 ? pieces.count : min(1, pieces.count)
            for (offset, piece) in pieces.prefix(count).enumerated() {
                output += bytes[line.text.lowerBound..<line.value.lowerBound]
                output += piece
                let lineBreak = bytes[line.text.upperBound..<line.next]
                output += offset == count - 1 || !lineBreak.isEmpty ? Array(lineBreak) : [0x0A]
            }
            pieces.removeFirst(count)
        }
    }

    private enum BodyKind {
        case json, jsonLines, eventStream, graphQL, form, multipart(boundary: String?), xml, other
        /// Compressed data or UTF-16 text, which no masker reads: what it is.
        case unparsed(String)

        init(media: (type: String, boundary: String?)?, body: Data) {
            let type = media?.type ?? ""
            let subtype = type.split(separator: "/").last.map(String.init) ?? ""
            if ["ndjson", "jsonl", "jsonlines", "json-seq"].contains(where: subtype.contains) {
                self = .jsonLines
            } else if subtype.contains("json") {
                self = .json
            } else if type == "text/event-stream" {
                self = .eventStream
            } else if type == "application/graphql" {
                self = .graphQL
            } else if type == "application/x-www-form-urlencoded" {
                // URLSession labels an unlabelled POST this way, JSON bodies included.
                self = Self.startsLikeJSON(body) ? .json : .form
            } else if type.hasPrefix("multipart/") {
                self = .multipart(boundary: media?.boundary)
            } else if subtype == "xml" || subtype.hasSuffix("+xml") {
                self = .xml
            } else {
                // Whatever the label says, a body shaped like JSON or a form is masked as one,
                // unless it is compressed or UTF-16 (noted as unparsed).
                if let kind = Redactor.unparsedKind(of: body) {
                    self = .unparsed(kind)
                } else if Self.startsLikeJSON(body) || body.starts(with: Redactor.jsonHijackingPrefix) {
                    self = .json
                } else if Self.looksLikeForm(body) {
                    self = .form
                } else if Self.startsLikeXML(body) {
                    self = .xml
                } else if let boundary = Self.leadingMultipartBoundary(body) {
                    self = .multipart(boundary: boundary)
                } else {
                    self = .other
                }
            }
        }

        /// The boundary of a body that starts like multipart content: `--boundary` (1 to 70
        /// visible characters, RFC 2046), a line break, and a `Content-` header.
        private static func leadingMultipartBoundary(_ body: Data) -> String? {
            guard body.starts(with: [UInt8(ascii: "-"), UInt8(ascii: "-")]) else { return nil }
            let line = body.dropFirst(2).prefix { $0 != 0x0D && $0 != 0x0A }
            guard (1...70).contains(line.count), line.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else { return nil }
            let next = body[line.endIndex...].drop { $0 == 0x0D || $0 == 0x0A }.prefix(8)
            guard String(decoding: next, as: UTF8.self).lowercased() == "content-" else { return nil }
            return String(decoding: line, as: UTF8.self)
        }

        /// An XML declaration, or a start tag, after optional whitespace and byte order mark.
        private static func startsLikeXML(_ body: Data) -> Bool {
            let content = body.drop { [0x20, 0x0A, 0x0D, 0x09, 0xEF, 0xBB, 0xBF].contains($0) }
            guard content.first == UInt8(ascii: "<"), let second = content.dropFirst().first else { return false }
            return second == UInt8(ascii: "?") || (second | 0x20 >= UInt8(ascii: "a") && second | 0x20 <= UInt8(ascii: "z"))
        }

        fileprivate static func startsLikeJSON(_ body: Data) -> Bool {
            let first = body.first { ![0x20, 0x0A, 0x0D, 0x09, 0xEF, 0xBB, 0xBF].contains($0) }
            return first == UInt8(ascii: "{") || first == UInt8(ascii: "[")
        }

        /// `name=value(&name=value)*` without control characters, of any size, maybe followed
        /// by a line break (as a token response or a multipart part ends). Values may hold
        /// raw spaces and UTF-8; the first name holds neither spaces nor `=`.
        private static func looksLikeForm(_ body: Data) -> Bool {
            body.withUnsafeBytes { looksLikeForm($0[...]) }
        }

        private static func looksLikeForm(_ body: Slice<UnsafeRawBufferPointer>) -> Bool {
            var content = body
            while let last = content.last, last == 0x0A || last == 0x0D { content = content.dropLast() }
            guard let first = content.first, first != UInt8(ascii: "="), first != UInt8(ascii: "&") else { return false }
            // One word ending in `=` padding (`eyJ…fQ==`) is base64, not a form.
            if !content.contains(UInt8(ascii: "&")), let equals = content.firstIndex(of: UInt8(ascii: "=")),
                content[equals...].allSatisfy({ $0 == UInt8(ascii: "=") })
            {
                return false
            }
            var sawEquals = false
            var segmentHasEquals = false
            for byte in content {
                guard byte >= 0x20, byte != 0x7F else { return false }
                if byte == UInt8(ascii: "=") {
                    sawEquals = true
                    segmentHasEquals = true
                } else if byte == UInt8(ascii: "&") {
                    guard segmentHasEquals else { return false }
                    segmentHasEquals = false
                } else if byte == 0x20, !sawEquals {
                    return false
                }
            }
            return sawEquals
        }
    }

    /// The prefix some APIs put before JSON so that a `<script>` tag cannot run it.
    static let jsonHijackingPrefix = Data(")]}'".utf8)

    private func maskedJSON(_ body: Data, isTruncated: Bool) -> Data {
        // A UTF-8 byte order mark, or the anti-hijacking prefix and its line break, is kept and
        // the JSON after it masked.
        let bom = Data([0xEF, 0xBB, 0xBF])
        if body.starts(with: bom) {
            return bom + maskedJSON(Data(body.dropFirst(3)), isTruncated: isTruncated)
        }
        if body.starts(with: Self.jsonHijackingPrefix) {
            let rest = body.dropFirst(Self.jsonHijackingPrefix.count)
            let json = rest.drop { $0 == UInt8(ascii: ",") || $0 == 0x0A || $0 == 0x0D }
            return Data(body[..<json.startIndex]) + maskedJSON(Data(json), isTruncated: isTruncated)
        }
        let masker = JSONMasker(
            redactor: self,
            mode: level == .strict ? .everyValue : .sensitiveKeys,
            masksGraphQLQuery: true,
            isPrefix: isTruncated
        )
        let result = body.withUnsafeBytes { raw in masker.mask(raw.bindMemory(to: UInt8.self)) }
        guard let failedAt = result.failedAt else { return Data(result.output) }
        return Data(result.output) + Data("…[REDACTED: unreadable JSON, \(body.count - failedAt) more bytes]".utf8)
    }

    /// Multipart text with the content of sensitively named parts masked and other parts
    /// redacted by their own content type; `nil` when the boundary never occurs. Every segment
    /// after a delimiter is a part, the last one too: a body cut inside a part (by a capture
    /// cap, `isTruncated`) has no closing delimiter, and that part's content is redacted as a
    /// prefix; a part whose headers were cut becomes a marker, or is left out at the end of a
    /// truncated body. One pass over the bytes, however many parts.
    private func maskedMultipart(_ body: Data, boundary: String, isTruncated: Bool, depth: Int) -> Data? {
        let bytes = [UInt8](body)
        let delimiter = Array("--\(boundary)".utf8)
        let headerEnd = Array("\r\n\r\n".utf8)
        guard !boundary.isEmpty, let first = Self.firstIndex(of: delimiter, in: bytes, from: 0) else { return nil }
        var next: Int? = first
        var output = [UInt8]()
        output.reserveCapacity(bytes.count)
        var cursor = 0
        var isPreamble = true
        while true {
            let part = bytes[cursor..<(next ?? bytes.count)]
            if isPreamble || part.starts(with: [UInt8(ascii: "-"), UInt8(ascii: "-")]) {
                output += part
            } else if let separator = Self.firstIndex(of: headerEnd, in: bytes, from: cursor, to: part.endIndex) {
                let contentStart = separator + headerEnd.count
                output += bytes[cursor..<contentStart]
                let headers = MultipartPartHeaders(bytes[cursor..<separator])
                let rule = headers.name.map { NameTest.formKeys(self).rule(formKey: Array($0.utf8)[...]) } ?? .keep
                let value = bytes[contentStart..<part.endIndex].reversed().drop { $0 == 0x0D || $0 == 0x0A }.reversed()
                if rule.masks(text: value) {
                    output += Array("\(Self.mask)\r\n".utf8)
                } else {
                    let content = Data(bytes[contentStart..<part.endIndex])
                    let isCutShort = isTruncated && next == nil
                    output += redactedBody(content, contentType: headers.contentType, isTruncated: isCutShort, depth: depth + 1)
                }
            } else if !part.isEmpty, !(isTruncated && next == nil) {
                output += Array("\r\n[REDACTED: incomplete part]".utf8)
            }
            guard let found = next else { break }
            output += delimiter
            cursor = found + delimiter.count
            isPreamble = false
            next = Self.firstIndex(of: delimiter, in: bytes, from: cursor)
        }
        return Data(output)
    }

    /// Where `pattern` first starts in `bytes[from..<to]`.
    private static func firstIndex(of pattern: [UInt8], in bytes: [UInt8], from start: Int, to end: Int? = nil) -> Int? {
        let end = end ?? bytes.count
        guard let head = pattern.first, end - start >= pattern.count else { return nil }
        var index = start
        let last = end - pattern.count
        while index <= last {
            if bytes[index] == head, bytes[index..<(index + pattern.count)].elementsEqual(pattern) { return index }
            index += 1
        }
        return nil
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
