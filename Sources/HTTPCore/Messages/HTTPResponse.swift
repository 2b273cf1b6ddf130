import Foundation

/// A complete HTTP response: its head (status, headers, final URL) and its body in memory.
///
/// Any status is a response, 4xx and 5xx included; only a missing or unusable answer is an
/// ``HTTPError``. A streaming exchange hands over the ``Head`` alone, beside an ``HTTPBody``
/// that delivers the bytes as they arrive.
public struct HTTPResponse: Sendable, Hashable {
    /// A response status code and its class.
    public struct Status: Sendable, Hashable, CustomStringConvertible {
        /// The class of a status code, from its first digit.
        public enum Kind: Sendable, Hashable {
            /// 1xx.
            case informational
            /// 2xx.
            case successful
            /// 3xx.
            case redirection
            /// 4xx.
            case clientError
            /// 5xx.
            case serverError
            /// A code outside 100...599.
            case invalid

            /// The class of `code`.
            public init(code: Int) {
                switch code {
                case 100..<200: self = .informational
                case 200..<300: self = .successful
                case 300..<400: self = .redirection
                case 400..<500: self = .clientError
                case 500..<600: self = .serverError
                default: self = .invalid
                }
            }

            /// Whether the status is an error answer: 4xx or 5xx.
            public var isError: Bool { self == .clientError || self == .serverError }

            /// The class as metric and log labels write it: `1xx` to `5xx`, or `invalid`.
            public var label: String {
                switch self {
                case .informational: "1xx"
                case .successful: "2xx"
                case .redirection: "3xx"
                case .clientError: "4xx"
                case .serverError: "5xx"
                case .invalid: "invalid"
                }
            }
        }

        /// The numeric status code, for example `404`.
        public let code: Int

        /// Creates a status from its code.
        public init(code: Int) {
            self.code = code
        }

        /// The class of this status.
        public var kind: Kind { Kind(code: code) }

        /// The code as a decimal string.
        public var description: String { String(code) }
    }

    /// The status, headers, final URL and redirection: everything but the body.
    public var head: Head
    /// The body; empty when the server sent none.
    public var body: Data

    /// The identifier of the request this answers.
    public var requestID: HTTPRequest.ID {
        get { head.requestID }
        set { head.requestID = newValue }
    }
    /// The numeric status code.
    public var statusCode: Int {
        get { head.statusCode }
        set { head.statusCode = newValue }
    }
    /// The header fields, in order, repeated names kept.
    public var headers: HTTPHeaders {
        get { head.headers }
        // In place: a get and a set would hold a second reference and copy the fields.
        _modify { yield &head.headers }
        set { head.headers = newValue }
    }
    /// The final URL, after any redirects.
    public var url: URL {
        get { head.url }
        set { head.url = newValue }
    }
    /// How the transport reached this response when it followed redirects; `nil` when it
    /// followed none, or cannot tell.
    public var redirection: HTTPRedirection? {
        get { head.redirection }
        set { head.redirection = newValue }
    }
    /// Header fields the transport added to the request it sent (a `User-Agent`, an
    /// `Accept-Encoding`…), as far as it can tell; empty when it added none or cannot tell.
    /// Outputs show them with the request's own.
    public var addedRequestHeaders: HTTPHeaders {
        get { head.addedRequestHeaders }
        _modify { yield &head.addedRequestHeaders }
        set { head.addedRequestHeaders = newValue }
    }

    /// The status and its class.
    public var status: Status { head.status }

    /// Creates a response.
    ///
    /// - Parameters:
    ///   - requestID: The identifier of the request this answers.
    ///   - statusCode: The numeric status code.
    ///   - headers: The header fields, in order.
    ///   - body: The body; empty for none.
    ///   - url: The final URL, after any redirects.
    ///   - redirection: How the transport reached this response, when it followed redirects.
    public init(
        requestID: HTTPRequest.ID,
        statusCode: Int,
        headers: HTTPHeaders = [:],
        body: Data = Data(),
        url: URL,
        redirection: HTTPRedirection? = nil
    ) {
        head = Head(requestID: requestID, statusCode: statusCode, headers: headers, url: url, redirection: redirection)
        self.body = body
    }

    /// Creates a response from its head and its body.
    ///
    /// - Parameters:
    ///   - head: The status, headers, final URL and redirection.
    ///   - body: The body; empty for none.
    public init(head: Head, body: Data = Data()) {
        self.head = head
        self.body = body
    }
}

extension HTTPResponse {
    /// The response as a streaming exchange hands it over: the head, and its body in memory
    /// as a replayable ``HTTPBody``.
    package var splitBody: (head: Head, body: HTTPBody) {
        (head, HTTPBody(body))
    }
}
