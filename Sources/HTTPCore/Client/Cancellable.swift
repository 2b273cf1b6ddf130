/// Something in flight that can be cancelled, such as an event subscription.
///
/// `cancel()` is idempotent and thread-safe.
public protocol Cancellable: Sendable {
    /// Requests cancellation. Calling it again, or after completion, does nothing.
    func cancel()
}
