import Foundation
import HTTPCore
import HTTPCoreConcurrency
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One streamed exchange on a delegate-driven data task: turns ``SessionDelegate``'s
/// callbacks into a response head and an `HTTPBody` written as chunks arrive.
///
/// Backpressure differs by platform, because FoundationNetworking cannot pause a transfer:
/// its `suspend()` stops reading, but `resume()` then restarts the request from the start
/// (a second response head and the whole body again), and it hands chunks to the delegate
/// queue without waiting for them to be handled. So:
/// - On Apple platforms the body buffers up to 256 KiB unread; past that the task is
///   suspended until the reader has taken half, so a slow reader slows the transfer.
/// - On Linux the transfer runs at the network's pace and the body buffers up to
///   ``URLSessionTransport/Limits/maximumUnreadBytes``; a reader that falls that far behind
///   gets ``/HTTPCore/HTTPError/Code/responseTooLarge``, never unbounded memory.
final class StreamedTask: Sendable {
    /// Waits for the response head and the body that follows it.
    typealias Head = CheckedContinuation<(HTTPURLResponse, HTTPBody), any Error>

    let request: HTTPRequest
    private let limits: URLSessionTransport.Limits
    private let machine: Locked<StreamedTaskStateMachine<Head>>
    /// Set once before the task is resumed; read by the callbacks.
    private let task = Locked<URLSessionDataTask?>(nil)
    /// Set when URLSession reported the task complete.
    private let isCompleted = Locked(false)
    /// The streamed request body, when there is one (Linux).
    let upload: RequestBodyPipe?
    /// Where the task is cancelled: the transport's, off the cooperative pool on Linux.
    private let calls: SessionCalls
    /// Ends the exchange at the request's deadline; disarmed once the task completes.
    private let deadline = Locked<TaskDeadline?>(nil)

    init(request: HTTPRequest, limits: URLSessionTransport.Limits, upload: RequestBodyPipe?, calls: SessionCalls) {
        self.request = request
        self.limits = limits
        self.upload = upload
        self.calls = calls
        machine = Locked(StreamedTaskStateMachine(maximumBytes: limits.maximumStreamedBytes))
    }

    // MARK: From the caller

    /// The data task, once started.
    var dataTask: URLSessionDataTask? { task.withLock { $0 } }

    /// Resumes `task` unless the caller was cancelled already; `head` gets the response head.
    /// Call on the transport's ``SessionCalls``.
    func start(_ task: URLSessionDataTask, head: Head) {
        self.task.withLock { $0 = task }
        switch machine.withLock({ $0.start(head) }) {
        case .resumeTask:
            if let timeout = request.timeout {
                let timer = TaskDeadline(after: timeout) { [weak self] in self?.deadlinePassed() }
                deadline.withLock { $0 = timer }
            }
            task.resume()
        case .failHead(let head, let error):
            upload?.abort()
            TaskCancellation.cancel(task)
            head.resume(throwing: error)
        }
    }

    /// The caller's task was cancelled while waiting for the head.
    func cancel() {
        switch machine.withLock({ $0.cancel() }) {
        case .none: break
        case .failHeadAndCancelTask(let head):
            cancelTask()
            head.resume(throwing: HTTPError.cancelled)
        }
    }

    /// The request's deadline passed: the head, or the body, fails with a timeout and the
    /// task is cancelled.
    private func deadlinePassed() {
        switch machine.withLock({ $0.deadlinePassed() }) {
        case .failHead(let head):
            cancelTask()
            head.resume(throwing: HTTPError.timeout)
        case .failBody(let writer):
            writer.finish(throwing: HTTPError.timeout)
            cancelUntilCompleted()
        case .none:
            break
        }
    }

    /// Cancels the task; the upload first, since FoundationNetworking's `cancel()` waits
    /// for its work queue, which may be blocked reading the upload. The task is read on the
    /// transport's queue, after the call that started it.
    private func cancelTask() {
        upload?.abort()
        calls.run { [task] in
            if let task = task.withLock({ $0 }) { TaskCancellation.cancel(task) }
        }
    }

    /// Cancels the task, and on FoundationNetworking cancels it again, at growing intervals up
    /// to 2 s, until URLSession reports it complete (for about a minute at most): a cancel there is sometimes lost, and the
    /// transfer then goes on without a data callback to cancel again from (seen under the
    /// thread sanitizer, and once in a plain run: the server was still writing a minute later).
    private func cancelUntilCompleted() {
        cancelTask()
        #if canImport(FoundationNetworking)
        Task { [self] in
            var wait: UInt64 = 50_000_000
            // At most about a minute, so a task URLSession never completes is not watched forever.
            for _ in 0..<36 where !isCompleted.withLock({ $0 }) {
                try? await Task.sleep(nanoseconds: wait)
                guard !isCompleted.withLock({ $0 }) else { return }
                cancelTask()
                wait = min(wait * 2, 2_000_000_000)
            }
        }
        #endif
    }

    // MARK: From the delegate

    func receive(_ response: URLResponse) {
        guard let http = response as? HTTPURLResponse else {
            // Only an HTTP response can be streamed: fail as the buffered path does.
            if case .failHead(let head) = machine.withLock({ $0.complete() }) {
                head.resume(throwing: HTTPError.invalidResponse)
            }
            cancelTask()
            return
        }
        let (body, writer) = HTTPBody.makeStream(length: bodyLength(of: http), bufferSize: Self.bufferSize(limits))
        switch machine.withLock({ $0.receiveHead(writer: writer) }) {
        case .deliver(let head):
            writer.onTermination { [self] in
                if machine.withLock({ $0.readerStopped() }) { cancelUntilCompleted() }
            }
            head.resume(returning: (http, body))
        case .cancelTask:
            cancelTask()
        case .none:
            break
        }
    }

    func receive(_ data: Data) {
        switch machine.withLock({ $0.receiveData(count: data.count) }) {
        case .yield(let writer):
            #if canImport(FoundationNetworking)
            // Never paused on Linux: draining only tells a full buffer that the reader caught up.
            let result = writer.yield(HTTPBody.ByteChunk(data)) { [self] in _ = machine.withLock { $0.drained() } }
            if let writer = machine.withLock({ $0.yielded(result) ? $0.fail() : nil }) {
                writer.finish(throwing: HTTPError.transport(
                    .responseTooLarge,
                    message: "the reader fell \(limits.maximumUnreadBytes) bytes behind a streamed response, "
                        + "URLSessionTransport.Limits.maximumUnreadBytes (\(URLSessionTransport.target(request.url))); "
                        + "FoundationNetworking cannot pause a transfer"
                ))
                cancelTask()
            }
            #else
            let result = writer.yield(HTTPBody.ByteChunk(data)) { [self] in resumeIfPaused() }
            // Under the lock, so a resume decided by the reader cannot overtake this suspend.
            machine.withLock { machine in
                if machine.yielded(result) { task.withLock { $0 }?.suspend() }
            }
            #endif
        case .failBodyAndCancelTask(let writer, _):
            writer.finish(throwing: HTTPError.transport(
                .responseTooLarge,
                message: "the response body is over \(limits.maximumStreamedBytes ?? 0) bytes, "
                    + "URLSessionTransport.Limits.maximumStreamedBytes (\(URLSessionTransport.target(request.url)))"
            ))
            cancelTask()
        case .cancelTask:
            cancelTask()
        case .none:
            break
        }
    }

    private func resumeIfPaused() {
        machine.withLock { machine in
            if machine.drained() { task.withLock { $0 }?.resume() }
        }
    }

    func complete(error: (any Error)?) {
        isCompleted.withLock { $0 = true }
        deadline.withLock { $0 }?.disarm()
        switch machine.withLock({ $0.complete() }) {
        case .failHead(let head):
            head.resume(throwing: failure(for: error) ?? HTTPError.invalidResponse)
        case .finishBody(let writer):
            if let failure = failure(for: error) { writer.finish(throwing: failure) } else { writer.finish() }
        case .none:
            break
        }
        upload?.abort()
    }

    /// What the exchange failed with: the upload's own failure first (URLSession only saw
    /// that reading the body stopped), else the mapped URLSession error.
    private func failure(for error: (any Error)?) -> (any Error)? {
        if let uploadFailure = upload?.failure {
            return uploadFailure is CancellationError ? HTTPError.cancelled : uploadFailure
        }
        return error.map { HTTPError(urlSessionError: $0, url: request.url) }
    }

    /// The body length the head announces: none for HEAD, 204 and 304; the Content-Length
    /// unless URLSession decodes the body (the length is the encoded one then).
    private func bodyLength(of response: HTTPURLResponse) -> HTTPBody.Length {
        if request.method == .head || response.statusCode == 204 || response.statusCode == 304 { return .known(0) }
        let headers = URLSessionTransport.headers(of: response, decodedBodySize: nil)
        guard let value = headers["Content-Length"], let length = Int64(value), length >= 0 else { return .unknown }
        return .known(length)
    }

    static func bufferSize(_ limits: URLSessionTransport.Limits) -> Int {
        #if canImport(FoundationNetworking)
        max(1, limits.maximumUnreadBytes)
        #else
        256 * 1024
        #endif
    }
}
