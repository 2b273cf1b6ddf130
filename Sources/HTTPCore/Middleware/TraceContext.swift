import Foundation

/// A W3C Trace Context (https://www.w3.org/TR/trace-context/): the trace a request belongs to
/// and the span that sends it, as carried by the `traceparent` and `tracestate` headers.
///
/// Values are always valid: the initializers refuse anything the W3C rules refuse (a trace id
/// of 32 and a span id of 16 lowercase hex digits, neither all zeros; version `ff` is
/// invalid, and version `00` has exactly 55 characters).
///
/// To continue a trace in the code that makes requests, set ``current`` around it:
///
/// ```swift
/// let parent = TraceContext(traceparent: incoming.headers["traceparent"] ?? "")
/// try await TraceContext.$current.withValue(parent) {
///     _ = try await client.send(request)   // carries parent's trace id and a new span id
/// }
/// ```
public struct TraceContext: Sendable, Hashable {
    /// The trace this context belongs to: 32 lowercase hex digits, not all zeros.
    public let traceID: String
    /// The span that sends the request (the `parent-id` of `traceparent`): 16 lowercase hex
    /// digits, not all zeros.
    public let spanID: String
    /// The trace flags; bit 0 is "sampled".
    public let flags: UInt8
    /// The vendor-specific `tracestate` list that travels with the trace, kept as it is.
    public var traceState: String?

    /// The context of the code that is running, which requests continue; `nil` for none.
    @TaskLocal public static var current: TraceContext?

    /// Whether the caller recorded the trace (flag bit 0).
    public var isSampled: Bool { flags & 1 == 1 }

    /// The `traceparent` header value, version `00`.
    public var traceparent: String {
        // One allocation, its ids copied in whole: built per request by TraceContextMiddleware.
        String(unsafeUninitializedCapacity: 55) { buffer in
            var count = Self.copy("00-", into: buffer, at: 0)
            count = Self.copy(traceID, into: buffer, at: count)
            count = Self.copy("-", into: buffer, at: count)
            count = Self.copy(spanID, into: buffer, at: count)
            count = Self.copy("-", into: buffer, at: count)
            buffer[count] = Self.hexDigit(flags >> 4)
            buffer[count + 1] = Self.hexDigit(flags & 0xf)
            return count + 2
        }
    }

    /// Parses a `traceparent` value (and the `tracestate` that came with it); `nil` when it
    /// breaks a W3C rule.
    ///
    /// Versions above `00` are read as the spec says: their first 55 characters, which must
    /// be followed by `-` when the value is longer.
    public init?(traceparent: String, tracestate: String? = nil) {
        var value = traceparent
        // Trimming copies the value; one that starts and ends with a visible ASCII character,
        // as every valid header does, has nothing to trim.
        if !Self.hasNothingToTrim(value.utf8) { value = value.trimmingCharacters(in: .whitespaces) }
        // Read in place: only the two ids become strings, and only once the whole value passed.
        guard let parts = value.withUTF8(Self.parseTraceparent) else { return nil }
        self.init(unchecked: parts.traceID, spanID: parts.spanID, flags: parts.flags, traceState: tracestate)
    }

    /// Creates a context from its parts; `nil` when an id breaks a W3C rule.
    public init?(traceID: String, spanID: String, flags: UInt8 = 1, traceState: String? = nil) {
        guard Self.isValidID(traceID, digits: 32), Self.isValidID(spanID, digits: 16) else { return nil }
        self.traceID = traceID
        self.spanID = spanID
        self.flags = flags
        self.traceState = traceState
    }

    private init(unchecked traceID: String, spanID: String, flags: UInt8, traceState: String?) {
        self.traceID = traceID
        self.spanID = spanID
        self.flags = flags
        self.traceState = traceState
    }

    /// A new trace with random ids, sampled or not.
    public static func newTrace(sampled: Bool = true) -> TraceContext {
        let words = TraceIDGenerator.newTraceWords()
        return TraceContext(
            unchecked: hexID(words.traceHigh, words.traceLow), spanID: hexID(words.span), flags: sampled ? 1 : 0, traceState: nil
        )
    }

    /// A new span in the same trace: same trace id and `tracestate`, a new random span id, and
    /// the flags this version defines (sampled, and Level 2's random trace id); other flag
    /// bits are cleared, as version `00` requires of what it sends.
    public func newSpan() -> TraceContext {
        TraceContext(unchecked: traceID, spanID: Self.hexID(TraceIDGenerator.newSpanWord()), flags: flags & 0x03, traceState: traceState)
    }

    // MARK: Hex digits

    private static func isValidID(_ id: String, digits: Int) -> Bool {
        isValidID(id.utf8, digits: digits)
    }

    private static func isValidID(_ bytes: some Collection<UInt8>, digits: Int) -> Bool {
        bytes.count == digits && bytes.allSatisfy { hexValue($0) != nil } && bytes.contains { $0 != UInt8(ascii: "0") }
    }

    /// Whether `.whitespaces` trims nothing from `bytes`: they start and end with an ASCII
    /// byte other than space and tab (the only ASCII characters in that set). `false` tells
    /// nothing: the value must be trimmed to know.
    private static func hasNothingToTrim(_ bytes: String.UTF8View) -> Bool {
        guard let first = bytes.first, let last = bytes.last else { return false }
        return isUntrimmedASCII(first) && isUntrimmedASCII(last)
    }

    private static func isUntrimmedASCII(_ byte: UInt8) -> Bool {
        byte < 0x80 && byte != UInt8(ascii: " ") && byte != UInt8(ascii: "\t")
    }

    /// The ids and flags of a trimmed `traceparent` value, `nil` when it breaks a W3C rule.
    private static func parseTraceparent(_ value: UnsafeBufferPointer<UInt8>) -> (traceID: String, spanID: String, flags: UInt8)? {
        guard value.count >= 55, value[2] == UInt8(ascii: "-"), value[35] == UInt8(ascii: "-"), value[52] == UInt8(ascii: "-"),
            let version = parseHex(value[0..<2]), version != 0xff,
            version == 0 ? value.count == 55 : (value.count == 55 || value[55] == UInt8(ascii: "-")),
            let flags = parseHex(value[53..<55]),
            isValidID(value[3..<35], digits: 32), isValidID(value[36..<52], digits: 16)
        else { return nil }
        return (
            String(decoding: UnsafeBufferPointer(rebasing: value[3..<35]), as: UTF8.self),
            String(decoding: UnsafeBufferPointer(rebasing: value[36..<52]), as: UTF8.self),
            UInt8(flags)
        )
    }

    /// Lowercase hex digits only, as the spec requires.
    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        default: nil
        }
    }

    private static func parseHex(_ bytes: Slice<UnsafeBufferPointer<UInt8>>) -> Int? {
        var value = 0
        for byte in bytes {
            guard let digit = hexValue(byte) else { return nil }
            value = value * 16 + Int(digit)
        }
        return value
    }

    /// `high`, then `low` when given, as 16 lowercase hex digits each: one string, written in
    /// place.
    private static func hexID(_ high: UInt64, _ low: UInt64? = nil) -> String {
        let count = low == nil ? 16 : 32
        return String(unsafeUninitializedCapacity: count) { buffer in
            writeHex(high, into: buffer, at: 0)
            if let low { writeHex(low, into: buffer, at: 16) }
            return count
        }
    }

    /// Copies the UTF-8 bytes of `text` into `buffer` at `offset`, in one move; the offset
    /// after them. Traps if they do not fit.
    private static func copy(_ text: String, into buffer: UnsafeMutableBufferPointer<UInt8>, at offset: Int) -> Int {
        var text = text
        return text.withUTF8 { bytes in
            let destination = UnsafeMutableBufferPointer(rebasing: buffer[offset..<(offset + bytes.count)])
            UnsafeMutableRawBufferPointer(destination).copyMemory(from: UnsafeRawBufferPointer(bytes))
            return offset + bytes.count
        }
    }

    /// Writes `value` as 16 lowercase hex digits at `offset`.
    private static func writeHex(_ value: UInt64, into buffer: UnsafeMutableBufferPointer<UInt8>, at offset: Int) {
        for index in 0..<16 {
            buffer[offset + index] = hexDigit(UInt8((value >> UInt64(60 - 4 * index)) & 0xf))
        }
    }

    /// The lowercase hex digit of `nibble` (0 to 15).
    private static func hexDigit(_ nibble: UInt8) -> UInt8 {
        nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "a") + nibble - 10
    }
}
