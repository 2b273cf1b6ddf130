/// An HTTP request method: a validated token such as `GET` or a custom one like `PURGE`.
///
/// Use the static constants for the standard methods; custom methods go through the
/// failable initializer, which rejects anything that is not an RFC 9110 token, so a typo
/// such as `"GE T"` cannot reach the wire.
public struct HTTPMethod: Sendable, Hashable {
    /// The method token exactly as it is sent, for example `"GET"`.
    public let rawValue: String

    /// Creates a method from a token; `nil` when the string is empty or contains a
    /// character that RFC 9110 does not allow in a token.
    public init?(_ token: String) {
        guard !token.isEmpty, token.utf8.allSatisfy(Self.isTokenCharacter) else { return nil }
        rawValue = token
    }

    private init(unchecked token: String) {
        rawValue = token
    }

    /// `GET`: transfer a current representation of the target resource.
    public static let get = HTTPMethod(unchecked: "GET")
    /// `HEAD`: like `GET`, without the response body.
    public static let head = HTTPMethod(unchecked: "HEAD")
    /// `POST`: process the enclosed representation.
    public static let post = HTTPMethod(unchecked: "POST")
    /// `PUT`: replace the target resource with the enclosed representation.
    public static let put = HTTPMethod(unchecked: "PUT")
    /// `PATCH`: apply partial modifications.
    public static let patch = HTTPMethod(unchecked: "PATCH")
    /// `DELETE`: remove the target resource.
    public static let delete = HTTPMethod(unchecked: "DELETE")
    /// `OPTIONS`: describe the communication options.
    public static let options = HTTPMethod(unchecked: "OPTIONS")
    /// `TRACE`: a message loop-back test.
    public static let trace = HTTPMethod(unchecked: "TRACE")
    /// `CONNECT`: establish a tunnel.
    public static let connect = HTTPMethod(unchecked: "CONNECT")

    /// Whether RFC 9110 defines the method as idempotent (`GET`, `HEAD`, `OPTIONS`, `TRACE`,
    /// `PUT`, `DELETE`): sending it twice has the effect of sending it once, so it may be
    /// retried. Custom methods are not.
    public var isIdempotent: Bool {
        switch rawValue {
        case "GET", "HEAD", "OPTIONS", "TRACE", "PUT", "DELETE": true
        default: false
        }
    }

    /// Whether RFC 9110 allows `byte` in a token: a method, a header name. A letter, a digit
    /// or one of ``!#$%&'*+-.^_`|~``, read from a bit set of the 128 ASCII bytes: a shift and a
    /// test, not a comparison per allowed character.
    package static func isTokenCharacter(_ byte: UInt8) -> Bool {
        let bits = byte < 64 ? tokenBytesBelow64 : tokenBytesFrom64
        return byte < 128 && bits & (1 &<< UInt64(byte & 63)) != 0
    }

    /// The token bytes 0 to 63, bit `n` for byte `n`: `!#$%&'*+-.` and the digits.
    private static var tokenBytesBelow64: UInt64 { 0x03FF_6CFA_0000_0000 }
    /// The token bytes 64 to 127, bit `n` for byte `64 + n`: the letters, and ^ _ ` | ~.
    private static var tokenBytesFrom64: UInt64 { 0x57FF_FFFF_C7FF_FFFE }
}

extension HTTPMethod: CustomStringConvertible {
    /// The method token.
    public var description: String { rawValue }
}
