import Foundation

/// Why an exchange produced no complete response.
///
/// A 4xx or 5xx answer is not an error: it is an ``HTTPResponse``. Clients built on
/// ``HTTPTransportClient`` throw transport messages without the query, userinfo or fragment
/// of the request URL, cut to ``maximumMessageBytes``; events expose them with the policy's
/// ``Redactor`` text rules applied as well.
public enum HTTPError: Error, Sendable, Hashable {
    /// The exchange was cancelled, through ``Cancellable/cancel()`` or Swift task cancellation.
    case cancelled
    /// The request's deadline (``HTTPRequest/timeout``) passed before a complete response.
    case timeout
    /// The server answered something that is not a usable HTTP response: bytes that are not
    /// HTTP, a malformed status line or header.
    ///
    /// A connection that closes before the response is complete, even inside the status line,
    /// is ``TransportCode/connectionLost`` instead: what arrived was valid, the rest never came.
    case invalidResponse
    /// The transport failed: a stable `code` to branch on and a human-readable `message`.
    case transport(code: TransportCode, message: String)

    /// A stable, transport-independent name for a transport failure.
    ///
    /// Branch on the code, never on the message: messages come from the transport and differ
    /// between platforms.
    public struct TransportCode: Sendable, Hashable, CustomStringConvertible {
        /// The code's stable name, for example `"cannot_connect"`.
        public let rawValue: String

        /// Creates a code; adapters may define their own names.
        public init(_ rawValue: String) {
            self.rawValue = rawValue
        }

        /// The host refused the connection or could not be reached.
        public static let cannotConnect = TransportCode("cannot_connect")
        /// The host name could not be resolved.
        public static let cannotResolveHost = TransportCode("cannot_resolve_host")
        /// The connection closed or was reset before the response was complete: without a
        /// byte of answer, inside the status line or the headers, or inside the body.
        ///
        /// The server may have read and processed the request, so `RetryMiddleware` repeats
        /// it only when it is idempotent.
        public static let connectionLost = TransportCode("connection_lost")
        /// The device has no network connection.
        public static let notConnected = TransportCode("not_connected")
        /// TLS negotiation or certificate validation failed.
        public static let secureConnectionFailed = TransportCode("secure_connection_failed")
        /// The request cannot be sent as it is (bad URL, body not allowed for the method, ...).
        public static let invalidRequest = TransportCode("invalid_request")
        /// Redirects looped or exceeded the transport's limit.
        public static let tooManyRedirects = TransportCode("too_many_redirects")
        /// Any other failure; the message says more.
        public static let other = TransportCode("other")

        /// The code's stable name.
        public var description: String { rawValue }
    }
}

extension HTTPError {
    /// A stable, low-cardinality name of the failure for metrics and traces (OpenTelemetry's
    /// `error.type`): `cancelled`, `timeout`, `invalid_response`, or the transport code's name
    /// (`cannot_connect`, …). Never the message.
    public var typeName: String {
        switch self {
        case .cancelled: "cancelled"
        case .timeout: "timeout"
        case .invalidResponse: "invalid_response"
        case .transport(let code, _): code.rawValue
        }
    }
}

extension HTTPError: CustomStringConvertible {
    /// A one-line description, free of URL queries and userinfo.
    public var description: String {
        switch self {
        case .cancelled: "cancelled"
        case .timeout: "timed out"
        case .invalidResponse: "invalid response"
        case .transport(let code, let message): "transport error [\(code)]: \(message)"
        }
    }
}

extension HTTPError {
    /// The longest transport message, in UTF-8 bytes, that ``HTTPTransportClient`` throws or
    /// reports; longer ones are cut and end with `…`.
    public static let maximumMessageBytes = 4096

    /// `text` cut to at most `limit` UTF-8 bytes (plus the `…` that marks a cut), at a
    /// character boundary.
    package static func cut(_ text: String, toBytes limit: Int) -> String {
        let utf8 = text.utf8
        guard utf8.count > limit else { return text }
        var end = utf8.index(utf8.startIndex, offsetBy: limit)
        // Step back over continuation bytes to the start of the character cut in two.
        while end > utf8.startIndex, utf8[end] & 0xC0 == 0x80 { end = utf8.index(before: end) }
        return String(decoding: utf8[..<end], as: UTF8.self) + "…"
    }

    /// A description of any error that never prints its stored values: the type's name, and
    /// the text a `LocalizedError` chose to show (or an `NSError`'s domain and code).
    ///
    /// `String(describing:)` would print an enum's associated values and a struct's fields,
    /// such as `rejected(token: "...")`; callers still scrub the result as text.
    package static func safeDescription(of error: any Error) -> String {
        let name = String(describing: type(of: error))
        if let localized = error as? LocalizedError, let text = localized.errorDescription {
            return "\(name): \(text)"
        }
        if type(of: error) is NSError.Type {
            let error = error as NSError
            return "\(name) \(error.domain) \(error.code)"
        }
        return name
    }
}
