import Foundation
import HTTPCore

/// What a ``LoopbackHTTPServer`` route answers, including how and whether to misbehave.
///
/// The server owns the framing: it removes any `Content-Length` and `Transfer-Encoding` from
/// `headers` and writes its own according to `transfer`, adds `Connection: close` when it will
/// close the connection, and sends no body for `HEAD`, 1xx, 204 and 304. Every other header is
/// written as given, in order, repetitions included.
///
/// ```swift
/// server.route("GET", "/slow") { _ in
///     var response = LoopbackResponse.text("late")
///     response.delay = 5
///     return response
/// }
/// ```
public struct LoopbackResponse: Sendable, Hashable {
    /// The status code, for example `200`.
    public var status: Int
    /// The reason phrase; `nil` uses the standard phrase for common codes and an empty one otherwise.
    public var reason: String?
    /// The header fields, written in order after the status line.
    public var headers: HTTPHeaders
    /// The body bytes.
    public var body: Data
    /// Seconds to wait before sending anything; `stop()` cuts the wait short and closes the connection.
    public var delay: TimeInterval
    /// How the body is framed on the wire.
    public var transfer: Transfer
    /// When set, the body is sent in pieces with pauses in between, for idle-timeout tests.
    public var drip: Drip?
    /// When set, the server breaks the exchange in this way instead of answering normally.
    public var fault: Fault?

    /// Creates a response with no delay, no drip and no fault, framed with `Content-Length`.
    public init(status: Int = 200, headers: HTTPHeaders = [:], body: Data = Data()) {
        self.status = status
        self.reason = nil
        self.headers = headers
        self.body = body
        self.delay = 0
        self.transfer = .contentLength
        self.drip = nil
        self.fault = nil
    }

    /// A UTF-8 text response with `Content-Type: text/plain; charset=utf-8`.
    public static func text(_ text: String, status: Int = 200) -> LoopbackResponse {
        LoopbackResponse(
            status: status,
            headers: ["Content-Type": "text/plain; charset=utf-8"],
            body: Data(text.utf8)
        )
    }

    /// A JSON response with `Content-Type: application/json`; `json` is sent as given, unchecked.
    public static func json(_ json: String, status: Int = 200) -> LoopbackResponse {
        LoopbackResponse(status: status, headers: ["Content-Type": "application/json"], body: Data(json.utf8))
    }

    /// A redirect with a `Location` header and an empty body.
    public static func redirect(to location: String, status: Int = 302) -> LoopbackResponse {
        LoopbackResponse(status: status, headers: ["Location": location])
    }

    /// How a response body is framed.
    public enum Transfer: Sendable, Hashable {
        /// A `Content-Length` header giving the body's size.
        case contentLength
        /// `Transfer-Encoding: chunked`, with chunks of at most `chunkSize` bytes (at least 1).
        case chunked(chunkSize: Int)
    }

    /// Sending a body slowly: `chunks` pieces of about equal size with `interval` seconds between them.
    ///
    /// No pause comes before the first piece or after the last. `stop()` cuts a pause short and
    /// closes the connection.
    public struct Drip: Sendable, Hashable {
        /// How many pieces to split the body into (at least 1).
        public var chunks: Int
        /// Seconds to wait between two pieces.
        public var interval: TimeInterval

        /// Creates a drip of `chunks` pieces `interval` seconds apart.
        public init(chunks: Int, interval: TimeInterval) {
            self.chunks = chunks
            self.interval = interval
        }
    }

    /// A way for the server to break an exchange, to test how a client copes.
    ///
    /// Every fault ends with the server closing the connection.
    public enum Fault: Sendable, Hashable {
        /// Sends the complete head, then closes without a body.
        case closeAfterHead
        /// Sends the head declaring the full body, then this many bytes of the framed body, then closes.
        case closeAfterBodyBytes(Int)
        /// Closes at once without answering, with `SO_LINGER` 0 so the client sees a connection reset.
        case reset
        /// Writes these bytes verbatim instead of a response, then closes: for garbage answers.
        case raw(Data)
    }
}

extension LoopbackResponse {
    /// The standard reason phrase for common status codes, empty for others.
    package static func standardReason(for status: Int) -> String {
        switch status {
        case 100: "Continue"
        case 101: "Switching Protocols"
        case 200: "OK"
        case 201: "Created"
        case 202: "Accepted"
        case 204: "No Content"
        case 206: "Partial Content"
        case 301: "Moved Permanently"
        case 302: "Found"
        case 303: "See Other"
        case 304: "Not Modified"
        case 307: "Temporary Redirect"
        case 308: "Permanent Redirect"
        case 400: "Bad Request"
        case 401: "Unauthorized"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 405: "Method Not Allowed"
        case 408: "Request Timeout"
        case 409: "Conflict"
        case 410: "Gone"
        case 413: "Payload Too Large"
        case 415: "Unsupported Media Type"
        case 417: "Expectation Failed"
        case 422: "Unprocessable Entity"
        case 429: "Too Many Requests"
        case 431: "Request Header Fields Too Large"
        case 500: "Internal Server Error"
        case 501: "Not Implemented"
        case 502: "Bad Gateway"
        case 503: "Service Unavailable"
        case 504: "Gateway Timeout"
        case 505: "HTTP Version Not Supported"
        default: ""
        }
    }
}
