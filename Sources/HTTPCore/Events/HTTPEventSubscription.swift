/// A registration of an observer with an ``HTTPEventDispatcher``.
///
/// Keep it to stop the observer later; dropping it does not unsubscribe.
public final class HTTPEventSubscription: Cancellable {
    private let queue: ObserverQueue
    private let onCancel: @Sendable (ObserverQueue) -> Void

    init(queue: ObserverQueue, onCancel: @escaping @Sendable (ObserverQueue) -> Void) {
        self.queue = queue
        self.onCancel = onCancel
    }

    /// Events that overflowed this observer's buffer and were never delivered to it.
    public var droppedEventCount: Int { queue.droppedCount }

    /// Whether ``cancel()`` was called.
    public var isCancelled: Bool { queue.isCancelled }

    /// Stops delivery to the observer: events not yet delivered are discarded.
    ///
    /// Idempotent and thread-safe. A delivery already running finishes first.
    public func cancel() {
        queue.cancel()
        onCancel(queue)
    }
}
