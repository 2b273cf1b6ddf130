import HTTPCore
import NIOHTTP1

extension AsyncHTTPClientTransport {
    /// The length of a response body as the head tells it: none for `HEAD` and for the
    /// statuses that carry no body, the `Content-Length` when it is the only framing and the
    /// body arrives as sent (no `Content-Encoding` AHC may decode), else unknown. Repeated or
    /// comma-separated lengths count only when they agree.
    ///
    /// One pass over the fields that allocates nothing: every exchange asks it.
    static func responseLength(method: HTTPCore.HTTPMethod, status: Int, headers: NIOHTTP1.HTTPHeaders) -> HTTPBody.Length {
        if method == .head || (100..<200).contains(status) || status == 204 || status == 304 { return .known(0) }
        var declared: Int64?
        for (name, value) in headers {
            if isField(name, "transfer-encoding") { return .unknown }
            if isField(name, "content-encoding"), !isField(value, "identity") { return .unknown }
            if isField(name, "content-length") {
                guard let length = agreedLength(value), declared == nil || declared == length else { return .unknown }
                declared = length
            }
        }
        return declared.map { .known($0) } ?? .unknown
    }

    /// Whether `name` is `lowercased`, ignoring ASCII case.
    ///
    /// The lengths first, then the bytes in place: a walk of `String.UTF8View` with `zip`
    /// costs about 250 instructions a field, this about 40.
    private static func isField(_ name: String, _ lowercased: StaticString) -> Bool {
        guard name.utf8.count == lowercased.utf8CodeUnitCount else { return false }
        var name = name
        return name.withUTF8 { bytes in
            for index in 0..<bytes.count {
                let byte = bytes[index], target = lowercased.utf8Start[index]
                // Case folds letters only: `\r` | 0x20 is `-`.
                let isLetter = target >= UInt8(ascii: "a") && target <= UInt8(ascii: "z")
                guard byte == target || (isLetter && byte | 0x20 == target) else { return false }
            }
            return true
        }
    }

    /// The length a `Content-Length` value gives: one non-negative decimal, or several
    /// comma-separated equal ones, each between optional spaces and tabs; `nil` otherwise.
    private static func agreedLength(_ value: String) -> Int64? {
        var value = value
        return value.withUTF8 { bytes in agreedLength(bytes) }
    }

    /// ``agreedLength(_:)`` of the value's UTF-8 bytes, read in place.
    private static func agreedLength(_ bytes: UnsafeBufferPointer<UInt8>) -> Int64? {
        var agreed: Int64?
        var part: Int64 = 0
        var digits = 0
        var spaceAfterDigits = false
        for byte in bytes {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"):
                guard !spaceAfterDigits, digits < 18 else { return nil }
                part = part * 10 + Int64(byte - UInt8(ascii: "0"))
                digits += 1
            case UInt8(ascii: " "), UInt8(ascii: "\t"):
                spaceAfterDigits = digits > 0
            case UInt8(ascii: ","):
                guard digits > 0, agreed == nil || agreed == part else { return nil }
                (agreed, part, digits, spaceAfterDigits) = (part, 0, 0, false)
            default:
                return nil
            }
        }
        guard digits > 0, agreed == nil || agreed == part else { return nil }
        return part
    }
}
