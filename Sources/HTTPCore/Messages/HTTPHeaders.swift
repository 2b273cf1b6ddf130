/// An ordered list of HTTP header fields.
///
/// Lookup by name is case-insensitive, while each field keeps the spelling it was given.
/// Repeated names are allowed and kept in order, so what a server sent twice is not
/// silently merged:
///
/// ```swift
/// var headers: HTTPHeaders = ["Accept": "application/json"]
/// headers.add(name: "Cookie", value: "a=1")
/// headers.add(name: "cookie", value: "b=2")
/// headers["COOKIE"]            // "a=1; b=2"
/// headers.values(for: "Cookie") // ["a=1", "b=2"]
/// ```
///
/// Any name and value can be set, so that setting a header never traps or drops it silently:
/// what HTTP forbids (a name that is not a token, CR, LF, NUL or another control character in
/// a value) is refused when the request is sent, with an ``HTTPError/Code/invalidRequest`` that
/// names the header (``HTTPRequest/validate()``). Response headers keep what the server sent.
public struct HTTPHeaders: Sendable, Hashable {
    /// One header field: a name as it was spelled and its value.
    public struct Field: Sendable, Hashable {
        /// The name with the spelling it was given.
        public var name: String
        /// The field value.
        public var value: String

        /// Creates a field.
        public init(name: String, value: String) {
            self.name = name
            self.value = value
        }
    }

    /// The fields in the order they were added.
    public private(set) var fields: [Field]

    /// Creates an empty header list.
    public init() {
        fields = []
    }

    /// Creates a header list from fields, keeping their order.
    public init(_ fields: some Sequence<Field>) {
        self.fields = Array(fields)
    }

    /// The values of every field with this name (case-insensitive), joined.
    ///
    /// Repeated values are joined with `", "`, except `Cookie`, whose values are joined with
    /// `"; "` as RFC 6265 requires. `nil` when no field has this name. Setting a value replaces
    /// every field of this name; setting `nil` removes them.
    public subscript(name: String) -> String? {
        get {
            // One field of that name, the usual case, is returned as it is: no array, no join.
            guard let first = fields.firstIndex(where: { Self.matches($0.name, name) }) else { return nil }
            let rest = fields[(first + 1)...]
            guard rest.contains(where: { Self.matches($0.name, name) }) else { return fields[first].value }
            return values(for: name).joined(separator: Self.isCookie(name) ? "; " : ", ")
        }
        set {
            if let newValue {
                set(name: name, value: newValue)
            } else {
                remove(name: name)
            }
        }
    }

    /// The values of every field with this name (case-insensitive), in order.
    public func values(for name: String) -> [String] {
        fields.compactMap { Self.matches($0.name, name) ? $0.value : nil }
    }

    /// Whether at least one field has this name (case-insensitive).
    public func contains(_ name: String) -> Bool {
        fields.contains { Self.matches($0.name, name) }
    }

    /// Makes room for `count` fields in all, so that adding them allocates once.
    public mutating func reserveCapacity(_ count: Int) {
        fields.reserveCapacity(count)
    }

    /// Appends a field, keeping any existing fields of the same name.
    public mutating func add(name: String, value: String) {
        fields.append(Field(name: name, value: value))
    }

    /// Replaces every field of this name with a single field.
    ///
    /// The new field takes the position of the first replaced one, or is appended.
    public mutating func set(name: String, value: String) {
        guard let first = fields.firstIndex(where: { Self.matches($0.name, name) }) else {
            add(name: name, value: value)
            return
        }
        fields[first] = Field(name: name, value: value)
        var index = fields.index(after: first)
        while index < fields.endIndex {
            if Self.matches(fields[index].name, name) {
                fields.remove(at: index)
            } else {
                index = fields.index(after: index)
            }
        }
    }

    /// Removes every field of this name (case-insensitive).
    public mutating func remove(name: String) {
        // Absent, the fields stay as they are: removeAll would copy an array shared with
        // another request to remove nothing.
        guard contains(name) else { return }
        fields.removeAll { Self.matches($0.name, name) }
    }

    /// Rewrites every field in place, keeping their order.
    package mutating func mapFields(_ transform: (Field) -> Field) {
        for index in fields.indices {
            fields[index] = transform(fields[index])
        }
    }

    /// How many fields these headers begin with that are `other`'s first ones, names and values
    /// equal, in order.
    ///
    /// Equal as Swift strings of as many UTF-8 bytes: a string canonically equivalent to
    /// another but spelled with other bytes (the Kelvin sign for `K`) has a different length
    /// wherever one of them is ASCII, as every name that passed ``HTTPRequest/validate()`` is.
    package func countOfLeadingFields(sharedWith other: HTTPHeaders) -> Int {
        var count = 0
        for (field, otherField) in zip(fields, other.fields) {
            guard field.name.utf8.count == otherField.name.utf8.count, field.name == otherField.name,
                field.value.utf8.count == otherField.value.utf8.count, field.value == otherField.value
            else { break }
            count += 1
        }
        return count
    }

    /// Compares two header names as HTTP does: ASCII case-insensitively. (Names that are not
    /// ASCII, which no request may send, also match when they are equal as Swift strings:
    /// canonically equivalent.)
    package static func matches(_ lhs: String, _ rhs: String) -> Bool {
        guard lhs.utf8.count == rhs.utf8.count else { return false }
        // A name looked up as it was set, the usual case, is equal as it is: for a short name
        // a comparison of two words, where a walk of both names' bytes costs ten times more,
        // and a policy looks its correlation header names up in every request's headers.
        if lhs == rhs { return true }
        return zip(lhs.utf8, rhs.utf8).allSatisfy { asciiLowercase($0) == asciiLowercase($1) }
    }

    private static func asciiLowercase(_ byte: UInt8) -> UInt8 {
        (byte >= 65 && byte <= 90) ? byte + 32 : byte
    }

    private static func isCookie(_ name: String) -> Bool {
        matches(name, "Cookie")
    }
}

extension HTTPHeaders: RandomAccessCollection {
    /// The position of the first field.
    public var startIndex: Int { fields.startIndex }
    /// The position after the last field.
    public var endIndex: Int { fields.endIndex }
    /// The field at a position.
    public subscript(position: Int) -> Field { fields[position] }
}

extension HTTPHeaders: ExpressibleByDictionaryLiteral {
    /// Creates a header list from a literal, keeping the literal's order.
    public init(dictionaryLiteral elements: (String, String)...) {
        fields = elements.map { Field(name: $0.0, value: $0.1) }
    }
}

extension HTTPHeaders: CustomStringConvertible {
    /// The fields as `name: value` lines.
    public var description: String {
        fields.map { "\($0.name): \($0.value)" }.joined(separator: "\n")
    }
}
