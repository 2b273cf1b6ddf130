/// Masks the values of sensitively named elements and attributes in XML text, in one pass,
/// copying every other byte.
///
/// Names are matched by their local part (`wsse:Password` is `Password`). An attribute's
/// value becomes ``Redactor/mask`` inside its quotes; a sensitive element's whole content
/// (text, CDATA, child elements) becomes ``Redactor/mask`` between its tags. Comments,
/// processing instructions and declarations are copied. A sensitive element that never
/// closes, or a tag cut short, masks everything after it: unreadable input is never copied raw.
enum XMLMasker {
    static func mask(_ input: [UInt8], redactor: Redactor) -> [UInt8] {
        var scanner = Scanner(input: input, redactor: redactor)
        scanner.run()
        return scanner.output
    }

    private struct Scanner {
        let input: [UInt8]
        let redactor: Redactor
        /// The redactor's name rules, copied once for the many names of a document.
        let rules: NameRules
        var index = 0
        var output: [UInt8] = []

        init(input: [UInt8], redactor: Redactor) {
            self.input = input
            self.redactor = redactor
            rules = redactor.nameRules
            output.reserveCapacity(input.count)
        }

        mutating func run() {
            while index < input.count {
                guard input[index] == UInt8(ascii: "<") else {
                    let next = input[index...].firstIndex(of: UInt8(ascii: "<")) ?? input.count
                    output.append(contentsOf: input[index..<next])
                    index = next
                    continue
                }
                if starts(with: "<!--") {
                    comment()
                } else if starts(with: "<![CDATA[") {
                    copy(through: "]]>")
                } else if starts(with: "<!") || starts(with: "<?") || starts(with: "</") {
                    copy(through: ">")
                } else if !tag() {
                    return
                }
            }
        }

        /// Reads a start tag at `index`, masking sensitive attribute values and, when the element
        /// is sensitive, its content. Returns `false` when the rest of the input was masked.
        mutating func tag() -> Bool {
            let nameStart = index + 1
            var position = nameStart
            while position < input.count, !isDelimiter(input[position]) { position += 1 }
            let name = input[nameStart..<position]
            output.append(contentsOf: input[index..<position])
            index = position
            while index < input.count {
                let byte = input[index]
                if byte == UInt8(ascii: ">") || (byte == UInt8(ascii: "/") && index + 1 < input.count && input[index + 1] == UInt8(ascii: ">")) {
                    let isEmptyElement = byte == UInt8(ascii: "/")
                    let end = index + (isEmptyElement ? 2 : 1)
                    output.append(contentsOf: input[index..<end])
                    index = end
                    if !isEmptyElement, !name.isEmpty, masksContent(of: name) { return maskContent(of: name) }
                    return true
                }
                if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'") {
                    // A quoted value without its attribute name (malformed): copy it.
                    guard let close = input[(index + 1)...].firstIndex(of: byte) else { break }
                    output.append(contentsOf: input[index...close])
                    index = close + 1
                } else if isDelimiter(byte) || byte == UInt8(ascii: "=") {
                    output.append(byte)
                    index += 1
                } else if !attribute() {
                    return false
                }
            }
            output.append(contentsOf: Redactor.mask.utf8)
            index = input.count
            return false
        }

        /// Reads `name="value"` at `index`, masking the value when the name is sensitive.
        mutating func attribute() -> Bool {
            let nameStart = index
            while index < input.count, !isDelimiter(input[index]), input[index] != UInt8(ascii: "=") { index += 1 }
            let name = input[nameStart..<index]
            output.append(contentsOf: name)
            while index < input.count, isSpace(input[index]) || input[index] == UInt8(ascii: "=") {
                output.append(input[index])
                index += 1
            }
            guard index < input.count else { return true }
            let quote = input[index]
            guard quote == UInt8(ascii: "\"") || quote == UInt8(ascii: "'") else { return true }
            guard let close = input[(index + 1)...].firstIndex(of: quote) else {
                output.append(contentsOf: Redactor.mask.utf8)
                index = input.count
                return false
            }
            if rule(name).masks(text: input[(index + 1)..<close]) {
                output.append(quote)
                output.append(contentsOf: Redactor.mask.utf8)
                output.append(quote)
            } else {
                output.append(contentsOf: input[index...close])
            }
            index = close + 1
            return true
        }

        /// Replaces everything up to the element's matching end tag by the mask; elements of
        /// the same name inside it are counted, so the right end tag closes it.
        mutating func maskContent(of name: ArraySlice<UInt8>) -> Bool {
            var depth = 1
            var position = index
            while let open = input[position...].firstIndex(of: UInt8(ascii: "<")) {
                let isEnd = open + 1 < input.count && input[open + 1] == UInt8(ascii: "/")
                let nameStart = open + (isEnd ? 2 : 1)
                let nameEnd = nameStart + name.count
                position = open + 1
                guard nameEnd < input.count, input[nameStart..<nameEnd].elementsEqual(name),
                    isDelimiter(input[nameEnd])
                else { continue }
                if isEnd {
                    depth -= 1
                    if depth == 0 {
                        output.append(contentsOf: Redactor.mask.utf8)
                        index = open
                        return true
                    }
                } else {
                    depth += 1
                }
            }
            output.append(contentsOf: Redactor.mask.utf8)
            index = input.count
            return false
        }

        /// A comment at `index`, its text by the text rules (a commented-out
        /// `<password>…</password>` or `password=…` is masked like free text); an unclosed
        /// comment runs to the end.
        mutating func comment() {
            let open = 4
            var position = index + open
            while position + 3 <= input.count, !(input[position] == 0x2D && input[position + 1] == 0x2D && input[position + 2] == 0x3E) {
                position += 1
            }
            let textEnd = min(position, input.count)
            output.append(contentsOf: input[index..<(index + open)])
            let text = String(decoding: input[(index + open)..<textEnd], as: UTF8.self)
            output.append(contentsOf: redactor.redactedText(text).utf8)
            let end = min(textEnd + 3, input.count)
            output.append(contentsOf: input[textEnd..<end])
            index = end
        }

        mutating func copy(through terminator: StaticString) {
            let pattern = UnsafeBufferPointer(start: terminator.utf8Start, count: terminator.utf8CodeUnitCount)
            var position = index + 1
            while position + pattern.count <= input.count {
                if input[position] == pattern[0], input[position..<(position + pattern.count)].elementsEqual(pattern) {
                    output.append(contentsOf: input[index..<(position + pattern.count)])
                    index = position + pattern.count
                    return
                }
                position += 1
            }
            output.append(contentsOf: input[index...])
            index = input.count
        }

        func starts(with prefix: StaticString) -> Bool {
            let pattern = UnsafeBufferPointer(start: prefix.utf8Start, count: prefix.utf8CodeUnitCount)
            return input.count - index >= pattern.count && input[index..<(index + pattern.count)].elementsEqual(pattern)
        }

        func isSpace(_ byte: UInt8) -> Bool {
            byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
        }

        func isDelimiter(_ byte: UInt8) -> Bool {
            isSpace(byte) || byte == UInt8(ascii: ">") || byte == UInt8(ascii: "/") || byte == UInt8(ascii: "<")
        }

        /// Whether the content of the element that starts at `index` is masked: by its name's
        /// rule, a number or boolean alone in it kept under a name that masks text only.
        func masksContent(of name: ArraySlice<UInt8>) -> Bool {
            switch rule(name) {
            case .maskEvery: return true
            case .keep: return false
            case .maskText:
                guard let close = input[index...].firstIndex(of: UInt8(ascii: "<")) else { return true }
                let content = input[index..<close].drop { isSpace($0) }.reversed().drop { isSpace($0) }
                return !(close + 1 < input.count && input[close + 1] == UInt8(ascii: "/") && ValueRule.isNumberOrBoolean(content.reversed()))
            }
        }

        /// What the name of an element or attribute says of its value, judged by its local
        /// name; ASCII names are read in place.
        func rule(_ name: ArraySlice<UInt8>) -> ValueRule {
            let local = name.lastIndex(of: UInt8(ascii: ":")).map { name[($0 + 1)...] } ?? name
            let rules = rules
            guard local.allSatisfy({ $0 < 0x80 }) else {
                return NameKey.with(String(decoding: local, as: UTF8.self)) { rules.valueRule(for: $0, as: .body) }
            }
            return local.withUnsafeBufferPointer { bytes in NameKey.with(utf8: bytes) { rules.valueRule(for: $0, as: .body) } }
        }
    }
}
