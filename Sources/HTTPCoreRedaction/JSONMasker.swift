import Foundation
import HTTPCoreText

/// Masks values in JSON text in one pass, copying everything else byte for byte.
///
/// It never builds a document: it scans the input, copies the bytes of kept values and
/// writes ``Redactor/mask`` in place of masked ones. On malformed input it stops at the first
/// byte it cannot read and reports how far it got; what it wrote up to then holds only
/// complete, already-masked tokens, so a half-read secret is never emitted.
///
/// Input that is the first bytes of a longer document (``isPrefix``, a body cut at a capture
/// cap) is masked as far as it goes: the value it ends in is written up to the cut, by the
/// same rules as a whole one (a string's text rules applied to what there is of it), or
/// masked whole when its key is sensitive or every value is masked; a key cut short is left
/// out. The structures it ends in stay open.
struct JSONMasker {
    enum Mode {
        /// Mask the values of sensitive keys only.
        case sensitiveKeys
        /// Mask every scalar value, except under allowed keys.
        case everyValue
    }

    enum KeyRule: Equatable {
        /// The values under the key are judged by the rule (``ValueRule``): strings masked,
        /// numbers and booleans too under ``ValueRule/maskEvery``, at any depth; see
        /// ``Context/holderRule`` for the members of an object under the key.
        case judged(ValueRule)
        /// Only sensitive keys below are masked (an allowed key).
        case keepSensitiveOnly
        /// The mode decides.
        case inherit
    }

    /// What the keys above a value say about the keys below it.
    ///
    /// Under a name that holds a secret (``ValueRule/maskEvery``: `password`, `token`,
    /// `api_key`, `auth`), the secret is whatever the object holds: `{"password": {"old": …,
    /// "new": …}}` is a password change, `{"token": [{"v": …}]}` a token in parts. So every
    /// member takes the rule, at any depth, unless its own name says otherwise: a sensitive
    /// name masks by its own rule, an allowed one is kept, and a member that describes the
    /// secret rather than holds it is read as any value. A member describes it when one of
    /// its words is a descriptor (``NameMatcher/descriptorWords``), as the joined name would
    /// (`{"password": {"expires_at": …}}` as `password_expires_at`; `token_type`, `id`,
    /// `name`, `scope`, a tool schema's `type` and `description`). An object of a shape the
    /// redactor's exceptions name, under one of its holder keys (``NameExceptions/ObjectShape``),
    /// is read as any object. A leaked secret is an incident; a masked flag under a secret's
    /// name is the price.
    ///
    /// Under a name that only mentions secrets (``ValueRule/maskText``: `api_keys`,
    /// `promptTokensDetails`), an object is about them, not one of them: its members are
    /// judged by their own names, and only the value-holding ones
    /// (``JSONMasker/valueHolderKeys``: `{"api_keys": [{"value": …}]}`) take the rule.
    struct Context {
        /// The rule of the secret-named key an object sits under, which its members take.
        var holderRule: ValueRule?
        /// The exceptions' containers the value sits in (bit `n` for
        /// ``NameExceptions/containers``' `n`th), where their ordinary keys are no secret's.
        var containers: UInt8 = 0
        /// The exceptions' object shapes the key holds, so that an object of one of them
        /// under it is read as any object.
        var shapes: UInt8 = 0

        static let none = Context()
    }

    /// Keys of an object under a name that mentions secrets that hold the secret itself.
    static let valueHolderKeys = FlatNames([
        "value", "values", "data", "raw", "plain", "plaintext", "pass", "pwd", "string", "encoded", "base64", "b64", "hex",
        "ciphertext", "secret",
    ].map { Array($0.utf8) })

    struct Failure: Error {}

    /// The input ended inside a value or a structure.
    struct EndOfInput: Error {}

    static let maximumDepth = 256

    let redactor: Redactor
    let mode: Mode
    /// Whether a top-level `"query"` string is GraphQL text whose literals are masked.
    let masksGraphQLQuery: Bool
    /// Whether the input is the first bytes of a longer document, so that ending inside a
    /// value is the cut, not an error.
    let isPrefix: Bool
    /// The redactor's name rules, copied once for the many keys of a document.
    private let nameRules: NameRules
    /// The redactor's exceptions, copied once.
    private let exceptions: NameExceptions

    /// How many strings holding JSON this document sits in; deeper than
    /// ``maximumStringNesting`` such a string is masked whole.
    let stringNesting: Int

    /// How deep JSON inside JSON strings is read.
    static let maximumStringNesting = 8

    /// The rule the document itself is judged by, as the value of a named thing (a
    /// server-sent event's `event:` name); `nil` for a document of its own.
    let documentRule: ValueRule?

    /// The facts of keys read before, shared by the documents of one stream (its messages);
    /// `nil` for a document that remembers only its own. It must hold the facts of this
    /// masker's redactor only.
    let keyMemory: JSONKeyMemory?

    init(
        redactor: Redactor, mode: Mode, masksGraphQLQuery: Bool, isPrefix: Bool = false, stringNesting: Int = 0,
        documentRule: ValueRule? = nil, keyMemory: JSONKeyMemory? = nil
    ) {
        self.keyMemory = keyMemory
        self.redactor = redactor
        self.documentRule = documentRule
        self.stringNesting = stringNesting
        nameRules = redactor.nameRules
        exceptions = redactor.nameExceptions
        self.mode = mode
        self.masksGraphQLQuery = masksGraphQLQuery
        self.isPrefix = isPrefix
    }

    /// The masked text, and `nil` or the offset of the first byte that could not be read.
    ///
    /// Input that ends inside the document is read to its end when it ``isPrefix``, and
    /// fails at its end otherwise.
    func mask(_ input: UnsafeBufferPointer<UInt8>) -> (output: [UInt8], failedAt: Int?) {
        var scanner = Scanner(input: input, masker: self)
        do {
            scanner.skipWhitespace()
            if let documentRule, documentRule != .keep {
                try scanner.judgedValue(depth: 0, rule: documentRule, mode: mode, context: .none)
            } else {
                try scanner.value(depth: 0, mode: mode, key: nil, isOperation: true)
            }
            scanner.skipWhitespace()
            if scanner.index != input.count { throw Failure() }
            return (scanner.finishedOutput(), nil)
        } catch is EndOfInput where isPrefix {
            return (scanner.finishedOutput(), nil)
        } catch {
            return (scanner.finishedOutput(), scanner.index)
        }
    }

    /// What a key given as the raw bytes between its quotes says, its rule and what the
    /// redactor's exceptions make of it (see ``KeyFacts``), from one reading of the key.
    ///
    /// Plain ASCII keys (nearly all) are read in place, without allocating; keys with escapes
    /// or characters outside ASCII are decoded and folded first for their rule, and name no
    /// exception's ordinary key or holder.
    func facts(forRawKey raw: Slice<UnsafeBufferPointer<UInt8>>) -> KeyFacts {
        let exceptions = exceptions
        let opened = exceptions.isEmpty ? 0 : exceptions.containers(namedByRaw: raw)
        guard raw.count <= 256, raw.allSatisfy({ $0 < 0x80 && $0 != UInt8(ascii: "\\") }) else {
            return KeyFacts(rule: rule(forKey: JSONString.decode(raw) ?? ""), opensContainers: opened, ordinaryInContainers: 0, holdsShapes: 0)
        }
        let rules = nameRules
        return NameKey.with(utf8: UnsafeBufferPointer(rebasing: raw)) { key in
            guard !exceptions.isEmpty else { return KeyFacts(rule: Self.rule(for: key, rules), opensContainers: 0, ordinaryInContainers: 0, holdsShapes: 0) }
            return KeyFacts(
                rule: Self.rule(for: key, rules), opensContainers: opened,
                ordinaryInContainers: exceptions.containers(whereOrdinary: key, byteCount: raw.count),
                holdsShapes: exceptions.shapes(heldBy: key, byteCount: raw.count)
            )
        }
    }

    /// What a key's bytes say wherever it stands, worked out once per distinct key.
    struct KeyFacts {
        let rule: KeyRule
        /// The exceptions' containers it names (``NameExceptions/containers(namedByRaw:)``).
        let opensContainers: UInt8
        /// The containers inside which it is ordinary
        /// (``NameExceptions/containers(whereOrdinary:byteCount:)``).
        let ordinaryInContainers: UInt8
        /// The object shapes it may hold (``NameExceptions/shapes(heldBy:byteCount:)``).
        let holdsShapes: UInt8
    }

    func rule(forKey key: String) -> KeyRule {
        let rules = nameRules
        return NameKey.with(key) { Self.rule(for: $0, rules) }
    }

    private static func rule(for key: NameKey, _ rules: NameRules) -> KeyRule {
        switch rules.rule(for: key, as: .body) {
        case .mask: .judged(.maskEvery)
        case .maskText: .judged(.maskText)
        case .keep: .keepSensitiveOnly
        case .levelDecides: .inherit
        }
    }

    private struct Scanner {
        let input: UnsafeBufferPointer<UInt8>
        let masker: JSONMasker
        var index = 0
        /// The output written so far; the input bytes of ``pending`` follow it.
        private var written: [UInt8] = []
        /// Input copied to the output but not yet written: runs of kept bytes are written with
        /// one memcpy each, when something else must be written or the scan ends.
        private var pending = 0..<0
        /// What the variables of the GraphQL query last read are for (see
        /// ``GraphQLMasker/Masked/variableRules``), until its operation's `variables` take them.
        var graphQLVariableRules: [String: ValueRule]?
        /// What the keys read say: the masker's memory, or one of this document's own.
        private let keyMemory: JSONKeyMemory

        init(input: UnsafeBufferPointer<UInt8>, masker: JSONMasker) {
            self.input = input
            self.masker = masker
            // A small document has few keys.
            keyMemory = masker.keyMemory ?? JSONKeyMemory(slotCount: input.count < 1024 ? 16 : 64)
            written.reserveCapacity(input.count)
        }

        /// The whole output: what was written, then what is pending.
        mutating func finishedOutput() -> [UInt8] {
            writePending()
            return written
        }

        /// The facts of a key, remembered for the next time the same key bytes come.
        func facts(forRawKey raw: Slice<UnsafeBufferPointer<UInt8>>) -> KeyFacts {
            let remembered = keyMemory.facts(of: raw)
            if let facts = remembered.facts { return facts }
            let facts = masker.facts(forRawKey: raw)
            keyMemory.remember(facts, of: raw, in: remembered.slot)
            return facts
        }

        /// Skips whitespace; copies it to the output unless the value around it is masked.
        @inline(__always)
        mutating func skipWhitespace(copying: Bool = true) {
            // Most tokens follow the one before without whitespace.
            guard index < input.count, input[index] <= 0x20 else { return }
            skipWhitespaceRun(copying: copying)
        }

        /// ``skipWhitespace(copying:)`` past its first byte's check.
        private mutating func skipWhitespaceRun(copying: Bool) {
            let start = index
            while index < input.count {
                switch input[index] {
                case 0x20, 0x0A, 0x0D, 0x09: index += 1
                default:
                    if copying, index > start { copy(start..<index) }
                    return
                }
            }
            if copying, index > start { copy(start..<index) }
        }

        func peek() throws -> UInt8 {
            guard index < input.count else { throw EndOfInput() }
            return input[index]
        }

        /// Scans one value. `key` is the key it belongs to when that key may name GraphQL text;
        /// `isOperation` says an object here may be a GraphQL operation (the document itself,
        /// or an element of a top-level array, as batched operations are sent).
        mutating func value(depth: Int, mode: Mode, key: String?, isOperation: Bool = false, context: Context = .none) throws {
            guard depth < JSONMasker.maximumDepth else { throw Failure() }
            switch try peek() {
            case UInt8(ascii: "{"): try object(depth: depth, mode: mode, isOperation: isOperation, context: Context(containers: context.containers))
            case UInt8(ascii: "["): try array(depth: depth, mode: mode, elementRule: nil, context: context)
            case UInt8(ascii: "\""):
                let start = index
                let isWhole = try skipToken(string: true)
                if mode == .everyValue {
                    writeMask()
                } else {
                    // A string cut short is rewritten by the rules of a whole one, as far as it goes.
                    let end = isWhole ? index - 1 : characterBoundary(before: index, from: start + 1)
                    rewriteStringIfNeeded(content: (start + 1)..<end, key: key, isClosed: isWhole)
                }
                if !isWhole { throw EndOfInput() }
            default:
                let start = index
                let isWhole = try skipToken(string: false)
                if mode == .everyValue {
                    writeMask()
                } else {
                    copy(start..<index)
                }
                if !isWhole { throw EndOfInput() }
            }
        }

        /// Scans one value under a key with a rule: a string is masked, a number or boolean
        /// when the rule masks every value, `null` never; an object's members take the rule
        /// unless their names say otherwise (see ``Context``), an array's elements take it.
        mutating func judgedValue(depth: Int, rule: ValueRule, mode: Mode, context: Context) throws {
            guard depth < JSONMasker.maximumDepth else { throw Failure() }
            guard index < input.count else {
                // A sensitive value that the cut left out is masked all the same.
                if masker.isPrefix { writeMask() }
                throw EndOfInput()
            }
            let first = input[index]
            switch first {
            case UInt8(ascii: "{"):
                let isShaped = context.shapes != 0 && startsShapedObject(context.shapes)
                let holderContext = Context(holderRule: isShaped ? nil : rule, containers: context.containers)
                try object(depth: depth, mode: mode, isOperation: false, context: holderContext)
            case UInt8(ascii: "["):
                try array(depth: depth, mode: mode, elementRule: rule, context: context)
            default:
                let start = index
                let isString = first == UInt8(ascii: "\"")
                let isWhole = try skipToken(string: isString)
                let kind: JSONScalarKind =
                    switch first {
                    case UInt8(ascii: "\""): .string
                    case UInt8(ascii: "t"), UInt8(ascii: "f"): .boolean
                    case UInt8(ascii: "n"): .null
                    default: .number
                    }
                if mode == .everyValue || rule.masks(kind) {
                    writeMask()
                } else {
                    copy(start..<index)
                }
                if !isWhole { throw EndOfInput() }
            }
        }

        /// Skips a string or scalar token; returns `false` when the input is a prefix that ends
        /// inside it. The end of any other input fails where the unfinished token starts.
        mutating func skipToken(string: Bool) throws -> Bool {
            let start = index
            do {
                if string { try skipString() } else { try skipScalar() }
                return true
            } catch is EndOfInput {
                guard masker.isPrefix else {
                    index = start
                    throw EndOfInput()
                }
                return false
            }
        }

        /// Scans an object. `variableRules`, for an operation's `variables`, say what each
        /// variable is for; one the query does not pass is masked.
        mutating func object(
            depth: Int, mode: Mode, isOperation: Bool, context: Context, variableRules: [String: ValueRule]? = nil
        ) throws {
            // What the operation's query passes its variables to, once its `query` is read.
            var queryVariableRules: [String: ValueRule]?
            copyByte()
            skipWhitespace()
            if try peek() == UInt8(ascii: "}") {
                copyByte()
                return
            }
            while true {
                skipWhitespace()
                guard try peek() == UInt8(ascii: "\"") else { throw Failure() }
                let keyStart = index
                try skipString()
                let keyEnd = index
                let rawKey = input[(keyStart + 1)..<(keyEnd - 1)]
                let facts = facts(forRawKey: rawKey)
                var keyRule = facts.rule
                if let holderRule = context.holderRule, keyRule == .inherit,
                    holderRule == .maskEvery ? !Self.describesSecret(rawKey) : Self.isValueHolder(rawKey)
                {
                    keyRule = .judged(holderRule)
                } else if context.containers & facts.ordinaryInContainers != 0, case .judged = keyRule {
                    keyRule = .inherit
                }
                // A variable the query passes nowhere is masked whole, keys kept.
                var isUnboundVariable = false
                if let variableRules, keyRule != .keepSensitiveOnly {
                    if let bound = JSONString.decode(rawKey).flatMap({ variableRules[$0] }) {
                        if case .judged(let own) = keyRule { keyRule = .judged(own.union(bound)) } else if bound != .keep { keyRule = .judged(bound) }
                    } else {
                        isUnboundVariable = true
                    }
                }
                let memberContext = Context(containers: context.containers | facts.opensContainers, shapes: facts.holdsShapes)
                if mode == .everyValue, keyRule != .keepSensitiveOnly, masker.redactor.level == .strict, Self.looksLikeSecret(rawKey) {
                    writeMask()
                } else {
                    copy(keyStart..<keyEnd)
                }
                skipWhitespace()
                guard try peek() == UInt8(ascii: ":") else { throw Failure() }
                copyByte()
                skipWhitespace()
                // Only an operation's key can name the GraphQL query; decode no other.
                let operationKey = isOperation && masker.masksGraphQLQuery ? JSONString.decode(rawKey) : nil
                // An operation's variables are judged by their names, as the query's literals
                // are; an operation may carry another under `payload` (GraphQL over WebSocket).
                let isNestedOperation = operationKey == "payload"
                if isUnboundVariable {
                    try value(depth: depth + 1, mode: .everyValue, key: nil, context: memberContext)
                } else if operationKey == "variables", keyRule == .inherit, mode == .sensitiveKeys {
                    // Judged by what the query passes them to; all masked when no query came first.
                    if let queryVariableRules, try peek() == UInt8(ascii: "{") {
                        try object(depth: depth + 1, mode: mode, isOperation: false, context: memberContext, variableRules: queryVariableRules)
                    } else {
                        try value(depth: depth + 1, mode: .everyValue, key: nil, context: memberContext)
                    }
                } else {
                    switch keyRule {
                    case .judged(let rule):
                        try judgedValue(depth: depth + 1, rule: rule, mode: mode, context: memberContext)
                    case .keepSensitiveOnly:
                        try value(depth: depth + 1, mode: .sensitiveKeys, key: operationKey, isOperation: isNestedOperation, context: memberContext)
                    case .inherit:
                        try value(depth: depth + 1, mode: mode, key: operationKey, isOperation: isNestedOperation, context: memberContext)
                    }
                }
                if operationKey == "query" {
                    queryVariableRules = graphQLVariableRules
                    graphQLVariableRules = nil
                }
                skipWhitespace()
                switch try peek() {
                case UInt8(ascii: ","):
                    copyByte()
                case UInt8(ascii: "}"):
                    copyByte()
                    return
                default:
                    throw Failure()
                }
            }
        }

        mutating func array(depth: Int, mode: Mode, elementRule: ValueRule?, context: Context) throws {
            copyByte()
            skipWhitespace()
            if try peek() == UInt8(ascii: "]") {
                copyByte()
                return
            }
            while true {
                skipWhitespace()
                if let elementRule {
                    try judgedValue(depth: depth + 1, rule: elementRule, mode: mode, context: context)
                } else {
                    try value(depth: depth + 1, mode: mode, key: nil, isOperation: depth == 0, context: context)
                }
                skipWhitespace()
                switch try peek() {
                case UInt8(ascii: ","):
                    copyByte()
                case UInt8(ascii: "]"):
                    copyByte()
                    return
                default:
                    throw Failure()
                }
            }
        }

        /// Skips any value without writing it.
        mutating func skipValue(depth: Int) throws {
            guard depth < JSONMasker.maximumDepth else { throw Failure() }
            switch try peek() {
            case UInt8(ascii: "\""):
                try skipString()
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                let close: UInt8 = try peek() == UInt8(ascii: "{") ? UInt8(ascii: "}") : UInt8(ascii: "]")
                let isObject = close == UInt8(ascii: "}")
                index += 1
                skipWhitespace(copying: false)
                if try peek() == close {
                    index += 1
                    return
                }
                while true {
                    skipWhitespace(copying: false)
                    if isObject {
                        guard try peek() == UInt8(ascii: "\"") else { throw Failure() }
                        try skipString()
                        skipWhitespace(copying: false)
                        guard try peek() == UInt8(ascii: ":") else { throw Failure() }
                        index += 1
                        skipWhitespace(copying: false)
                    }
                    try skipValue(depth: depth + 1)
                    skipWhitespace(copying: false)
                    let next = try peek()
                    index += 1
                    if next == close { return }
                    guard next == UInt8(ascii: ",") else { throw Failure() }
                }
            default:
                try skipScalar()
            }
        }

        /// Whether the object at `index` has the shape of one of `shapes` (bit `n` for the
        /// exceptions' `n`th): each of its members once and nothing else (see
        /// ``NameExceptions/ObjectShape``). Reads ahead without moving `index`.
        func startsShapedObject(_ shapes: UInt8) -> Bool {
            masker.exceptions.shapes.indices.contains { shapes & 1 << $0 != 0 && startsObject(of: masker.exceptions.shapes[$0].members) }
        }

        /// Whether the object at `index` has exactly `members`, each once. Reads ahead without
        /// moving `index`.
        private func startsObject(of members: [[UInt8]]) -> Bool {
            var probe = self
            var seen: UInt64 = 0
            do {
                probe.index += 1
                while true {
                    probe.skipWhitespace(copying: false)
                    guard try probe.peek() == UInt8(ascii: "\"") else { return false }
                    let keyStart = probe.index
                    try probe.skipString()
                    let key = input[(keyStart + 1)..<(probe.index - 1)]
                    guard let member = members.firstIndex(where: { $0.elementsEqual(key) }), seen & 1 << member == 0 else { return false }
                    seen |= 1 << member
                    probe.skipWhitespace(copying: false)
                    guard try probe.peek() == UInt8(ascii: ":") else { return false }
                    probe.index += 1
                    probe.skipWhitespace(copying: false)
                    try probe.skipValue(depth: 0)
                    probe.skipWhitespace(copying: false)
                    let next = try probe.peek()
                    probe.index += 1
                    if next == UInt8(ascii: "}") { return seen == (members.count == 64 ? .max : 1 << UInt64(members.count) - 1) }
                    guard next == UInt8(ascii: ",") else { return false }
                }
            } catch {
                return false
            }
        }

        /// Skips a string token, leaving `index` after its closing quote.
        mutating func skipString() throws {
            index += 1
            skipPlainStringBytes()
            while index < input.count {
                switch input[index] {
                case UInt8(ascii: "\""):
                    index += 1
                    return
                case UInt8(ascii: "\\"):
                    // Only JSON's escapes: anything else would make the string undecodable. An
                    // escape that the end of input cuts short leaves `index` at its backslash.
                    guard index + 1 < input.count else { throw EndOfInput() }
                    switch input[index + 1] {
                    case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"), UInt8(ascii: "f"),
                        UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
                        index += 2
                    case UInt8(ascii: "u"):
                        let digits = input[min(index + 2, input.count)..<min(index + 6, input.count)]
                        guard digits.allSatisfy(\.isHexDigit) else { throw Failure() }
                        guard digits.count == 4 else { throw EndOfInput() }
                        index += 6
                    default:
                        throw Failure()
                    }
                case 0x00..<0x20:
                    throw Failure()
                default:
                    index += 1
                }
            }
            throw EndOfInput()
        }

        /// Moves `index` past the bytes that cannot end a string or start an escape, eight at a
        /// time, to the first quote, backslash or control character when one comes before the
        /// last eight bytes of the input.
        @inline(__always)
        private mutating func skipPlainStringBytes() {
            let ones: UInt64 = 0x0101_0101_0101_0101
            let highBits: UInt64 = 0x8080_8080_8080_8080
            guard let base = input.baseAddress else { return }
            while index + 8 <= input.count {
                let word = UInt64(littleEndian: UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self))
                // A byte is flagged when it is zero after the XOR (a quote, a backslash), or
                // below 0x20; bytes at 0x80 and above never are. A borrow can flag a byte after a
                // flagged one, never before it, so the lowest flag is the first such byte.
                let quotes = word ^ (ones &* UInt64(UInt8(ascii: "\"")))
                let backslashes = word ^ (ones &* UInt64(UInt8(ascii: "\\")))
                let flagged = ((quotes &- ones) & ~quotes | (backslashes &- ones) & ~backslashes | (word &- ones &* 0x20) & ~word) & highBits
                guard flagged == 0 else {
                    index += flagged.trailingZeroBitCount / 8
                    return
                }
                index += 8
            }
        }

        /// Skips a number, `true`, `false` or `null`.
        mutating func skipScalar() throws {
            let start = index
            // Whether the token holds only a number's bytes, so that it is one when it starts
            // like one: judged as it is read, as ``JSONString/isScalar(_:)`` would judge it.
            var isNumeric = true
            while index < input.count {
                switch input[index] {
                case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "+"), UInt8(ascii: "."),
                    UInt8(ascii: "e"), UInt8(ascii: "E"):
                    index += 1
                case UInt8(ascii: "a")...UInt8(ascii: "z"):
                    isNumeric = false
                    index += 1
                default:
                    guard index > start, isNumeric ? startsNumber(at: start) : isLiteral(start..<index) else {
                        // Report the failure where the bad token starts, not inside it.
                        index = start
                        throw Failure()
                    }
                    return
                }
            }
            // A scalar that runs to the end of the input may have been cut short: what there is
            // of it must still start a scalar.
            let partial = input[start..<index]
            let isScalarStart = ["true", "false", "null"].contains { $0.utf8.starts(with: partial) }
                || JSONString.isScalar(input[start..<index])
                || partial.elementsEqual("-".utf8)
            guard isScalarStart else {
                index = start
                throw Failure()
            }
            throw EndOfInput()
        }

        /// Whether the byte at `position` can start a JSON number: `-` or a digit.
        private func startsNumber(at position: Int) -> Bool {
            let first = input[position]
            return first == UInt8(ascii: "-") || first >= UInt8(ascii: "0") && first <= UInt8(ascii: "9")
        }

        /// Whether the bytes are `true`, `false` or `null`.
        private func isLiteral(_ range: Range<Int>) -> Bool {
            let bytes = input[range]
            switch bytes.count {
            case 4: return bytes.elementsEqual([UInt8(ascii: "t"), UInt8(ascii: "r"), UInt8(ascii: "u"), UInt8(ascii: "e")])
                || bytes.elementsEqual([UInt8(ascii: "n"), UInt8(ascii: "u"), UInt8(ascii: "l"), UInt8(ascii: "l")])
            case 5: return bytes.elementsEqual([UInt8(ascii: "f"), UInt8(ascii: "a"), UInt8(ascii: "l"), UInt8(ascii: "s"), UInt8(ascii: "e")])
            default: return false
            }
        }

        /// Copies input bytes to the output: a range that follows the pending one joins it.
        @inline(__always)
        mutating func copy(_ range: Range<Int>) {
            if range.lowerBound == pending.upperBound {
                pending = pending.lowerBound..<range.upperBound
            } else {
                writePending()
                pending = range
            }
        }

        /// Copies the byte at `index` to the output and steps past it.
        @inline(__always)
        mutating func copyByte() {
            copy(index..<(index + 1))
            index += 1
        }

        /// Writes the pending input bytes to the output, before bytes of another source.
        mutating func writePending() {
            guard !pending.isEmpty else { return }
            written.append(contentsOf: UnsafeBufferPointer(rebasing: input[pending]))
            pending = pending.upperBound..<pending.upperBound
        }

        mutating func writeMask() {
            writePending()
            written.append(UInt8(ascii: "\""))
            written.append(contentsOf: Redactor.mask.utf8)
            written.append(UInt8(ascii: "\""))
        }

        /// Copies a string token, given by its content, masking what it hides: GraphQL literals
        /// in an operation's `query`, and secrets inside a string that is itself JSON. Nested
        /// JSON that cannot be read to its end is cut at the last complete value with a marker,
        /// never copied raw. A string the end of input cut short (`isClosed` false) is written
        /// without its closing quote, and JSON in it is read as a prefix.
        mutating func rewriteStringIfNeeded(content: Range<Int>, key: String?, isClosed: Bool) {
            // A `query` is GraphQL text only when it reads as an operation: `{"query":"n=2"}` is not.
            let graphQLText = masker.masksGraphQLQuery && key == "query" ? JSONString.decode(input[content]) : nil
            let isGraphQLQuery = graphQLText.map(PairMasker.looksLikeGraphQL) ?? false
            guard isGraphQLQuery || startsLikeJSON(content) else {
                maskTextSecrets(content: content, isClosed: isClosed)
                return
            }
            guard let decoded = graphQLText ?? JSONString.decode(input[content]),
                isGraphQLQuery || masker.stringNesting < JSONMasker.maximumStringNesting
            else {
                // Text that should be masked but cannot be read, or JSON nested too deep in
                // strings: never copy it raw.
                writeMask()
                return
            }
            if isGraphQLQuery {
                let masked = GraphQLMasker.mask(decoded, redactor: masker.redactor)
                graphQLVariableRules = masked.variableRules
                writeString(masked.text, isClosed: isClosed)
                return
            }
            let nested = Array(decoded.utf8)
            let inner = JSONMasker(
                redactor: masker.redactor, mode: .sensitiveKeys, masksGraphQLQuery: true, isPrefix: !isClosed,
                stringNesting: masker.stringNesting + 1
            )
            let result = nested.withUnsafeBufferPointer { inner.mask($0) }
            let opening = nested.firstIndex { ![0x20, 0x0A, 0x0D, 0x09].contains($0) } ?? 0
            switch result.failedAt {
            case nil where result.output == nested, .some(...(opening + 1)):
                // Unchanged JSON, or text that merely starts with a bracket.
                copyString(content, isClosed: isClosed)
            case nil:
                writeString(String(decoding: result.output, as: UTF8.self), isClosed: isClosed)
            case .some:
                let marked = String(decoding: result.output, as: UTF8.self) + "…[REDACTED: unreadable JSON]"
                writeString(marked, isClosed: isClosed)
            }
        }

        /// Copies a string token, given by its content, whose text may hold a URL, a form, a
        /// credential or a JWT with the text rules applied (``Redactor/redactedText(_:)``);
        /// other strings are copied as they are. A string cut short also loses a
        /// credential that its end cuts short (``Redactor/maskingCutCredential(_:)``).
        ///
        /// Content with an escape is judged by its decoded text (`\u0073k-proj-…`,
        /// `https:\/\/…` read as `sk-proj-…`, `https://…`), so an escape never hides a secret;
        /// when nothing in it is masked, its escaped bytes are copied as they came.
        mutating func maskTextSecrets(content: Range<Int>, isClosed: Bool) {
            var decoded: String?
            let mayHoldSecret: Bool
            switch Self.scanText(input[content]) {
            case .mayHoldSecret: mayHoldSecret = true
            case .plain: mayHoldSecret = false
            case .escaped:
                decoded = JSONString.decode(input[content])
                mayHoldSecret = decoded.map(Self.mayHoldTextSecret) ?? false
            }
            // A string cut short is always decoded: its end may cut a credential in two.
            guard mayHoldSecret || !isClosed, let decoded = decoded ?? JSONString.decode(input[content]) else {
                copyString(content, isClosed: isClosed)
                return
            }
            let whole = mayHoldSecret ? masker.redactor.redactedText(decoded) : decoded
            let scrubbed = isClosed ? whole : Redactor.maskingCutCredential(whole)
            if scrubbed == decoded {
                copyString(content, isClosed: isClosed)
            } else {
                writeString(scrubbed, isClosed: isClosed)
            }
        }

        /// Copies the string token around `content`: its opening quote, and its closing one
        /// when it has one.
        mutating func copyString(_ content: Range<Int>, isClosed: Bool) {
            copy((content.lowerBound - 1)..<(content.upperBound + (isClosed ? 1 : 0)))
        }

        /// Writes `text` as a string token, without its closing quote when it was cut short.
        mutating func writeString(_ text: String, isClosed: Bool) {
            writePending()
            written.append(UInt8(ascii: "\""))
            JSONString.appendEscaped(text, to: &written)
            if isClosed { written.append(UInt8(ascii: "\"")) }
        }

        /// `end`, or the start of a UTF-8 character that the end of input cut short before it,
        /// so that text decoded from `start..<end` ends on a whole character.
        func characterBoundary(before end: Int, from start: Int) -> Int {
            let bytes = UnsafeBufferPointer(rebasing: input[start..<end])
            return start + UTF8Text.lengthWithoutCutCharacter(bytes)
        }

        /// Whether a raw key is one of ``JSONMasker/valueHolderKeys``, in any case.
        static func isValueHolder(_ key: Slice<UnsafeBufferPointer<UInt8>>) -> Bool {
            guard key.count <= 10, key.allSatisfy({ $0 < 0x80 }) else { return false }
            return NameKey.with(utf8: UnsafeBufferPointer(rebasing: key)) { valueHolderKeys.contains($0.letters, hash: $0.hash) }
        }

        /// Whether a member of an object under a secret name describes the secret rather than
        /// holds it (see ``Context``). A key with escapes is read decoded.
        static func describesSecret(_ key: Slice<UnsafeBufferPointer<UInt8>>) -> Bool {
            guard key.allSatisfy({ $0 != UInt8(ascii: "\\") }) else {
                return NameKey.with(JSONString.decode(key) ?? "") { NameMatcher.hasDescriptorWord($0) }
            }
            return NameKey.with(utf8: UnsafeBufferPointer(rebasing: key)) { NameMatcher.hasDescriptorWord($0) }
        }

        /// Whether an object key looks like a value rather than a field name (at `.strict` such a
        /// key is masked): over 64 bytes, characters that field names do not use, or a part of
        /// more than 8 characters with digits in it (`sk_live_51H8x...`, a UUID, a JWT).
        static func looksLikeSecret(_ key: Slice<UnsafeBufferPointer<UInt8>>) -> Bool {
            guard key.count <= 64 else { return true }
            var partLength = 0
            var partHasDigit = false
            for byte in key {
                switch byte {
                case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"):
                    partLength += 1
                case UInt8(ascii: "0")...UInt8(ascii: "9"):
                    partLength += 1
                    partHasDigit = true
                case UInt8(ascii: "_"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: " "), UInt8(ascii: ":"),
                    UInt8(ascii: "/"), UInt8(ascii: "$"), UInt8(ascii: "@"):
                    partLength = 0
                    partHasDigit = false
                default:
                    return true
                }
                if partHasDigit, partLength > 8 { return true }
            }
            return false
        }

        /// What a scan of a string's content found, without decoding it.
        enum TextScan {
            /// Nothing the text rules mask, and no escape.
            case plain
            /// An escape, and nothing the text rules mask in the bytes as written: the decoded
            /// text decides.
            case escaped
            /// Something the text rules may mask.
            case mayHoldSecret
        }

        /// Whether string content may hold a secret that the text rules find: a URL, a
        /// `name=value` pair, `user:password@host` (a `:` before an `@`), a `Bearer`/`Basic` credential, a JWT (`eyJ`)
        /// or a provider key; or, when it does not, whether it holds an escape.
        static func scanText(_ bytes: Slice<UnsafeBufferPointer<UInt8>>) -> TextScan {
            var position = bytes.startIndex
            var followsWordByte = false
            var isEscaped = false
            // `@` matters only after a `:` (`user:secret@host`): an email address alone is no
            // secret the text rules mask.
            var followsColon = false
            let formats = SecretFormatIndex.shared.reader
            while position < bytes.endIndex {
                let byte = bytes[position]
                // A provider key starts a word, or with punctuation (`$2b$…`, `-----BEGIN …`);
                // only those starts are looked up.
                let isWordByte = Self.isWordByte(byte)
                if !followsWordByte, isWordByte || formats.mayStart(with: byte), formats.secretLength(atStartOf: bytes[position...]) != nil {
                    return .mayHoldSecret
                }
                followsWordByte = isWordByte
                switch byte {
                case UInt8(ascii: "="): return .mayHoldSecret
                case UInt8(ascii: "@") where followsColon: return .mayHoldSecret
                case UInt8(ascii: ":"):
                    if position + 2 < bytes.endIndex && bytes[position + 1] == UInt8(ascii: "/") { return .mayHoldSecret }
                    followsColon = true
                case UInt8(ascii: "e") where position + 2 < bytes.endIndex
                    && bytes[position + 1] == UInt8(ascii: "y") && bytes[position + 2] == UInt8(ascii: "J"):
                    return .mayHoldSecret
                case UInt8(ascii: "B"), UInt8(ascii: "b"):
                    if startsWithCaseless("bearer ", at: position, in: bytes) || startsWithCaseless("basic ", at: position, in: bytes) {
                        return .mayHoldSecret
                    }
                case UInt8(ascii: "\\"): isEscaped = true
                default: break
                }
                position += 1
            }
            return isEscaped ? .escaped : .plain
        }

        /// Whether decoded text may hold a secret that the text rules find (see ``scanText(_:)``).
        static func mayHoldTextSecret(_ text: String) -> Bool {
            var text = text
            return text.withUTF8 { scanText($0[...]) == .mayHoldSecret }
        }

        /// A letter or a digit.
        static func isWordByte(_ byte: UInt8) -> Bool {
            byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") || byte | 0x20 >= UInt8(ascii: "a") && byte | 0x20 <= UInt8(ascii: "z")
        }

        /// Whether `bytes` at `position` start with the lowercase ASCII `word`, in any case.
        static func startsWithCaseless(_ word: StaticString, at position: Int, in bytes: Slice<UnsafeBufferPointer<UInt8>>) -> Bool {
            guard bytes.endIndex - position >= word.utf8CodeUnitCount else { return false }
            let letters = UnsafeBufferPointer(start: word.utf8Start, count: word.utf8CodeUnitCount)
            return letters.indices.allSatisfy { offset in
                let byte = bytes[position + offset]
                return (byte >= 65 && byte <= 90 ? byte | 0x20 : byte) == letters[offset]
            }
        }

        /// Whether string content starts, after whitespace written raw or escaped (`\n`,
        /// `\u0020`, ...), with `{` or `[`, written raw or escaped (`\u007b`, `\u005B`).
        func startsLikeJSON(_ content: Range<Int>) -> Bool {
            var position = content.lowerBound
            while position < content.upperBound {
                var character = input[position]
                var width = 1
                if character == UInt8(ascii: "\\"), position + 1 < content.upperBound {
                    switch input[position + 1] {
                    case UInt8(ascii: "n"): character = 0x0A
                    case UInt8(ascii: "r"): character = 0x0D
                    case UInt8(ascii: "t"): character = 0x09
                    case UInt8(ascii: "u") where position + 6 <= content.upperBound:
                        guard let scalar = JSONString.hexQuad(input[(position + 2)..<(position + 6)]), scalar < 0x80 else { return false }
                        character = UInt8(scalar)
                        width = 6
                    default: return false
                    }
                    width = max(width, 2)
                }
                switch character {
                case UInt8(ascii: "{"), UInt8(ascii: "["): return true
                case 0x20, 0x09, 0x0A, 0x0D: position += width
                default: return false
                }
            }
            return false
        }

    }
}

extension UInt8 {
    fileprivate var isHexDigit: Bool {
        (48...57).contains(self) || (65...70).contains(self) || (97...102).contains(self)
    }
}
