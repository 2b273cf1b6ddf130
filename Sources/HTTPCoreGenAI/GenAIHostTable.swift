import HTTPCore
/// The host patterns of a recognizer's rows, flattened into plain values and one byte
/// buffer, so that checking a host against them all allocates nothing and retains nothing:
/// it runs for every request, LLM call or not.
struct GenAIHostTable: Sendable, Hashable {
    private struct Row: Sendable, Hashable {
        var prefix: Range<Int>
        var suffix: Range<Int>
        var isExact: Bool
        var isLocalhost: Bool
        var port: Int?
    }

    private var rows: [Row] = []
    /// Every pattern's prefix and suffix, lowercased, one after another.
    private var bytes: [UInt8] = []

    init(_ patterns: [GenAIHostPattern]) {
        for pattern in patterns {
            let prefixStart = bytes.count
            bytes += pattern.prefix
            let suffixStart = bytes.count
            bytes += pattern.suffix
            rows.append(Row(
                prefix: prefixStart..<suffixStart, suffix: suffixStart..<bytes.count, isExact: pattern.isExact,
                isLocalhost: pattern.isLocalhost, port: pattern.port
            ))
        }
    }

    /// The first row from `start` on whose pattern `host` (its UTF-8 bytes) matches;
    /// `goesTo(port)` tells whether the request goes to a port, asked only of rows that
    /// name one.
    func firstMatch(host: UnsafeBufferPointer<UInt8>, from start: Int, goesTo: (Int) -> Bool) -> Int? {
        bytes.withUnsafeBufferPointer { bytes in
            rows.withUnsafeBufferPointer { rows in
                for index in start..<rows.count where Self.matches(host, rows[index], bytes) {
                    if let port = rows[index].port, !goesTo(port) { continue }
                    return index
                }
                return nil
            }
        }
    }

    private static func matches(_ host: UnsafeBufferPointer<UInt8>, _ row: Row, _ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        if row.isLocalhost { return isLocalhost(host) }
        guard row.isExact ? host.count == row.suffix.count : host.count >= row.prefix.count + row.suffix.count else { return false }
        return hasAt(host.count - row.suffix.count, in: host, Slice(base: bytes, bounds: row.suffix))
            && hasAt(0, in: host, Slice(base: bytes, bounds: row.prefix))
    }

    private static func isLocalhost(_ host: UnsafeBufferPointer<UInt8>) -> Bool {
        func `is`(_ name: StaticString) -> Bool {
            name.withUTF8Buffer { name in host.count == name.count && hasAt(0, in: host, Slice(base: name, bounds: 0..<name.count)) }
        }
        return `is`("localhost") || `is`("127.0.0.1") || `is`("::1") || `is`("[::1]")
    }

    /// Whether `host` holds `lowercase` (already lowercased) at `offset`, ASCII letters
    /// compared without case; compared from the end, where hosts differ most.
    private static func hasAt(_ offset: Int, in host: UnsafeBufferPointer<UInt8>, _ lowercase: Slice<UnsafeBufferPointer<UInt8>>) -> Bool {
        var index = lowercase.count - 1
        while index >= 0 {
            let byte = host[offset + index]
            let folded = byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte | 0x20 : byte
            guard folded == lowercase[lowercase.startIndex + index] else { return false }
            index -= 1
        }
        return true
    }
}
