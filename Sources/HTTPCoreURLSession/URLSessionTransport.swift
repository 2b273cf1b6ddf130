import Foundation
@_spi(Transports) import HTTPCore
import HTTPCoreConcurrency
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The ``/HTTPCore/HTTPTransport`` that performs exchanges with a `URLSession`.
///
/// Use it through ``URLSessionClient``; use it directly only to wrap it in another
/// transport (a retrying or recording wrapper, say) before handing it to
/// `HTTPTransportClient`.
///
/// Translation and platform differences it handles:
/// - Method, headers (repeated ones too), body and timeout map onto `URLRequest`. The
///   timeout is set on the `timeoutInterval` property, rounded up to whole seconds, since
///   FoundationNetworking ignores the initializer's and truncates fractions (a 0.5 s timeout
///   would fire at once); the client enforces the exact deadline itself.
/// - A `GET` or `HEAD` with a body is refused before sending, as
///   ``/HTTPCore/HTTPError/Code/invalidRequest``: URLSession fails it on every platform.
/// - Redirects are followed and the response carries the final URL and its
///   ``/HTTPCore/HTTPResponse/redirection``. A 307 or 308 redirect
///   of a request with a body re-sends the body (FoundationNetworking would send it empty)
///   when the session is ``URLSessionClient/makeDefaultSession()``'s: the transport follows
///   those redirects itself, up to 10, drops `Authorization`, `Proxy-Authorization` and
///   `Cookie` when the redirect leaves the origin, and never follows one from https to http.
/// - URLSession joins repeated response headers into one value; `Set-Cookie` values are split
///   back into one field per cookie. It hands headers over as a dictionary, so their wire
///   order is lost: they come sorted by name, spelling and value, the same every time.
/// - The response's ``/HTTPCore/HTTPResponse/addedRequestHeaders`` are the session's
///   `httpAdditionalHeaders` and, on Linux, the fields FoundationNetworking and libcurl add.
/// - URLSession decodes gzip, deflate and brotli bodies (and zstd on Linux) but keeps the headers that
///   describe the encoded body; the response's `Content-Encoding` is removed and its
///   `Content-Length` set to the decoded size, so headers describe the body you get.
/// - A buffered response body over ``Limits/maximumBufferedBytes`` (64 MiB by default) fails
///   with ``/HTTPCore/HTTPError/Code/responseTooLarge``; see ``Limits`` for streamed bodies.
/// - `URLError.timedOut` is ``/HTTPCore/HTTPError/timeout``, any cancellation ``/HTTPCore/HTTPError/cancelled``
///   (also a cancel that arrives before the task was resumed), a non-HTTP response
///   ``/HTTPCore/HTTPError/invalidResponse``, a connection closed before the response was complete
///   `connection_lost` (on Linux too, where libcurl reports it as -1011 or -1), other
///   failures ``/HTTPCore/HTTPError/transport(_:message:underlyingError:)``
///   with a message built from the error code, never from `"\(error)"`, which contains the
///   full URL on Linux.
///
/// ## Streaming
///
/// ``perform(_:body:)`` streams both ways when the session is
/// ``URLSessionClient/makeDefaultSession()``'s (its delegate receives the chunks; per-task
/// delegates are never called on Linux). A session of your own, without that delegate, gets
/// the buffered default instead: the request body is collected, the response body arrives
/// whole. Streaming keeps the redirect, `Set-Cookie` and content-encoding rules above, except
/// that a decoded body's `Content-Length` is removed (its decoded size is not known yet), and
/// a 307 or 308 redirect of a body that can be read only once is returned, not followed.
///
/// Platform differences in streaming:
/// - Response backpressure: on Apple platforms a reader that falls 256 KiB behind suspends
///   the task until it catches up. FoundationNetworking cannot pause a transfer (its
///   `resume()` after `suspend()` restarts the request), so on Linux the body buffers up to
///   ``Limits/maximumUnreadBytes`` (32 MiB) for a slow reader and then fails with
///   ``/HTTPCore/HTTPError/Code/responseTooLarge``.
/// - Uploads: on Linux a request body of unknown length or over 1 MiB is read as libcurl
///   sends it, through a 1 MiB buffer, and sent chunked (`Transfer-Encoding: chunked`, any
///   `Content-Length` removed: libcurl would send both). libcurl reads it on the session's
///   work queue, so a body that is slow to produce slows the session's other transfers, and
///   the start of its new ones. The transport creates, resumes and cancels its tasks on a
///   dispatch queue of its own, never on a Swift concurrency thread, so that waiting never
///   holds the threads the body's producer needs. On
///   Apple platforms the body is still collected before sending (up to
///   `HTTPBody.maximumBufferedBytes`).
public struct URLSessionTransport: HTTPTransport {
    /// The session that performs the exchanges.
    package let session: URLSession
    /// How many response bytes an exchange accepts.
    package let limits: Limits
    /// Where tasks are created, resumed and cancelled: off the cooperative pool on Linux.
    let calls = SessionCalls()
    /// The header fields URLSession adds to a request without them, read once: a session
    /// keeps the configuration it was made with.
    let sessionAddedHeaders: HTTPHeaders
    /// The delegate of a session from ``URLSessionClient/makeDefaultSession()``, found once:
    /// URLSession lets go of it when the session becomes invalid.
    let sessionDelegate: SessionDelegate?

    /// Creates a transport over a session.
    ///
    /// - Parameters:
    ///   - session: The session that performs the exchanges; bodies stream only through a
    ///     session from ``URLSessionClient/makeDefaultSession()``, and are buffered otherwise.
    ///   - limits: How many response bytes an exchange accepts.
    public init(session: URLSession, limits: Limits = Limits()) {
        self.session = session
        self.limits = limits
        sessionAddedHeaders = Self.headersAdded(by: session)
        #if canImport(FoundationNetworking)
        sessionDelegate = (session as? DefaultURLSession)?.packageDelegate ?? session.delegate as? SessionDelegate
        #else
        sessionDelegate = session.delegate as? SessionDelegate
        #endif
    }

    /// The most 307/308 redirects with a body followed by the transport itself.
    static let maximumBodyRedirects = 10

    /// Performs one exchange with data tasks and returns the whole response, by the request's
    /// ``/HTTPCore/HTTPRequest/timeout``; honours Swift task cancellation.
    ///
    /// Cheaper than streaming for a caller that wants the whole response: on Linux a
    /// completion-handler task makes one hop to the delegate queue, not one per chunk.
    /// ``/HTTPCoreObservation/HTTPTransportClient`` uses it for buffered calls.
    ///
    /// - Parameter request: The request to perform, body included.
    /// - Returns: The response, its body whole.
    /// - Throws: An `HTTPError`: a timeout, a cancellation, a lost connection, a body over
    ///   ``Limits/maximumBufferedBytes``.
    public func perform(_ request: HTTPRequest) async throws -> HTTPResponse {
        var current = request
        var followed: HTTPRedirection?
        for _ in 0...Self.maximumBodyRedirects {
            var response = try await performTask(current)
            response.redirection = response.redirection?.following(followed) ?? followed
            guard !(current.body?.isEmpty ?? true), let next = redirect(of: current, by: response.head) else { return response }
            followed = Self.redirection(by: response.head, to: next)
            current = next
        }
        throw Self.tooManyRedirects.addingRequestHeaders(Self.addedHeaders(sessionAddedHeaders, to: current, hasBody: true))
    }

    /// What a task that was handed `added` (``addedHeaders(_:to:hasBody:)``) throws for
    /// `error`: the error with them (``/HTTPCore/HTTPError/addedRequestHeaders``), so a failed
    /// attempt's events show its request as it went out, as a response's do; a refusal of an
    /// invalidated session, which sent nothing, as it is.
    static func failure(_ error: any Error, sentWith added: HTTPHeaders) -> any Error {
        guard let error = error as? HTTPError, error != sessionInvalidated else { return error }
        return error.addingRequestHeaders(added)
    }


    static let tooManyRedirects = HTTPError.transport(.tooManyRedirects, message: "more than \(maximumBodyRedirects) redirects")

    /// What a send through an invalidated session of ``URLSessionClient/makeDefaultSession()``
    /// throws.
    static let sessionInvalidated = HTTPError.transport(
        .sessionInvalidated,
        message: "the URLSession was invalidated (finishTasksAndInvalidate() or invalidateAndCancel()) and starts no new task; "
            + "send through a new session from URLSessionClient.makeDefaultSession()"
    )

    /// Throws ``sessionInvalidated`` when the session is the package's and was invalidated;
    /// call before anything touches the session.
    func refuseIfInvalidated() throws {
        if sessionDelegate?.isInvalidated == true { throw Self.sessionInvalidated }
    }

    /// The request to send next when `response` is a 307 or 308 redirect that
    /// ``SessionDelegate`` stopped so the body can be sent again; `nil` to return `response`.
    func redirect(of request: HTTPRequest, by response: HTTPResponse.Head) -> HTTPRequest? {
        guard sessionDelegate != nil, response.statusCode == 307 || response.statusCode == 308,
            let location = response.headers["Location"], let next = URL(string: location, relativeTo: request.url)?.absoluteURL,
            !Self.isDowngrade(from: request.url, to: next)
        else { return nil }
        var request = request
        if !Self.isSameOrigin(request.url, next) {
            // Credentials go only to the origin they were meant for, as curl does.
            for name in ["Authorization", "Proxy-Authorization", "Cookie"] { request.headers.remove(name: name) }
        }
        request.url = next
        return request
    }

    private func performTask(_ request: HTTPRequest) async throws -> HTTPResponse {
        try refuseIfInvalidated()
        let urlRequest = try Self.urlRequest(for: request)
        let state = Locked(TaskState())
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<HTTPResponse, any Error>) in
                calls.run { [session, limits, sessionAddedHeaders, sessionDelegate] in
                    let maximumBytes = limits.maximumBufferedBytes
                    let complete: @Sendable (Data?, URLResponse?, (any Error)?) -> Void = { data, response, error in
                        let timedOut = state.withLock { state in
                            state.deadline?.disarm()
                            return state.timedOut
                        }
                        let hasBody = !(request.body?.isEmpty ?? true)
                        let added = Self.addedHeaders(sessionAddedHeaders, to: request, hasBody: hasBody)
                        continuation.resume(with: Result {
                            do {
                                if timedOut { throw HTTPError.timeout }
                                var answer = try Self.response(for: request, data: data, response: response, error: error, maximumBytes: maximumBytes)
                                if let task = state.withLock({ $0.task }) {
                                    answer.redirection = Self.redirection(of: task, sending: request, hasBody: hasBody, reached: answer.url, delegate: sessionDelegate)
                                }
                                answer.addedRequestHeaders = added
                                return answer
                            } catch {
                                throw Self.failure(error, sentWith: added)
                            }
                        })
                    }
                    let created: URLSessionDataTask?
                    if let delegate = sessionDelegate {
                        created = delegate.createTask(on: session) {
                            guard Self.needsDelegateDrivenTask(request) else { return session.dataTask(with: urlRequest, completionHandler: complete) }
                            let task = session.dataTask(with: urlRequest)
                            delegate.register(task, maximumBytes: maximumBytes, completion: complete)
                            return task
                        }
                    } else {
                        created = session.dataTask(with: urlRequest, completionHandler: complete)
                    }
                    guard let task = created else {
                        // Invalidated since the check above: refused all the same, never trapped.
                        complete(nil, nil, Self.sessionInvalidated)
                        return
                    }
                    let deadline = request.timeout.map { timeout in
                        TaskDeadline(after: timeout) { [calls] in
                            let task = state.withLock { state -> URLSessionDataTask? in
                                state.timedOut = true
                                return state.task
                            }
                            if let task { calls.run { TaskCancellation.cancel(task) } }
                        }
                    }
                    let wasCancelled = state.withLock { state -> Bool in
                        state.task = task
                        state.deadline = deadline
                        return state.isCancelled
                    }
                    // A cancel that arrived before this point still ends the task with -999.
                    if wasCancelled { TaskCancellation.cancel(task) }
                    task.resume()
                }
            }
        } onCancel: {
            let task = state.withLock { state -> URLSessionDataTask? in
                state.isCancelled = true
                return state.task
            }
            if let task { calls.run { TaskCancellation.cancel(task) } }
        }
    }

    private struct TaskState {
        var task: URLSessionDataTask?
        var isCancelled = false
        /// Ends the task at the request's deadline; disarmed when it completes.
        var deadline: TaskDeadline?
        /// Whether the deadline ended the task: it then fails with a timeout.
        var timedOut = false
    }
}

extension URLSessionTransport {
    /// Whether a request must run as a delegate-driven task so that ``SessionDelegate`` sees
    /// its redirects: on FoundationNetworking, only such tasks consult the delegate, and only a
    /// request with a body needs it (for 307/308). Completion-handler tasks are cheaper: one
    /// hop to the delegate queue instead of one per callback.
    static func needsDelegateDrivenTask(_ request: HTTPRequest) -> Bool {
        #if canImport(FoundationNetworking)
        !(request.body?.isEmpty ?? true)
        #else
        false
        #endif
    }

    /// The host and port of `url`, for error messages that never carry the full URL.
    static func target(_ url: URL?) -> String {
        [url?.host, url?.port.map(String.init)].compactMap { $0 }.joined(separator: ":")
    }

    /// The error for a buffered response body over `maximumBytes`, naming the setting.
    static func tooLarge(_ maximumBytes: Int, url: URL?) -> HTTPError {
        .transport(
            .responseTooLarge,
            message: "the response body is over \(maximumBytes) bytes, URLSessionTransport.Limits.maximumBufferedBytes (\(target(url))); "
                + "raise it, or read the body with the streaming send(_:body:receive:)"
        )
    }

    /// How `task`, sent as `request` (with a body when `hasBody`), reached `finalURL`: read
    /// from the request it sent last and the statuses the session delegate saw; `nil` when it
    /// followed no redirect.
    static func redirection(
        of task: URLSessionTask, sending request: HTTPRequest, hasBody: Bool, reached finalURL: URL, delegate: SessionDelegate?
    ) -> HTTPRedirection? {
        let statusCodes = delegate?.takeRedirectStatuses(of: task) ?? []
        guard finalURL != request.url || !statusCodes.isEmpty, let sent = task.currentRequest else { return nil }
        let method = sent.httpMethod.flatMap(HTTPMethod.init) ?? request.method
        let carriedBody = !(sent.httpBody?.isEmpty ?? true) || sent.httpBodyStream != nil
        return HTTPRedirection(method: method, resentBody: carriedBody && hasBody, statusCodes: statusCodes)
    }

    /// The redirection so far once the transport itself follows `response`, a 307 or 308,
    /// with `next`: the same method and body again.
    static func redirection(by response: HTTPResponse.Head, to next: HTTPRequest) -> HTTPRedirection {
        HTTPRedirection(method: next.method, resentBody: true, statusCodes: [response.statusCode]).following(response.redirection)
    }

    static func isSameOrigin(_ lhs: URL, _ rhs: URL) -> Bool {
        lhs.scheme?.lowercased() == rhs.scheme?.lowercased() && lhs.host?.lowercased() == rhs.host?.lowercased()
            && lhs.effectivePort == rhs.effectivePort
    }

    static func isDowngrade(from: URL, to: URL) -> Bool {
        from.scheme?.lowercased() == "https" && to.scheme?.lowercased() != "https"
    }

    static func urlRequest(for request: HTTPRequest) throws -> URLRequest {
        guard request.method != .connect else { throw HTTPError.noTunnels(request.url) }
        if let body = request.body, !body.isEmpty, request.method == .get || request.method == .head {
            throw HTTPError.transport(
                .invalidRequest,
                message: "URLSession cannot send a \(request.method) request with a body"
            )
        }
        var urlRequest = URLRequest(url: request.url)
        urlRequest.httpMethod = request.method.rawValue
        for field in request.headers {
            urlRequest.addValue(field.value, forHTTPHeaderField: field.name)
        }
        urlRequest.httpBody = request.body
        if let timeout = request.timeout {
            urlRequest.timeoutInterval = max(1, timeout.rounded(.up))
        }
        return urlRequest
    }

    static func response(
        for request: HTTPRequest, data: Data?, response: URLResponse?, error: (any Error)?, maximumBytes: Int
    ) throws -> HTTPResponse {
        if let error = error as? HTTPError { throw error }
        if let error {
            throw HTTPError(urlSessionError: error, url: request.url)
        }
        guard let http = response as? HTTPURLResponse else {
            throw HTTPError.invalidResponse
        }
        let body = data ?? Data()
        guard body.count <= maximumBytes else { throw tooLarge(maximumBytes, url: request.url) }
        return HTTPResponse(
            requestID: request.id,
            statusCode: http.statusCode,
            headers: headers(of: http, decodedBodySize: body.count),
            body: body,
            url: http.url ?? request.url
        )
    }

    /// The response's headers: `Set-Cookie` split again, and a body URLSession decoded
    /// described as decoded (its `Content-Length` set to `decodedBodySize`, or removed when
    /// that is not known yet).
    static func headers(of response: HTTPURLResponse, decodedBodySize: Int?) -> HTTPHeaders {
        var headers = HTTPHeaders()
        // allHeaderFields is a dictionary, whose order changes between instances: sort by
        // name, then spelling, then value, so the order is the same every time.
        let fields = response.allHeaderFields.compactMap { key, value -> (sortKey: String, name: String, value: String)? in
            guard let name = key as? String else { return nil }
            return (name.lowercased(), name, value as? String ?? "\(value)")
        }
        for (_, name, value) in fields.sorted(by: { ($0.sortKey, $0.name, $0.value) < ($1.sortKey, $1.name, $1.value) }) {
            if HTTPHeaders.matches(name, "Set-Cookie") {
                SetCookieSplitter.split(value).forEach { headers.add(name: name, value: $0) }
            } else {
                headers.add(name: name, value: value)
            }
        }
        // The encodings URLSession decodes: libcurl's include zstd, Apple's do not.
        #if canImport(FoundationNetworking)
        let decodedEncodings: Set<String> = ["gzip", "x-gzip", "deflate", "br", "zstd"]
        #else
        let decodedEncodings: Set<String> = ["gzip", "x-gzip", "deflate", "br"]
        #endif
        if let encoding = headers["Content-Encoding"]?.lowercased().trimmingCharacters(in: .whitespaces),
            decodedEncodings.contains(encoding)
        {
            headers.remove(name: "Content-Encoding")
            if let decodedBodySize, headers.contains("Content-Length") {
                headers.set(name: "Content-Length", value: String(decodedBodySize))
            } else {
                headers.remove(name: "Content-Length")
            }
        }
        return headers
    }
}

@_spi(Transports) extension URLSessionTransport: BufferedShortcut {
    /// The buffered path, for `HTTPTransportClient`: ``perform(_:)``, within the session's
    /// ``Limits/maximumBufferedBytes``, and failing as the client's own collect would for a
    /// body over the client's `maximumBytes` when that is lower (for ``URLSessionClient`` the
    /// two are the same, and the session's error names its limit).
    public func performBuffered(_ request: HTTPRequest, upTo maximumBytes: Int) async throws -> HTTPResponse {
        let response = try await perform(request)
        guard response.body.count <= maximumBytes else { throw HTTPBody.bufferedCallTooLarge(maximumBytes) }
        return response
    }
}
