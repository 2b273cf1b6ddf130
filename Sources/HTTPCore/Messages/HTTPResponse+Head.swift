import Foundation

extension HTTPResponse {
    /// A response without its body: status, headers, final URL and how the transport reached
    /// it.
    ///
    /// It is what a streaming exchange hands over when the head arrives, beside the
    /// ``HTTPBody`` that delivers the bytes (``HTTPClient/send(_:body:)``,
    /// ``HTTPTransport/perform(_:body:)``, ``HTTPMiddleware``), so that a message has one body.
    /// A buffered call's ``HTTPResponse`` is a head with its body in memory
    /// (``HTTPResponse/head``).
    public struct Head: Sendable, Hashable {
        /// The identifier of the request this answers.
        public var requestID: HTTPRequest.ID
        /// The numeric status code.
        public var statusCode: Int
        /// The header fields, in order, repeated names kept.
        public var headers: HTTPHeaders
        /// The final URL, after any redirects.
        public var url: URL
        /// How the transport reached this response when it followed redirects; `nil` when it
        /// followed none, or cannot tell.
        public var redirection: HTTPRedirection?
        /// Header fields the transport added to the request it sent (a `User-Agent`, an
        /// `Accept-Encoding`…), as far as it can tell; empty when it added none or cannot tell.
        /// Outputs show them with the request's own. For an attempt that failed before a
        /// response, `URLSessionTransport` reports them on the error it throws, and outputs show
        /// them all the same.
        public var addedRequestHeaders: HTTPHeaders = [:]

        /// The status and its class.
        public var status: Status { Status(code: statusCode) }

        /// Creates a response head.
        ///
        /// - Parameters:
        ///   - requestID: The identifier of the request this answers.
        ///   - statusCode: The numeric status code.
        ///   - headers: The header fields, in order.
        ///   - url: The final URL, after any redirects.
        ///   - redirection: How the transport reached this response, when it followed redirects.
        public init(
            requestID: HTTPRequest.ID,
            statusCode: Int,
            headers: HTTPHeaders = [:],
            url: URL,
            redirection: HTTPRedirection? = nil
        ) {
            self.requestID = requestID
            self.statusCode = statusCode
            self.headers = headers
            self.url = url
            self.redirection = redirection
        }
    }
}
