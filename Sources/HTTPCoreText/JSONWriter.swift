/// Writes JSON as UTF-8 bytes, value by value, in the order they are given: the one JSON
/// writer of the package (dev-see payloads, HAR files, Loki push bodies and lines, the test
/// servers).
///
/// Members keep the order they are written in, so the same input always gives the same
/// bytes. Strings are escaped as `JSON.stringify` does (``JSONString/appendEscaped(_:to:)``).
///
/// ```swift
/// var writer = JSONWriter()
/// writer.beginObject()
/// writer.key("status"); writer.integer(200)
/// writer.key("tags"); writer.beginArray(); writer.string("a"); writer.endArray()
/// writer.endObject()
/// // {"status":200,"tags":["a"]}
/// ```
///
/// Nesting is the caller's to balance; the writer adds commas, colons and, in the
/// ``Style/indented`` style, line breaks and two spaces per level.
package struct JSONWriter {
    /// How the writer lays out containers.
    package enum Style: Sendable {
        /// No whitespace: `{"a":1,"b":[2]}`.
        case compact
        /// Each member and element on its own line, two spaces per level, a space after each
        /// colon; empty containers stay `{}` and `[]`.
        case indented
    }

    /// What has been written so far.
    package private(set) var bytes: [UInt8] = []
    private let style: Style
    /// For each open container: whether it has no member or element yet.
    private var isEmpty: [Bool] = []
    /// Whether a key was just written, so the next value follows it without a separator.
    private var afterKey = false

    /// Creates a writer, reserving room for `capacity` bytes.
    package init(style: Style = .compact, reservingCapacity capacity: Int = 0) {
        self.style = style
        bytes.reserveCapacity(capacity)
    }

    /// Opens an object; members follow as ``key(_:)`` then a value.
    package mutating func beginObject() { open(UInt8(ascii: "{")) }

    /// Closes the innermost object.
    package mutating func endObject() { close(UInt8(ascii: "}")) }

    /// Opens an array.
    package mutating func beginArray() { open(UInt8(ascii: "[")) }

    /// Closes the innermost array.
    package mutating func endArray() { close(UInt8(ascii: "]")) }

    /// Writes a member's name; its value comes next.
    package mutating func key(_ name: String) {
        separate()
        appendString(name)
        bytes.append(UInt8(ascii: ":"))
        if style == .indented { bytes.append(UInt8(ascii: " ")) }
        afterKey = true
    }

    /// Writes a string value.
    package mutating func string(_ value: String) {
        separate()
        appendString(value)
    }

    /// Writes an integer value.
    package mutating func integer(_ value: Int) {
        raw(String(value))
    }

    /// Writes a number: whole values below 10^15 without a fraction (`12`, not `12.0`), others
    /// as Swift prints them. Infinite and NaN values, which JSON cannot carry, are written as
    /// `null`.
    package mutating func number(_ value: Double) {
        guard value.isFinite else { return null() }
        raw(value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : String(value))
    }

    /// Writes `true` or `false`.
    package mutating func bool(_ value: Bool) {
        raw(value ? "true" : "false")
    }

    /// Writes `null`.
    package mutating func null() {
        raw("null")
    }

    /// Writes a value that is already JSON (a number in its own spelling, an object built
    /// elsewhere), as it is.
    package mutating func raw(_ json: String) {
        separate()
        bytes.append(contentsOf: json.utf8)
    }

    /// Writes `"key": "value"` members, in order.
    package mutating func members(_ members: [(key: String, value: String)]) {
        for member in members {
            key(member.key)
            string(member.value)
        }
    }

    private mutating func open(_ bracket: UInt8) {
        separate()
        bytes.append(bracket)
        isEmpty.append(true)
    }

    private mutating func close(_ bracket: UInt8) {
        let wasEmpty = isEmpty.popLast() ?? true
        if style == .indented, !wasEmpty { newline() }
        bytes.append(bracket)
    }

    /// The comma and line break before a member or element, when one is due.
    private mutating func separate() {
        if afterKey {
            afterKey = false
            return
        }
        guard let last = isEmpty.indices.last else { return }
        if !isEmpty[last] { bytes.append(UInt8(ascii: ",")) }
        isEmpty[last] = false
        if style == .indented { newline() }
    }

    private mutating func newline() {
        bytes.append(UInt8(ascii: "\n"))
        bytes.append(contentsOf: repeatElement(UInt8(ascii: " "), count: 2 * isEmpty.count))
    }

    private mutating func appendString(_ text: String) {
        bytes.append(UInt8(ascii: "\""))
        JSONString.appendEscaped(text, to: &bytes)
        bytes.append(UInt8(ascii: "\""))
    }
}
