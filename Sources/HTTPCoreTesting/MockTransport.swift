import Foundation
import HTTPCore
import HTTPCoreConcurrency

/// A programmable ``/HTTPCore/HTTPTransport`` for tests: scripted responses, errors and delays.
///
/// Replies queued with ``enqueue(_:)`` are used in order; when none is left, the default
/// reply answers. Every request the transport receives is recorded.
///
/// ```swift
/// let transport = MockTransport(default: .status(200, body: Data("ok".utf8)))
/// transport.enqueue(.status(503), .failure(.timeout, after: 0.05))
/// let client = HTTPTransportClient(transport: transport, dispatcher: dispatcher)
/// ```
///
/// Delays use `Task.sleep`, so they honour cancellation like a real transport. It is an
/// ``/HTTPCore/HTTPBufferedTransport``: a reply slower than the request's `timeout` ends at
/// the timeout with ``/HTTPCore/HTTPError/timeout``, as every transport's must.
public final class MockTransport: HTTPBufferedTransport {
    /// One scripted answer.
    public struct Reply: Sendable {
        /// The status code of the response; ignored when ``error`` is set.
        public var statusCode: Int
        /// The response headers.
        public var headers: HTTPHeaders
        /// The response body.
        public var body: Data
        /// The error to throw instead of answering.
        public var error: HTTPError?
        /// How long to wait before answering, in seconds.
        public var delay: TimeInterval
        /// Where redirects led, when the reply stands for a transport that followed some:
        /// the final URL and how it was reached.
        public var redirect: (url: URL, redirection: HTTPRedirection)? = nil

        /// A response with this status, body and headers, after an optional delay.
        public static func status(
            _ statusCode: Int,
            body: Data = Data(),
            headers: HTTPHeaders = [:],
            after delay: TimeInterval = 0
        ) -> Reply {
            Reply(statusCode: statusCode, headers: headers, body: body, error: nil, delay: delay)
        }

        /// A response with this status and body, reached at `url` after the transport
        /// followed redirects as `redirection` says.
        public static func redirected(
            to url: URL, _ redirection: HTTPRedirection, finally statusCode: Int = 200, body: Data = Data()
        ) -> Reply {
            Reply(statusCode: statusCode, headers: [:], body: body, error: nil, delay: 0, redirect: (url, redirection))
        }

        /// A failure with this error, after an optional delay.
        public static func failure(_ error: HTTPError, after delay: TimeInterval = 0) -> Reply {
            Reply(statusCode: 0, headers: [:], body: Data(), error: error, delay: delay)
        }
    }

    private struct State {
        var queued: [Reply] = []
        var requests: [HTTPRequest] = []
    }

    private let defaultReply: Reply
    private let state = Locked(State())
    /// Creates a transport that answers with `default` when no reply is queued.
    public init(default defaultReply: Reply = .status(200)) {
        self.defaultReply = defaultReply
    }

    /// Queues replies, used in order before the default one.
    public func enqueue(_ replies: Reply...) {
        state.withLock { $0.queued.append(contentsOf: replies) }
    }

    /// Every request performed so far, in order.
    public var requests: [HTTPRequest] {
        state.withLock { $0.requests }
    }

    /// Records the request and answers with the next reply.
    public func perform(_ request: HTTPRequest) async throws -> HTTPResponse {
        let reply = state.withLock { state -> Reply in
            state.requests.append(request)
            return state.queued.isEmpty ? defaultReply : state.queued.removeFirst()
        }
        if reply.delay > 0 {
            try await Task.sleep(nanoseconds: UInt64(reply.delay * 1_000_000_000))
        }
        if let error = reply.error { throw error }
        return HTTPResponse(
            requestID: request.id,
            statusCode: reply.statusCode,
            headers: reply.headers,
            body: reply.body,
            url: reply.redirect?.url ?? request.url,
            redirection: reply.redirect?.redirection
        )
    }
}
