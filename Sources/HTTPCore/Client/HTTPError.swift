import Foundation

/// Why an exchange produced no complete response: a stable ``code`` to branch on and, for a
/// transport failure, a human-readable ``message``.
///
/// A 4xx or 5xx answer is not an error: it is an ``HTTPResponse``. Clients built on
/// `HTTPTransportClient` throw transport messages without the query, userinfo or fragment
/// of the request URL (decoded or re-encoded spellings too), cut to ``maximumMessageBytes``; events expose them with the policy's
/// ``/HTTPCoreRedaction/Redactor`` text rules applied as well.
///
/// Catch it by value, by code, or bind it; the patterns work wherever the error arrives
/// (`send`, a `Task`, a task group, a closure API), because they match any `Error`:
///
/// ```swift
/// do {
///     let response = try await client.send(request)
/// } catch HTTPError.timeout {
///     // the deadline passed
/// } catch HTTPError.Code.connectionLost {
///     // the server may have processed the request
/// } catch let error as HTTPError where error.code == .cannotConnect {
///     print(error.message ?? "")
/// }
/// ```
///
/// New kinds of failure are new ``Code`` values, so a `switch` over ``code`` needs a
/// `default:` and keeps compiling when one is added.
///
/// Two errors are equal, and hash alike, when their code and message are: the
/// ``underlyingError`` (the caller's own error, as a request body's producer threw it) is
/// carried for the caller to inspect but takes no part in equality, since an `any Error`
/// has none to offer, and the message already names it.
public struct HTTPError: Error, Sendable, Hashable {
    /// What kind of failure this is; branch on it, never on the message.
    public let code: Code
    /// What the transport said, for a transport failure; `nil` for ``cancelled``, ``timeout``
    /// and ``invalidResponse``.
    ///
    /// Messages come from the transport and differ between platforms: show or log them,
    /// never branch on them.
    public let message: String?
    /// The error this one stands for, when it is the caller's own: what a streamed request
    /// body's sequence threw (``Code/requestBodyFailed``), so that a caller can tell its own
    /// failure (`error.underlyingError as? MyError`); `nil` otherwise.
    ///
    /// Not part of equality or hashing, and never in ``description`` or in events: the message
    /// names its type, and observers see only the code and the redacted message.
    public var underlyingError: (any Error)? { underlying.error }
    private var underlying: Underlying

    private init(code: Code, message: String?, underlyingError: (any Error)? = nil) {
        self.code = code
        self.message = message
        underlying = Underlying(error: underlyingError)
    }

    /// What the error carries beside its code and message, equal to every other and hashing
    /// to nothing, so that the synthesized `==` and `hash(into:)` compare the code and the
    /// message alone.
    private struct Underlying: Sendable, Hashable {
        let error: (any Error)?
        /// See ``HTTPError/addedRequestHeaders``.
        var addedRequestHeaders: HTTPHeaders = [:]

        static func == (lhs: Underlying, rhs: Underlying) -> Bool { true }
        func hash(into hasher: inout Hasher) {}
    }

    /// The exchange was cancelled, through ``Cancellable/cancel()`` or Swift task cancellation.
    public static let cancelled = HTTPError(code: .cancelled, message: nil)
    /// The request's deadline (``HTTPRequest/timeout``) passed before a complete response.
    public static let timeout = HTTPError(code: .timeout, message: nil)
    /// The server answered something that is not a usable HTTP response: bytes that are not
    /// HTTP, a malformed status line or header.
    ///
    /// A connection that closes before the response is complete, even inside the status line,
    /// is ``Code/connectionLost`` instead: what arrived was valid, the rest never came.
    public static let invalidResponse = HTTPError(code: .invalidResponse, message: nil)

    /// A transport failure: a stable `code` to branch on and a human-readable `message`.
    ///
    /// Adapters throw it for failures they can classify, with one of the ``Code`` values or one
    /// of their own, as `AuthorizationMiddleware` does with `credential_unavailable`.
    ///
    /// - Parameters:
    ///   - code: What kind of failure it is.
    ///   - message: What happened, for people; never a URL's query or a secret.
    ///   - underlyingError: The caller's own error this one stands for, if any (see
    ///     ``underlyingError``); `nil` by default.
    /// - Returns: The error.
    public static func transport(_ code: Code, message: String, underlyingError: (any Error)? = nil) -> HTTPError {
        HTTPError(code: code, message: message, underlyingError: underlyingError)
    }

    /// A stable, transport-independent name for a kind of failure.
    ///
    /// A struct rather than an enum so that a new kind (or an adapter's own) is a new value,
    /// not a breaking change to every `switch`: switch over it with a `default:`.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        /// The code's stable name, for example `"cannot_connect"`; what ``HTTPError/typeName``
        /// reports.
        public let rawValue: String

        /// Creates a code; adapters may define their own names (lowercase, `_`-separated).
        public init(_ rawValue: String) {
            self.rawValue = rawValue
        }

        /// The exchange was cancelled (``HTTPError/cancelled``).
        public static let cancelled = Code("cancelled")
        /// The request's deadline passed (``HTTPError/timeout``).
        public static let timeout = Code("timeout")
        /// The answer is not a usable HTTP response (``HTTPError/invalidResponse``).
        public static let invalidResponse = Code("invalid_response")
        /// The host refused the connection or could not be reached.
        public static let cannotConnect = Code("cannot_connect")
        /// The host name could not be resolved.
        public static let cannotResolveHost = Code("cannot_resolve_host")
        /// The connection closed or was reset before the response was complete: without a
        /// byte of answer, inside the status line or the headers, or inside the body.
        ///
        /// The server may have read and processed the request, so `RetryMiddleware` repeats
        /// it only when it is idempotent.
        public static let connectionLost = Code("connection_lost")
        /// The device has no network connection.
        public static let notConnected = Code("not_connected")
        /// TLS negotiation or certificate validation failed.
        public static let secureConnectionFailed = Code("secure_connection_failed")
        /// The request cannot be sent as it is (bad URL, body not allowed for the method, ...).
        public static let invalidRequest = Code("invalid_request")
        /// Redirects looped or exceeded the transport's limit.
        public static let tooManyRedirects = Code("too_many_redirects")
        /// A body exceeded a limit: the one a transport was given for a response body, or the
        /// one given to ``HTTPBody/collect(upTo:)``. The message names the limit and the
        /// setting that raises it.
        public static let responseTooLarge = Code("response_too_large")
        /// A body that can be read once was read a second time (``HTTPBody/IterationBehavior/single``).
        public static let bodyAlreadyRead = Code("body_already_read")
        /// A streamed request body failed while it was sent: its sequence threw an error that is
        /// not an `HTTPError` (one that is keeps its own code). The message says
        /// `request body: the body's sequence threw <type>[: <text>] after <n> bytes`, and
        /// ``HTTPError/underlyingError`` is the error it threw.
        ///
        /// The server saw part of the body at most; the request is never retried, since the
        /// same body would fail again.
        public static let requestBodyFailed = Code("request_body_failed")
        /// Any other failure; the message says more.
        public static let other = Code("other")

        /// The code's stable name.
        public var description: String { rawValue }
    }
}

extension HTTPError {
    /// A stable, low-cardinality name of the failure for metrics and traces (OpenTelemetry's
    /// `error.type`): the code's name (`cancelled`, `timeout`, `invalid_response`,
    /// `cannot_connect`, …). Never the message.
    public var typeName: String { code.rawValue }
}

extension HTTPError: CustomStringConvertible {
    /// A one-line description, free of URL queries and userinfo: `cancelled`, `timed out`,
    /// `invalid response`, or `transport error [code]: message`.
    public var description: String {
        if let message { return "transport error [\(code)]: \(message)" }
        switch code {
        case .cancelled: return "cancelled"
        case .timeout: return "timed out"
        case .invalidResponse: return "invalid response"
        default: return "transport error [\(code)]"
        }
    }
}

extension HTTPError {
    /// Matches an error of the same code, and of the same message when `pattern` has one, so
    /// that `catch HTTPError.timeout` reads naturally whatever the thrown type was declared as.
    ///
    /// `HTTPError.timeout ~= error` is `true` for any `HTTPError` whose code is
    /// ``Code/timeout``; `HTTPError.transport(.other, message: "x") ~= error` also needs the
    /// message `"x"`. Anything that is not an `HTTPError` never matches.
    ///
    /// `value` is optional so that this match ranks below a type's own `==`: without it,
    /// `switch someError { case .cancelled: }` over another error type with a `cancelled`
    /// member would become ambiguous in every file that imports HTTPCore.
    public static func ~= (pattern: HTTPError, value: (any Error)?) -> Bool {
        guard let value = value as? HTTPError else { return false }
        return pattern ~= value
    }

    /// Matches an error of the same code, and of the same message when `pattern` has one: what
    /// `case .timeout` means in a `switch` over an `HTTPError`.
    public static func ~= (pattern: HTTPError, value: HTTPError) -> Bool {
        pattern.code == value.code && (pattern.message == nil || pattern.message == value.message)
    }
}

extension HTTPError.Code {
    /// Matches any ``HTTPError`` with this code, so that `catch HTTPError.Code.connectionLost`
    /// catches every lost connection whatever its message. Anything that is not an
    /// `HTTPError` never matches. `value` is optional for the same reason as in `HTTPError`'s
    /// `~=`: other error types' `switch`es stay unambiguous.
    public static func ~= (pattern: HTTPError.Code, value: (any Error)?) -> Bool {
        (value as? HTTPError)?.code == pattern
    }
}

extension HTTPError {
    /// The header fields the transport added to the request of the attempt that failed (its
    /// `User-Agent`, `Accept-Encoding`, ...), as ``HTTPResponse/addedRequestHeaders`` reports them
    /// for an attempt that got a response; empty when the transport reports none, or when the
    /// request never reached it. Not part of equality, hashing or ``description``.
    package var addedRequestHeaders: HTTPHeaders { underlying.addedRequestHeaders }

    /// This error, carrying `headers` as the fields the transport added to the request
    /// (``addedRequestHeaders``): what a transport throws for a request it sent, or tried to.
    package func addingRequestHeaders(_ headers: HTTPHeaders) -> HTTPError {
        var error = self
        error.underlying.addedRequestHeaders = headers
        return error
    }

    /// `error` as the client reports it, keeping what `original` carried beside its code and
    /// message (the transport's ``addedRequestHeaders``): for an error the client rebuilds, a
    /// scrubbed message or a cancellation classified as a timeout.
    package func keepingAddedRequestHeaders(of original: (any Error)?) -> HTTPError {
        guard let headers = (original as? HTTPError)?.addedRequestHeaders, !headers.isEmpty else { return self }
        return addingRequestHeaders(headers)
    }
}

extension HTTPError {
    /// The longest transport message, in UTF-8 bytes, that `HTTPTransportClient` throws or
    /// reports; longer ones are cut and end with `…`.
    public static let maximumMessageBytes = 4096

    /// What the client throws when a streamed request body's sequence threw `error` after
    /// `byteCount` bytes: ``Code/requestBodyFailed``, `error` as ``underlyingError``. An
    /// `HTTPError` (a code the body's producer chose, a proxied body's `connection_lost`) and a
    /// cancellation stay what they are.
    package static func requestBodyFailure(_ error: any Error, afterBytes byteCount: Int64) -> any Error {
        if error is CancellationError || error is HTTPError { return error }
        return HTTPError(
            code: .requestBodyFailed,
            message: "request body: the body's sequence threw \(safeDescription(of: error)) after \(byteCount) bytes",
            underlyingError: error
        )
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
