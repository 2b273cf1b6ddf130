import Foundation
import HTTPCore
import HTTPCoreObservation
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
/// Delays use `Task.sleep`, so they honour cancellation like a real transport. It answers with
/// whole bodies, bounded by a timer: a reply slower than the request's `timeout` ends at the
/// timeout with ``/HTTPCore/HTTPError/timeout``, as every transport's must.
public final class MockTransport: HTTPBufferedTransport {
    /// One scripted answer.
    public struct Reply: Sendable {
        /// The status code of the response; ignored when ``error`` is set.
        package var statusCode: Int
        /// The response headers.
        package var headers: HTTPHeaders
        /// The response body.
        package var body: Data
        /// The error to throw instead of answering.
        package var error: HTTPError?
        /// How long to wait before answering, in seconds.
        package var delay: TimeInterval
        /// Where redirects led, when the reply stands for a transport that followed some:
        /// the final URL and how it was reached.
        package var redirect: (url: URL, redirection: HTTPRedirection)? = nil

        /// A response with this status, body and headers, after an optional delay.
        ///
        /// - Parameters:
        ///   - statusCode: The response's status.
        ///   - body: The response body; empty by default.
        ///   - headers: The response headers; none by default.
        ///   - delay: How long to wait before answering, in seconds.
        /// - Returns: The reply.
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
        ///
        /// - Parameters:
        ///   - url: The final URL, the response's `url`.
        ///   - redirection: How the transport got there.
        ///   - statusCode: The final response's status; 200 by default.
        ///   - body: The final response's body; empty by default.
        /// - Returns: The reply.
        public static func redirected(
            to url: URL, _ redirection: HTTPRedirection, finally statusCode: Int = 200, body: Data = Data()
        ) -> Reply {
            Reply(statusCode: statusCode, headers: [:], body: body, error: nil, delay: 0, redirect: (url, redirection))
        }

        /// A failure with this error, after an optional delay.
        ///
        /// - Parameters:
        ///   - error: The error the exchange throws.
        ///   - delay: How long to wait before failing, in seconds.
        /// - Returns: The reply.
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
    /// Creates a transport.
    ///
    /// - Parameter defaultReply: The answer when no reply is queued; a 200 by default.
    public init(default defaultReply: Reply = .status(200)) {
        self.defaultReply = defaultReply
    }

    /// Queues replies, used in order before the default one.
    ///
    /// - Parameter replies: The answers of the next exchanges, in order.
    public func enqueue(_ replies: Reply...) {
        state.withLock { $0.queued.append(contentsOf: replies) }
    }

    /// Every request performed so far, in order.
    public var requests: [HTTPRequest] {
        state.withLock { $0.requests }
    }

    /// Collects `body` into the request, then answers as ``perform(_:)`` does, by the
    /// request's `timeout`.
    ///
    /// - Parameters:
    ///   - request: The request to answer.
    ///   - body: The request body, collected into `request.body` first; `nil` for none.
    /// - Returns: The reply's response head and its body, in memory.
    /// - Throws: The reply's error, ``/HTTPCore/HTTPError/timeout`` past the request's
    ///   timeout, or `CancellationError` when cancelled during its delay.
    public func perform(_ request: HTTPRequest, body: HTTPBody?) async throws -> (HTTPResponse.Head, HTTPBody) {
        try await performBuffering(request, body: body)
    }

    /// Records the request and answers with the next reply, its body whole.
    ///
    /// - Parameter request: The request to answer.
    /// - Returns: The reply's response, for `request`.
    /// - Throws: The reply's error, or `CancellationError` when cancelled during its delay.
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
