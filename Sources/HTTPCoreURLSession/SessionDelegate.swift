import Foundation
import HTTPCore
import HTTPCoreConcurrency
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The delegate of ``URLSessionClient/makeDefaultSession()``'s sessions: collects the
/// response and body of buffered tasks created without a completion handler, streams those
/// of ``StreamedTask``s, and stops 307 and 308 redirects of requests with a body.
///
/// FoundationNetworking consults a session delegate about redirects only for tasks created
/// without a completion handler, and re-sends a redirected body empty even when the delegate
/// supplies it again; so these redirects end the task with the 3xx response and
/// ``URLSessionTransport`` follows them itself with a new task carrying the body. Per-task
/// delegates are never called on Linux (swift-corelibs-foundation #5187), hence one session
/// delegate that routes callbacks by task identifier.
final class SessionDelegate: NSObject, URLSessionDataDelegate, URLSessionWebSocketDelegate, Sendable {
    typealias Completion = @Sendable (Data?, URLResponse?, (any Error)?) -> Void

    private struct BufferedExchange {
        var body = Data()
        var response: URLResponse?
        let maximumBytes: Int
        let completion: Completion
    }

    private enum Exchange {
        case buffered(BufferedExchange)
        case streamed(StreamedTask)
    }

    private let exchanges = Locked<[Int: Exchange]>([:])
    /// The redirect statuses each task followed so far, by task identifier, for the tasks
    /// that asked about their redirects.
    private let redirectStatuses = Locked<[Int: [Int]]>([:])
    /// What to call when a WebSocket task's handshake is answered, by task identifier.
    let webSocketOpenings = Locked<[Int: @Sendable () -> Void]>([:])
    /// Whether the session may still create tasks.
    private let invalidation = Locked(SessionInvalidation())

    /// Whether the session was asked to invalidate, or became invalid: it creates no task.
    var isInvalidated: Bool { invalidation.withLock { $0.isInvalidated } }

    /// Records that the session was asked to invalidate; the request to pass on to URLSession
    /// now, or `nil` when it waits for the tasks being created (see ``SessionInvalidation``).
    func requestInvalidation(_ request: SessionInvalidation.Request) -> SessionInvalidation.Request? {
        invalidation.withLock { $0.requestInvalidation(request) }
    }

    /// The task `create` makes on `session`, or `nil`, without calling it, when the session
    /// was invalidated: FoundationNetworking would trap. An invalidation asked meanwhile
    /// reaches URLSession once the task exists.
    func createTask(on session: URLSession, _ create: () -> URLSessionDataTask) -> URLSessionDataTask? {
        guard invalidation.withLock({ $0.beginCreating() }) else { return nil }
        let task = create()
        if let deferred = invalidation.withLock({ $0.endCreating() }) {
            #if canImport(FoundationNetworking)
            (session as? DefaultURLSession)?.passOn(deferred)
            #endif
        }
        return task
    }

    /// The redirect statuses `task` followed, taken out of the record.
    func takeRedirectStatuses(of task: URLSessionTask) -> [Int] {
        redirectStatuses.withLock { $0.removeValue(forKey: task.taskIdentifier) } ?? []
    }

    /// Registers a buffered task created without a completion handler; call before `resume()`.
    /// Past `maximumBytes` of body the task is cancelled and `completion` gets
    /// `HTTPError.Code.responseTooLarge`.
    func register(_ task: URLSessionTask, maximumBytes: Int, completion: @escaping Completion) {
        exchanges.withLock { $0[task.taskIdentifier] = .buffered(BufferedExchange(maximumBytes: maximumBytes, completion: completion)) }
    }

    /// Registers a streamed task; call before `resume()`.
    func register(_ task: URLSessionTask, streamed: StreamedTask) {
        exchanges.withLock { $0[task.taskIdentifier] = .streamed(streamed) }
    }

    func urlSession(
        _ session: URLSession,
        dataTask: URLSessionDataTask,
        didReceive response: URLResponse,
        completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
    ) {
        let streamed = exchanges.withLock { exchanges -> StreamedTask? in
            switch exchanges[dataTask.taskIdentifier] {
            case .buffered(var exchange):
                exchange.response = response
                exchanges[dataTask.taskIdentifier] = .buffered(exchange)
                return nil
            case .streamed(let streamed): return streamed
            case nil: return nil
            }
        }
        streamed?.receive(response)
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        enum Next {
            case none
            case stream(StreamedTask)
            case refuse(BufferedExchange)
        }
        let next = exchanges.withLock { exchanges -> Next in
            switch exchanges[dataTask.taskIdentifier] {
            case .buffered(var exchange):
                guard data.count <= exchange.maximumBytes - exchange.body.count else {
                    exchanges.removeValue(forKey: dataTask.taskIdentifier)
                    return .refuse(exchange)
                }
                // Drop the entry's copy first, so the append does not copy the body.
                exchanges[dataTask.taskIdentifier] = nil
                exchange.body.append(data)
                exchanges[dataTask.taskIdentifier] = .buffered(exchange)
                return .none
            case .streamed(let streamed): return .stream(streamed)
            case nil: return .none
            }
        }
        switch next {
        case .none: break
        case .stream(let streamed): streamed.receive(data)
        case .refuse(let exchange):
            TaskCancellation.cancel(dataTask)
            exchange.completion(nil, nil, URLSessionTransport.tooLarge(exchange.maximumBytes, url: dataTask.originalRequest?.url))
        }
    }

    func urlSession(_ session: URLSession, didBecomeInvalidWithError error: (any Error)?) {
        invalidation.withLock { $0.sessionBecameInvalid() }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        switch exchanges.withLock({ $0.removeValue(forKey: task.taskIdentifier) }) {
        case .buffered(let exchange): exchange.completion(exchange.body, task.response ?? exchange.response, error)
        case .streamed(let streamed): streamed.complete(error: error)
        case nil: break
        }
        _ = takeRedirectStatuses(of: task)
        _ = webSocketOpenings.withLock { $0.removeValue(forKey: task.taskIdentifier) }
    }

    func urlSession(
        _ session: URLSession,
        task: URLSessionTask,
        willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest,
        completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        let keepsBody = response.statusCode == 307 || response.statusCode == 308
        let original = task.originalRequest
        let hasBody = !(original?.httpBody?.isEmpty ?? true) || original?.httpBodyStream != nil
        let follows = !(keepsBody && hasBody)
        if follows { redirectStatuses.withLock { $0[task.taskIdentifier, default: []].append(response.statusCode) } }
        TaskCancellation.decideRedirect(of: task) { completionHandler(follows ? request : nil) }
    }
}
