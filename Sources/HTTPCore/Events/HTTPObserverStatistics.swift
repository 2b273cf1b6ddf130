/// Counters of one observer's deliveries, since it subscribed to an ``HTTPEventDispatcher``
/// (see ``HTTPEventSubscription/statistics``).
///
/// Every event emitted to the observer ends in exactly one of `delivered`, `dropped` or
/// `discarded`, or is still `pending`: `emitted == delivered + dropped + discarded + pending`.
public struct HTTPObserverStatistics: Sendable, Hashable, CustomStringConvertible {
    /// Events emitted while the observer was subscribed.
    public var emitted = 0
    /// Events handed to ``HTTPObserver/handle(_:)``.
    public var delivered = 0
    /// Events dropped because the observer's buffer was full (the oldest go first); the
    /// observer learns of them through ``HTTPObserver/handleMissedEvents(_:)``.
    public var dropped = 0
    /// Events still waiting when the subscription was cancelled, never delivered.
    public var discarded = 0
    /// Events waiting in the buffer, or taken from it and not yet handed over.
    public var pending = 0

    /// Creates zeroed statistics.
    public init() {}

    /// Whether every emitted event is accounted for exactly once.
    public var isBalanced: Bool {
        emitted == delivered + dropped + discarded + pending
    }

    /// A one-line summary.
    public var description: String {
        "emitted \(emitted), delivered \(delivered), dropped \(dropped), discarded \(discarded), pending \(pending)"
    }
}
