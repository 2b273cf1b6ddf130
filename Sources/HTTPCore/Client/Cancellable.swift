/// Something in flight that can be cancelled.
///
/// `cancel()` is idempotent and thread-safe, and it takes effect even when it is called
/// before the work has started: the exchange then ends with ``HTTPError/cancelled``
/// without reaching the network.
public protocol Cancellable: Sendable {
    /// Requests cancellation. Calling it again, or after completion, does nothing.
    func cancel()
}

/// A ``Cancellable`` backed by a Swift `Task`.
struct TaskCancellable: Cancellable {
    let task: Task<Void, Never>

    func cancel() {
        task.cancel()
    }
}
