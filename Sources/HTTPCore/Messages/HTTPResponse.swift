import Foundation

/// A complete HTTP response: status, headers and body.
///
/// Any status is a response, 4xx and 5xx included; only a missing or unusable answer is an
/// ``HTTPError``.
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

    /// The identifier of the request this answers.
    public var requestID: HTTPRequest.ID
    /// The numeric status code.
    public var statusCode: Int
    /// The header fields, in order, repeated names kept.
    public var headers: HTTPHeaders
    /// The body; empty when the server sent none.
    public var body: Data
    /// The final URL, after any redirects.
    public var url: URL
    /// How the transport reached this response when it followed redirects; `nil` when it
    /// followed none, or cannot tell.
    public var redirection: HTTPRedirection?
    /// Header fields the transport added to the request it sent (a `User-Agent`, an
    /// `Accept-Encoding`…), as far as it can tell; empty when it added none or cannot tell.
    /// Outputs show them with the request's own.
    public var addedRequestHeaders: HTTPHeaders = [:]

    /// The status and its class.
    public var status: Status { Status(code: statusCode) }

    /// Creates a response.
    public init(
        requestID: HTTPRequest.ID,
        statusCode: Int,
        headers: HTTPHeaders = [:],
        body: Data = Data(),
        url: URL,
        redirection: HTTPRedirection? = nil
    ) {
        self.requestID = requestID
        self.statusCode = statusCode
        self.headers = headers
        self.body = body
        self.url = url
        self.redirection = redirection
    }
}

extension HTTPResponse {
    /// The response as a streaming exchange hands it over: the head, with an empty body, and
    /// its body in memory as a replayable ``HTTPBody``.
    package var splitBody: (head: HTTPResponse, body: HTTPBody) {
        var head = self
        head.body = Data()
        return (head, HTTPBody(body))
    }
}
