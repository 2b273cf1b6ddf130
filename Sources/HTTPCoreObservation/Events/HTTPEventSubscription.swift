/// A registration of an observer with an ``HTTPEventDispatcher``.
///
/// Keep it to stop the observer later; dropping it does not unsubscribe.
public final class HTTPEventSubscription: Cancellable {
    private let subscriber: Subscriber
    private let onCancel: @Sendable (Subscriber) -> Void

    init(_ subscriber: Subscriber, onCancel: @escaping @Sendable (Subscriber) -> Void) {
        self.subscriber = subscriber
        self.onCancel = onCancel
    }

    /// Whether ``cancel()`` was called.
    public var isCancelled: Bool { subscriber.isCancelled }

    /// Stops handing events to the observer. Events emitted after it returns never reach the
    /// observer; an emission already under way on another task may still hand it its event.
    ///
    /// Idempotent and thread-safe; an observer may cancel its own subscription from
    /// ``HTTPObserver/handle(_:)``.
    public func cancel() {
        subscriber.cancel()
        onCancel(subscriber)
    }
}
