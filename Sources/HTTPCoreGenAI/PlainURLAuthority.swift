import HTTPCore
/// The host and explicit port of a URL's text (`scheme://host[:port][/?#…]`) when both are
/// plain, so that they are Foundation's `URL.host` (but for case) and `URL.port`, read in
/// one pass over the text without Foundation's parse: ``GenAIRecognizer`` tells a request
/// to another host apart with them.
///
/// Plain: no userinfo, a host of ASCII letters, digits, `-` and `.` (no escape, no IPv6
/// brackets), and a port, if any, of 1 to 5 digits up to 65535. Anything else is left to
/// Foundation. The host's bytes are valid only as long as the text they were read from.
struct PlainURLAuthority {
    /// The host's bytes, as written.
    let host: Slice<UnsafeBufferPointer<UInt8>>
    /// The port written after the host; `nil` when none is.
    let explicitPort: Int?

    /// The authority of `text`, a URL's absolute string; `nil` when it has none or it is
    /// not plain.
    init?(_ text: UnsafeBufferPointer<UInt8>) {
        guard let colon = text.firstIndex(of: UInt8(ascii: ":")), text.count > colon + 2,
            text[colon + 1] == UInt8(ascii: "/"), text[colon + 2] == UInt8(ascii: "/")
        else { return nil }
        let hostStart = colon + 3
        var index = hostStart
        while index < text.count, Self.isPlainHostByte(text[index]) { index += 1 }
        guard index > hostStart else { return nil }
        host = text[hostStart..<index]
        guard index < text.count, text[index] == UInt8(ascii: ":") else {
            guard Self.endsAuthority(at: index, in: text) else { return nil }
            explicitPort = nil
            return
        }
        index += 1
        let portStart = index
        var port = 0
        while index < text.count, index - portStart < 6, text[index] >= UInt8(ascii: "0"), text[index] <= UInt8(ascii: "9") {
            port = port * 10 + Int(text[index] - UInt8(ascii: "0"))
            index += 1
        }
        guard (1...5).contains(index - portStart), port <= 65535, Self.endsAuthority(at: index, in: text) else { return nil }
        explicitPort = port
    }

    /// Whether the authority ends at `index`: the text ends there or its path, query or
    /// fragment starts.
    private static func endsAuthority(at index: Int, in text: UnsafeBufferPointer<UInt8>) -> Bool {
        index == text.count || text[index] == UInt8(ascii: "/") || text[index] == UInt8(ascii: "?") || text[index] == UInt8(ascii: "#")
    }

    /// Whether `byte` is an ASCII letter, digit, `-` or `.`: one bit test, as every byte of
    /// the host is tested.
    private static func isPlainHostByte(_ byte: UInt8) -> Bool {
        let digitsHyphenAndDot: UInt64 = 0x03FF_6000_0000_0000  // 0-9 (48-57), - (45), . (46)
        let letters: UInt64 = 0x07FF_FFFE_07FF_FFFE  // A-Z (65-90), a-z (97-122), less 64
        return byte < 64 ? digitsHyphenAndDot >> byte & 1 == 1 : byte < 128 && letters >> (byte - 64) & 1 == 1
    }
}
