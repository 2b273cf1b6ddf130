import Foundation
import HTTPCore
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension URLSessionTransport {
    /// Request bodies of at most this many bytes, of known length, are collected and sent with
    /// a `Content-Length`, as a buffered request is: cheaper than a stream, and a redirect can
    /// send them again.
    static let collectedUploadBytes: Int64 = 1 << 20

    /// Performs one exchange, returning at the response head with the body still arriving;
    /// see "Streaming" in ``URLSessionTransport``.
    ///
    /// Honours Swift task cancellation until the head arrives; after it, the returned body's
    /// reader governs: when it stops, the task is cancelled. A failure after the head fails the
    /// body with an `HTTPError` (`connection_lost` for a dropped connection,
    /// `response_too_large` past ``Limits``).
    ///
    /// - Parameters:
    ///   - request: The request head to perform.
    ///   - body: The request body, or `nil` for none.
    /// - Returns: The response head and its body, still arriving.
    /// - Throws: An `HTTPError` for a failure before the response head.
    public func perform(_ request: HTTPRequest, body: HTTPBody?) async throws -> (HTTPResponse.Head, HTTPBody) {
        try refuseIfInvalidated()
        var current = request
        var body = body
        if let given = body {
            try Self.refuseBody(given, of: current)
            if let bytes = try await Self.collectedUpload(given) {
                current.body = bytes
                body = nil
            }
        }
        guard let delegate = sessionDelegate else {
            // Without the delegate no chunk can be seen before the task ends: buffer.
            if let body { current.body = try await HTTPBody.collectForBuffering(body) }
            return try await perform(current).splitBody
        }
        var followed: HTTPRedirection?
        for _ in 0...Self.maximumBodyRedirects {
            var (response, responseBody) = try await performStreamedTask(current, body: body, delegate: delegate)
            response.redirection = response.redirection?.following(followed) ?? followed
            let hasBody = body != nil || !(current.body?.isEmpty ?? true)
            // A one-pass body is spent: its 307 or 308 is the answer.
            guard hasBody, body?.iterationBehavior != .single, let next = redirect(of: current, by: response) else {
                return (response, responseBody)
            }
            responseBody.stopReading()
            followed = Self.redirection(by: response, to: next)
            current = next
        }
        throw Self.tooManyRedirects
    }

    private func performStreamedTask(
        _ request: HTTPRequest, body: HTTPBody?, delegate: SessionDelegate
    ) async throws -> (HTTPResponse.Head, HTTPBody) {
        var urlRequest = try Self.urlRequest(for: request)
        let upload = try await Self.attach(body, to: &urlRequest)
        let streamed = StreamedTask(request: request, limits: limits, upload: upload, calls: calls)
        let hasBody = body != nil || !(request.body?.isEmpty ?? true)
        let added = Self.addedHeaders(sessionAddedHeaders, to: request, hasBody: hasBody)
        let http: HTTPURLResponse
        let responseBody: HTTPBody
        do {
            (http, responseBody) = try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { (continuation: StreamedTask.Head) in
                    calls.run { [session, urlRequest] in
                        let created = delegate.createTask(on: session) {
                            let task = session.dataTask(with: urlRequest)
                            delegate.register(task, streamed: streamed)
                            return task
                        }
                        guard let task = created else {
                            // Invalidated since the check in `perform`: refused all the same, never trapped.
                            upload?.abort()
                            continuation.resume(throwing: Self.sessionInvalidated)
                            return
                        }
                        streamed.start(task, head: continuation)
                    }
                }
            } onCancel: {
                streamed.cancel()
            }
        } catch {
            throw Self.failure(error, sentWith: added)
        }
        var response = HTTPResponse.Head(
            requestID: request.id,
            statusCode: http.statusCode,
            headers: Self.headers(of: http, decodedBodySize: nil),
            url: http.url ?? request.url
        )
        if let task = streamed.dataTask {
            response.redirection = Self.redirection(of: task, sending: request, hasBody: hasBody, reached: response.url, delegate: delegate)
        }
        response.addedRequestHeaders = added
        return (response, responseBody)
    }

    /// Puts `body` on `urlRequest`: on Linux as a stream read while sending (the pipe it is read
    /// through is returned), on Apple platforms collected first.
    private static func attach(_ body: HTTPBody?, to urlRequest: inout URLRequest) async throws -> RequestBodyPipe? {
        guard let body else { return nil }
        #if canImport(FoundationNetworking)
        let pipe = RequestBodyPipe(body: body)
        urlRequest.httpBodyStream = HTTPBodyInputStream(pipe: pipe)
        // libcurl sends a stream chunked and would send a Content-Length beside it.
        urlRequest.setValue(nil, forHTTPHeaderField: "Content-Length")
        return pipe
        #else
        urlRequest.httpBody = try await HTTPBody.collectForBuffering(body)
        return nil
        #endif
    }

    /// Refuses what URLSession cannot send: a body on a GET or HEAD.
    static func refuseBody(_ body: HTTPBody, of request: HTTPRequest) throws {
        guard request.method == .get || request.method == .head, body.length != .known(0) else { return }
        throw HTTPError.transport(.invalidRequest, message: "URLSession cannot send a \(request.method) request with a body")
    }

    /// The bytes of a small body of known length, read now; `nil` for a body to stream.
    static func collectedUpload(_ body: HTTPBody) async throws -> Data? {
        guard case .known(let length) = body.length, length <= collectedUploadBytes else { return nil }
        do {
            return try await body.collect(upTo: Int(length))
        } catch HTTPError.Code.responseTooLarge {
            throw HTTPError.transport(.invalidRequest, message: "the request body is longer than its declared \(length) bytes")
        }
    }
}
