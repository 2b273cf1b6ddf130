/// Decoding and encoding of JSON string tokens, for the maskers.
package enum JSONString {
    /// The text of a JSON string's content (between the quotes), escapes resolved; `nil` when
    /// an escape is malformed.
    package static func decode(_ bytes: Slice<UnsafeBufferPointer<UInt8>>) -> String? {
        guard bytes.contains(UInt8(ascii: "\\")) else {
            return String(decoding: bytes, as: UTF8.self)
        }
        var scalars = String.UnicodeScalarView()
        var utf8: [UInt8] = []
        var index = bytes.startIndex
        func flush() {
            scalars.append(contentsOf: String(decoding: utf8, as: UTF8.self).unicodeScalars)
            utf8.removeAll(keepingCapacity: true)
        }
        func hex4(at position: Int) -> UInt32? {
            guard position + 4 <= bytes.endIndex else { return nil }
            return hexQuad(bytes[position..<(position + 4)])
        }
        while index < bytes.endIndex {
            let byte = bytes[index]
            guard byte == UInt8(ascii: "\\") else {
                utf8.append(byte)
                index += 1
                continue
            }
            guard index + 1 < bytes.endIndex else { return nil }
            let escape = bytes[index + 1]
            index += 2
            switch escape {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): utf8.append(escape)
            case UInt8(ascii: "b"): utf8.append(0x08)
            case UInt8(ascii: "f"): utf8.append(0x0C)
            case UInt8(ascii: "n"): utf8.append(0x0A)
            case UInt8(ascii: "r"): utf8.append(0x0D)
            case UInt8(ascii: "t"): utf8.append(0x09)
            case UInt8(ascii: "u"):
                guard var code = hex4(at: index) else { return nil }
                index += 4
                if (0xD800..<0xDC00).contains(code), index + 6 <= bytes.endIndex,
                    bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u"),
                    let low = hex4(at: index + 2), (0xDC00..<0xE000).contains(low)
                {
                    code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                    index += 6
                }
                flush()
                scalars.append(Unicode.Scalar(code) ?? "\u{FFFD}")
            default:
                return nil
            }
        }
        flush()
        return String(scalars)
    }

    /// Whether every escape in a JSON string's content is well formed, as ``decode(_:)``
    /// requires, checked without building the text.
    package static func hasValidEscapes(_ bytes: Slice<UnsafeBufferPointer<UInt8>>) -> Bool {
        var index = bytes.startIndex
        while let backslash = bytes[index...].firstIndex(of: UInt8(ascii: "\\")) {
            guard backslash + 1 < bytes.endIndex else { return false }
            switch bytes[backslash + 1] {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"), UInt8(ascii: "f"), UInt8(ascii: "n"),
                UInt8(ascii: "r"), UInt8(ascii: "t"):
                index = backslash + 2
            case UInt8(ascii: "u"):
                guard backslash + 6 <= bytes.endIndex, hexQuad(bytes[(backslash + 2)..<(backslash + 6)]) != nil else { return false }
                index = backslash + 6
            default:
                return false
            }
        }
        return true
    }

    /// A JSON string token (with quotes) for `text`.
    package static func encode(_ text: String) -> [UInt8] {
        var output: [UInt8] = [UInt8(ascii: "\"")]
        output.reserveCapacity(text.utf8.count + 2)
        appendEscaped(text, to: &output)
        output.append(UInt8(ascii: "\""))
        return output
    }

    /// Appends `text` escaped for the inside of a JSON string; `/` is not escaped.
    package static func appendEscaped(_ text: String, to output: inout [UInt8]) {
        var text = text
        let length = escapedLength(text)
        text.withUTF8 { bytes in
            var position = output.count
            output.append(contentsOf: repeatElement(0, count: length))
            output.withUnsafeMutableBufferPointer { out in
                for byte in bytes {
                    guard byte == 0x22 || byte == 0x5C || byte < 0x20 else {
                        out[position] = byte
                        position += 1
                        continue
                    }
                    out[position] = 0x5C
                    switch byte {
                    case 0x22, 0x5C: out[position + 1] = byte
                    case 0x0A: out[position + 1] = UInt8(ascii: "n")
                    case 0x0D: out[position + 1] = UInt8(ascii: "r")
                    case 0x09: out[position + 1] = UInt8(ascii: "t")
                    default:
                        out[position + 1] = UInt8(ascii: "u")
                        out[position + 2] = UInt8(ascii: "0")
                        out[position + 3] = UInt8(ascii: "0")
                        out[position + 4] = hexDigits[Int(byte >> 4)]
                        out[position + 5] = hexDigits[Int(byte & 0x0F)]
                        position += 4
                    }
                    position += 2
                }
            }
        }
    }

    /// The number of bytes ``appendEscaped(_:to:)`` writes for `text`.
    package static func escapedLength(_ text: String) -> Int {
        var text = text
        return text.withUTF8 { bytes in
            // Quotes and backslashes are counted in blocks of at most 255 bytes into a byte-wide
            // count, without a branch per byte, which the compiler vectorizes: a payload's
            // bodies are measured before they are written, and JSON text is full of quotes.
            // Control characters, rare in text, are counted again one by one.
            var quotes = 0
            var hasControls: UInt8 = 0
            var index = 0
            while index < bytes.count {
                let end = min(bytes.count, index + 255)
                var blockQuotes: UInt8 = 0
                while index < end {
                    let byte = bytes[index]
                    blockQuotes &+= (byte == 0x22 ? 1 : 0) | (byte == 0x5C ? 1 : 0)
                    hasControls |= byte < 0x20 ? 1 : 0
                    index += 1
                }
                quotes += Int(blockQuotes)
            }
            guard hasControls != 0 else { return bytes.count + quotes }
            var length = bytes.count
            for byte in bytes where byte == 0x22 || byte == 0x5C || byte < 0x20 {
                length += escapedLength(of: byte) - 1
            }
            return length
        }
    }

    /// The number of bytes ``appendEscaped(_:to:)`` writes for one byte: 2 for `"`, `\\` and
    /// the control characters with a short escape, 6 for other control characters (`\u00XX`),
    /// else 1.
    @inline(__always)
    package static func escapedLength(of byte: UInt8) -> Int {
        guard byte == 0x22 || byte == 0x5C || byte < 0x20 else { return 1 }
        return byte == 0x22 || byte == 0x5C || byte == 0x0A || byte == 0x0D || byte == 0x09 ? 2 : 6
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)

    /// Whether bytes form a complete JSON number, `true`, `false` or `null`.
    package static func isScalar(_ bytes: Slice<UnsafeBufferPointer<UInt8>>) -> Bool {
        if bytes.elementsEqual("true".utf8) || bytes.elementsEqual("false".utf8) || bytes.elementsEqual("null".utf8) {
            return true
        }
        guard let first = bytes.first, first == UInt8(ascii: "-") || (first >= 0x30 && first <= 0x39) else { return false }
        return bytes.allSatisfy { byte in
            (byte >= 0x30 && byte <= 0x39) || "-+.eE".utf8.contains(byte)
        }
    }

    /// The value of the four hex digits of a `\uXXXX` escape; `nil` when one is not a hex digit.
    package static func hexQuad(_ digits: Slice<UnsafeBufferPointer<UInt8>>) -> UInt32? {
        var value: UInt32 = 0
        for byte in digits {
            guard let digit = HexDigit.value(byte) else { return nil }
            value = value << 4 | UInt32(digit)
        }
        return value
    }
}
