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
    /// Throws only ``HTTPError``, declared untyped so that the same `catch` reads the same
    /// wherever the call runs (a `Task`, a task group, a closure API):
    /// `catch HTTPError.timeout`, `catch HTTPError.Code.connectionLost`,
    /// `catch let error as HTTPError where error.code == .cannotConnect`. A 4xx or 5xx answer is
    /// returned, not thrown. Cancelling the calling task cancels the exchange, which then
    /// throws ``HTTPError/cancelled``.
    func send(_ request: HTTPRequest) async throws -> HTTPResponse
}

extension HTTPClient {
    /// Starts one exchange on a task and calls `completion` exactly once, on `queue`.
    ///
    /// The returned ``Cancellable`` cancels the exchange, even before it has started; the
    /// completion then receives ``HTTPError/cancelled``. ``send(_:)`` throws only
    /// ``HTTPError``; should a conforming type throw anything else, the completion receives it
    /// as ``HTTPError/Code/other``, with a message that names its type, never its stored values.
    @discardableResult
    public func execute(
        _ request: HTTPRequest,
        on queue: DispatchQueue,
        completion: @escaping @Sendable (Result<HTTPResponse, HTTPError>) -> Void
    ) -> any Cancellable {
        let task = Task {
            let result: Result<HTTPResponse, HTTPError>
            do {
                result = .success(try await send(request))
            } catch let error as HTTPError {
                result = .failure(error)
            } catch {
                result = .failure(.transport(.other, message: HTTPError.safeDescription(of: error)))
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
