/// The adapter contract: one method that performs one HTTP exchange.
///
/// Implement it to bring a new transport (an HTTP library, a recorded-response replayer, a
/// retrying wrapper) under HTTPCore. Wrap it in ``HTTPTransportClient`` and the wrapper
/// provides `send`, `execute`, request ids, timing, deadlines, cancellation, the policy and
/// every lifecycle event: an adapter writes no event code and is observed automatically.
///
/// ```swift
/// struct EchoTransport: HTTPTransport {
///     func perform(_ request: HTTPRequest) async throws -> HTTPResponse {
///         HTTPResponse(requestID: request.id, statusCode: 200, body: request.body ?? Data(), url: request.url)
///     }
/// }
/// let client = HTTPTransportClient(transport: EchoTransport(), dispatcher: dispatcher)
/// ```
///
/// Rules for implementers:
/// - Return the complete response for any status; do not throw for 4xx or 5xx.
/// - Throw ``HTTPError`` for failures you can classify; any other error is reported as
///   ``HTTPError/transport(_:message:)`` with code ``HTTPError/Code/other``.
/// - Honour Swift task cancellation promptly: deadlines and `cancel()` work through it.
/// - Do not emit events, assign ids or apply the policy: the client does.
public protocol HTTPTransport: Sendable {
    /// Performs one exchange for `request` and returns the complete response.
    func perform(_ request: HTTPRequest) async throws -> HTTPResponse
}
