import Foundation

/// The protocol app code depends on to make HTTP requests.
///
/// Use it as the type of your networking dependency, and pick a concrete client (for example
/// `URLSessionClient`) at the composition root:
///
/// ```swift
/// let client: any HTTPClient = URLSessionClient()
/// let response = try await client.send(HTTPRequest(url: url))
/// if response.status.kind == .successful { ... }
/// ```
///
/// Implement it by wrapping an ``HTTPTransport`` in `HTTPTransportClient` rather than
/// conforming directly: the wrapper provides ids, timing, timeouts, cancellation, the policy
/// and every lifecycle event.
public protocol HTTPClient: Sendable {
    /// Performs one exchange and returns as soon as the response head arrives, with the body
    /// still streaming: the body can outlive the call, handed to a server framework's
    /// response, say.
    ///
    /// It is the protocol's one requirement: ``send(_:)`` (the whole response) and
    /// ``send(_:body:receive:isolation:)`` (a body read within a closure) are built on it.
    ///
    /// The exchange, and its events, end with the body:
    /// - The returned ``HTTPResponse/Head`` holds the status, headers and final URL; the
    ///   returned ``HTTPBody`` delivers the body as it arrives, read in one pass.
    /// - The terminal event follows the body: `HTTPEvent.Name.requestSucceeded` once it was
    ///   read to its end, `HTTPEvent.Name.requestFailed` when it broke (reading throws the
    ///   ``HTTPError``, for example ``HTTPError/Code/connectionLost``), and
    ///   `HTTPEvent.Name.requestCancelled` when it was dropped before its end, unread or part
    ///   read (the body and its iterators released): the transport then stops receiving it.
    /// - The request's ``HTTPRequest/timeout`` bounds the whole exchange, body included: past
    ///   it, reading throws ``HTTPError/timeout``. Without one, a body kept unread keeps the
    ///   exchange open.
    /// - A slow reader slows the transfer: the body is never buffered whole by a streaming
    ///   transport, the client, a middleware or an observer.
    ///
    /// Implement it by forwarding, in a type that wraps a client: a streaming caller then never
    /// falls back to buffering unnoticed.
    ///
    /// - Parameters:
    ///   - request: What to send; its ``HTTPRequest/body`` must be `nil` when `body` is given.
    ///   - body: The request body, read as it is sent; `nil` sends `request.body`. A body that
    ///     can be iterated once is sent once: a retry or a 307 redirect needs a replayable one
    ///     (``HTTPBody/IterationBehavior/multiple``).
    /// - Returns: The response head and the body, still arriving.
    /// - Throws: Only ``HTTPError``, declared untyped so that the same `catch` reads the same
    ///   wherever the call runs (a `Task`, a task group, a closure API): `catch HTTPError.timeout`,
    ///   `catch HTTPError.Code.connectionLost`. A 4xx or 5xx answer is returned, not thrown.
    ///   Cancelling the calling task cancels the exchange, which then throws
    ///   ``HTTPError/cancelled``. A request with both bodies, ``HTTPRequest/body`` and `body`,
    ///   throws ``HTTPError/Code/invalidRequest`` before anything is sent: a message has one
    ///   body.
    func send(_ request: HTTPRequest, body: HTTPBody?) async throws -> (HTTPResponse.Head, HTTPBody)

    /// Not API: how ``send(_:)`` answers. Never implement or call it; it may change in any
    /// release.
    ///
    /// The default streams and collects (see ``send(_:)``). `HTTPTransportClient` and the
    /// package's clients built on it answer with their buffered call instead (the transport's
    /// cheaper whole-body answer and their own limit, with the same events), and a requirement,
    /// unlike a cast to find such a client, costs nothing on a call through `any HTTPClient`:
    /// the standard library's `Sequence` keeps its fast paths the same way
    /// (`_customContainsEquatableElement`).
    func _sendBuffered(_ request: HTTPRequest) async throws -> HTTPResponse
}

/// The most response body bytes `HTTPClient.send(_:)` takes into memory from a client that
/// has no buffered call of its own: 64 MiB, `HTTPTransportClient`'s default.
package let defaultMaximumBufferedResponseBytes = 64 << 20

extension HTTPClient {
    /// Performs one exchange and returns the complete response, its body in memory.
    ///
    /// It is ``send(_:body:)`` with the body collected: up to the client's limit, 64 MiB by
    /// default (see `HTTPTransportClient.maximumBufferedResponseBytes`). Read a longer body,
    /// or one to show as it arrives, with ``send(_:body:)`` or
    /// ``send(_:body:receive:isolation:)``.
    ///
    /// - Parameter request: What to send, its body included.
    /// - Returns: The response, its ``HTTPResponse/body`` read whole.
    /// - Throws: Only ``HTTPError``, declared untyped so that the same `catch` reads the same
    ///   wherever the call runs (a `Task`, a task group, a closure API): `catch HTTPError.timeout`,
    ///   `catch HTTPError.Code.connectionLost`,
    ///   `catch let error as HTTPError where error.code == .cannotConnect`, and
    ///   ``HTTPError/Code/responseTooLarge`` for a body over the limit. A 4xx or 5xx answer is
    ///   returned, not thrown. Cancelling the calling task cancels the exchange, which then
    ///   throws ``HTTPError/cancelled``.
    @inlinable
    public func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        try await _sendBuffered(request)
    }

    /// Not API: ``send(_:)`` for a client with no buffered call of its own, ``send(_:body:)``
    /// with the body collected up to 64 MiB.
    public func _sendBuffered(_ request: HTTPRequest) async throws -> HTTPResponse {
        let (head, body) = try await send(request, body: nil)
        return HTTPResponse(head: head, body: try await body.collectForBufferedCall(upTo: defaultMaximumBufferedResponseBytes))
    }

    /// Performs one exchange and hands the response to `receive` as soon as its head
    /// arrives, with the body still streaming: downloads, server-sent events, uploads that
    /// never sit in memory whole. The exchange ends when `receive` returns.
    ///
    /// ```swift
    /// try await client.send(HTTPRequest(url: eventsURL)) { head, body in
    ///     for try await chunk in body { render(chunk) }    // as each piece arrives
    /// }
    /// let file = HTTPBody(length: .known(size)) { chunks(of: path) }    // reopened by a retry
    /// let status = try await client.send(HTTPRequest(method: .put, url: url), body: file) { head, _ in
    ///     head.status
    /// }
    /// ```
    ///
    /// It is ``send(_:body:)`` with the body's end at the end of `receive`: reading the body
    /// after `receive` returned throws ``HTTPError/cancelled``, and the terminal event is
    /// `HTTPEvent.Name.requestCancelled` when `receive` returned or threw before the
    /// body's end (or, for a body of known length, before reading all of it). Errors before
    /// the head arrives are thrown as by ``send(_:)``; errors `receive` throws reach the caller
    /// unchanged.
    ///
    /// - Parameters:
    ///   - request: What to send; its ``HTTPRequest/body`` must be `nil` when `body` is given.
    ///   - body: The request body, read as it is sent; `nil` sends `request.body`.
    ///   - receive: Reads the response head and body; runs on the caller's isolation.
    ///   - isolation: Where `receive` runs; the caller's isolation by default.
    /// - Returns: What `receive` returns.
    /// - Throws: An ``HTTPError`` for the exchange, before the head or while `receive` reads
    ///   the body; what `receive` throws, unchanged.
    public func send<Result>(
        _ request: HTTPRequest,
        body: HTTPBody? = nil,
        receive: (HTTPResponse.Head, HTTPBody) async throws -> Result,
        isolation: isolated (any Actor)? = #isolation
    ) async throws -> Result {
        let (head, responseBody) = try await send(request, body: body)
        defer { responseBody.stopReading() }
        return try await receive(head, responseBody)
    }
}
