import Foundation
import HTTPCore
import HTTPCoreConcurrency
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The delegate of ``URLSessionClient/makeDefaultSession()``'s sessions: collects each
/// task's response and body, and stops 307 and 308 redirects of requests with a body.
///
/// FoundationNetworking consults a session delegate about redirects only for tasks created
/// without a completion handler, and re-sends a redirected body empty even when the delegate
/// supplies it again; so these redirects end the task with the 3xx response and
/// ``URLSessionTransport`` follows them itself with a new task carrying the body.
final class SessionDelegate: NSObject, URLSessionDataDelegate, Sendable {
    typealias Completion = @Sendable (Data?, URLResponse?, (any Error)?) -> Void

    private struct Exchange {
        var body = Data()
        var response: URLResponse?
        let completion: Completion
    }

    private let exchanges = Locked<[Int: Exchange]>([:])

    /// Registers a task created without a completion handler; call before `resume()`.
    func register(_ task: URLSessionTask, completion: @escaping Completion) {
        exchanges.withLock { $0[task.taskIdentifier] = Exchange(completion: completion) }
    }

    func urlSession(
        _ session: URLSession,
        dataTask: URLSessionDataTask,
        didReceive response: URLResponse,
        completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
    ) {
        exchanges.withLock { $0[dataTask.taskIdentifier]?.response = response }
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        exchanges.withLock { $0[dataTask.taskIdentifier]?.body.append(data) }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        guard let exchange = exchanges.withLock({ $0.removeValue(forKey: task.taskIdentifier) }) else { return }
        exchange.completion(exchange.body, task.response ?? exchange.response, error)
    }

    func urlSession(
        _ session: URLSession,
        task: URLSessionTask,
        willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest,
        completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        let keepsBody = response.statusCode == 307 || response.statusCode == 308
        let hasBody = !(task.originalRequest?.httpBody?.isEmpty ?? true)
        completionHandler(keepsBody && hasBody ? nil : request)
    }
}
