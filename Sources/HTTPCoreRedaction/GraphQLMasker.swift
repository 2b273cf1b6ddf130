/// Masks the literals of GraphQL query text by the names they are given to, keeping its
/// structure readable.
///
/// A string, block string or number becomes ``Redactor/graphQLLiteralMask`` when the name
/// of its argument, input field or variable (the nearest `name:` before it; a list's
/// elements take the list's) masks such a value by the redactor's rules, as a JSON key
/// would: `login(password: ***)`, `user(pin: ***)`, while `issues(first: 10)` and
/// `repository(owner: "octocat")` are kept. At `.strict` every literal is masked. Names,
/// variable references, `true`, `false`, `null`, enum values and punctuation are kept.
/// Comments are removed, since they can hold anything.
///
/// The variables a query passes (`login(password: $p)`) take the rules of the arguments they
/// are passed to, and of their own names (``Masked/variableRules``), so the operation's
/// `variables` object is judged by what each variable is for: `{"p": "[REDACTED]"}`.
enum GraphQLMasker {
    /// Query text with its literals masked, and what each variable is for.
    struct Masked {
        let text: String
        /// For each variable the query passes as an argument, the strongest rule of the
        /// arguments it is passed to and of its own name. A variable not passed is not listed.
        let variableRules: [String: ValueRule]
    }

    static func maskLiterals(in query: String, redactor: Redactor) -> String {
        mask(query, redactor: redactor).text
    }

    static func mask(_ query: String, redactor: Redactor) -> Masked {
        var variableRules: [String: ValueRule] = [:]
        let rules = redactor.nameRules
        func rule(of name: ArraySlice<UInt8>) -> ValueRule {
            name.withUnsafeBufferPointer { name in NameKey.with(utf8: name) { rules.valueRule(for: $0, as: .body) } }
        }
        let masksEvery = redactor.level == .strict
        /// The rule of the name literals are given to now.
        var argumentRule = ValueRule.keep
        /// The last name read, until a `:` makes it the argument's.
        var lastName: ArraySlice<UInt8>?
        let bytes = Array(query.utf8)
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count)
        let mask = Array(Redactor.graphQLLiteralMask.utf8)
        var index = 0
        func isNameStart(_ byte: UInt8) -> Bool {
            byte == UInt8(ascii: "_") || (byte | 0x20 >= UInt8(ascii: "a") && byte | 0x20 <= UInt8(ascii: "z"))
        }
        func isNameContinue(_ byte: UInt8) -> Bool {
            isNameStart(byte) || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
        }
        func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }
        func startsBlockString(_ at: Int) -> Bool {
            at + 2 < bytes.count && bytes[at] == 0x22 && bytes[at + 1] == 0x22 && bytes[at + 2] == 0x22
        }
        while index < bytes.count {
            let byte = bytes[index]
            if startsBlockString(index) {
                let start = index
                index += 3
                while index < bytes.count, !startsBlockString(index) {
                    index += bytes[index] == UInt8(ascii: "\\") ? 2 : 1
                }
                index = min(index + 3, bytes.count)
                if masksEvery || argumentRule.masks(.string) { output.append(contentsOf: mask) } else { output += bytes[start..<index] }
            } else if byte == UInt8(ascii: "\"") {
                let start = index
                index += 1
                while index < bytes.count, bytes[index] != UInt8(ascii: "\""), bytes[index] != 0x0A {
                    index += bytes[index] == UInt8(ascii: "\\") ? 2 : 1
                }
                index = min(index + 1, bytes.count)
                if masksEvery || argumentRule.masks(.string) { output.append(contentsOf: mask) } else { output += bytes[start..<index] }
            } else if byte == UInt8(ascii: "#") {
                while index < bytes.count, bytes[index] != 0x0A, bytes[index] != 0x0D { index += 1 }
            } else if byte == UInt8(ascii: "$") || isNameStart(byte) {
                let start = index
                index += 1
                while index < bytes.count, isNameContinue(bytes[index]) { index += 1 }
                output.append(contentsOf: bytes[start..<index])
                let name = bytes[(bytes[start] == UInt8(ascii: "$") ? start + 1 : start)..<index]
                lastName = name
                // A variable passed as a value (not defined: `$p: String`) takes the argument's rule.
                let next = bytes[index...].first { $0 != 0x20 && $0 != 0x09 && $0 != 0x0A && $0 != 0x0D }
                if bytes[start] == UInt8(ascii: "$"), next != UInt8(ascii: ":") {
                    let key = String(decoding: name, as: UTF8.self)
                    variableRules[key] = (variableRules[key] ?? rule(of: name)).union(argumentRule)
                }
            } else if isDigit(byte) || (byte == UInt8(ascii: "-") && index + 1 < bytes.count && isDigit(bytes[index + 1])) {
                let start = index
                index += 1
                while index < bytes.count,
                    isNameContinue(bytes[index]) || bytes[index] == UInt8(ascii: ".")
                        || ((bytes[index] == UInt8(ascii: "-") || bytes[index] == UInt8(ascii: "+"))
                            && (bytes[index - 1] | 0x20) == UInt8(ascii: "e"))
                {
                    index += 1
                }
                if masksEvery || argumentRule.masks(.number) { output.append(contentsOf: mask) } else { output += bytes[start..<index] }
            } else {
                if byte == UInt8(ascii: ":"), let name = lastName { argumentRule = rule(of: name) }
                if byte != 0x20, byte != 0x09, byte != 0x0A, byte != 0x0D { lastName = nil }
                output.append(byte)
                index += 1
            }
        }
        return Masked(text: String(decoding: output, as: UTF8.self), variableRules: variableRules)
    }
}
