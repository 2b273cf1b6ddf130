/// Why an HTTPCore value has no swift-http-types equivalent, or the reverse.
///
/// Conversions never alter what they carry: a field name that is not an HTTP token, a value
/// with a byte HTTP forbids (NUL, CR, LF, or a control character), a status outside 100 to
/// 999, or a request without an absolute URL is refused with this error rather than
/// rewritten. (Methods always convert: both packages hold RFC 9110 tokens.)
public struct HTTPTypesConversionError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What was refused, with the offending name (never a field's value, which may be secret).
    public let description: String

    static func invalidFieldName(_ name: String) -> Self {
        Self(description: "the field name \"\(name)\" is not an HTTP token")
    }

    static func invalidFieldValue(name: String) -> Self {
        Self(description: "the value of the field \"\(name)\" has a byte HTTP does not allow")
    }

    /// Both packages accept exactly RFC 9110 tokens as methods, so no method reaches this
    /// today; it stands instead of a crash should either rule change.
    static func invalidMethod(_ method: String) -> Self {
        Self(description: "the method \"\(method)\" is not an HTTP token")
    }

    static func invalidStatus(_ code: Int) -> Self {
        Self(description: "the status \(code) is not between 100 and 999")
    }

    static let missingURL = Self(description: "the request has no absolute URL (scheme, authority and path)")
}
