import Dispatch

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
/// Implement it by wrapping an ``HTTPTransport`` in ``HTTPTransportClient`` rather than
/// conforming directly: the wrapper provides ids, timing, timeouts, cancellation, the policy
/// and every lifecycle event.
public protocol HTTPClient: Sendable {
    /// Performs one exchange and returns the complete response.
    ///
    /// Throws only ``HTTPError``. A 4xx or 5xx answer is returned, not thrown. Cancelling the
    /// calling task cancels the exchange, which then throws ``HTTPError/cancelled``.
    func send(_ request: HTTPRequest) async throws(HTTPError) -> HTTPResponse

    /// Starts one exchange and calls `completion` exactly once, on `queue`.
    ///
    /// The returned ``Cancellable`` cancels the exchange, even before it has started; the
    /// completion then receives ``HTTPError/cancelled``.
    @discardableResult
    func execute(
        _ request: HTTPRequest,
        on queue: DispatchQueue,
        completion: @escaping @Sendable (Result<HTTPResponse, HTTPError>) -> Void
    ) -> any Cancellable
}

extension HTTPClient {
    /// Starts one exchange on a task and delivers its result on `queue`.
    @discardableResult
    public func execute(
        _ request: HTTPRequest,
        on queue: DispatchQueue,
        completion: @escaping @Sendable (Result<HTTPResponse, HTTPError>) -> Void
    ) -> any Cancellable {
        let task = Task {
            let result: Result<HTTPResponse, HTTPError>
            do throws(HTTPError) {
                result = .success(try await send(request))
            } catch {
                result = .failure(error)
            }
            queue.async { completion(result) }
        }
        return TaskCancellable(task: task)
    }

    /// Starts one exchange and calls `completion` exactly once, on a global concurrent
    /// dispatch queue (`DispatchQueue.global()`).
    ///
    /// Use ``execute(_:on:completion:)`` to choose the queue, for example `.main` in an app.
    @discardableResult
    public func execute(
        _ request: HTTPRequest,
        completion: @escaping @Sendable (Result<HTTPResponse, HTTPError>) -> Void
    ) -> any Cancellable {
        execute(request, on: .global(), completion: completion)
    }
}
