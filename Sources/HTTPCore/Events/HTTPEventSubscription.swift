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

    /// Events that overflowed this observer's buffer and were never delivered to it:
    /// ``statistics``' `dropped`.
    public var droppedEventCount: Int { queue.statistics.dropped }

    /// This observer's counters since it subscribed: emitted, delivered, dropped, discarded
    /// at cancellation, and pending. Cheap: a copy taken under the queue's lock.
    public var statistics: HTTPObserverStatistics { queue.statistics }

    /// How many times delivery to the observer started: each start is one wake-up of a
    /// dispatcher thread, which hands over every event waiting. Under load it grows by at most
    /// one per 5 ms, however many exchanges end (see ``HTTPEventDispatcher``).
    package var deliveryRunCount: Int { queue.drainCount }

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
