/// Counters of a ``DeliveryQueue``'s items since it was created.
///
/// Every accepted item ends in exactly one of `delivered`, `skipped`, `dropped`, `expired`,
/// `rejected` or `failed`, or is still `pending`:
/// `accepted == delivered + skipped + dropped + expired + rejected + failed + pending`.
public struct DeliveryStatistics: Sendable, Hashable, CustomStringConvertible {
    /// Items accepted by ``DeliveryQueue/enqueue(_:byteCost:)``.
    public var accepted = 0
    /// Items in batches the destination stored.
    public var delivered = 0
    /// Items the destination took and left out by a rule of its own
    /// (``DeliveryOutcome/skipped(count:)``): a console's event below its minimum level, known
    /// only once its notes were made. Neither delivered nor lost.
    public var skipped = 0
    /// Items dropped because the buffer was full (the oldest go first), or because they
    /// arrived after shutdown.
    public var dropped = 0
    /// Of ``dropped``, the items that arrived after ``DeliveryQueue/shutdown()``, each reported:
    /// the first at once, those that follow together when a window ends (1 s, then 2, 4 ... up
    /// to a minute, while they keep coming) or at the next flush.
    public var droppedAfterShutdown = 0
    /// Items dropped because they waited longer than ``DeliveryConfiguration/maximumAge``.
    public var expired = 0
    /// Items in batches the destination refused for good; never retried.
    public var rejected = 0
    /// Items given up after their retries, or at shutdown when the destination did not take
    /// them. An outage alone never fails an item: it waits in the buffer.
    public var failed = 0
    /// Retries of items after answers that were errors (a batch of 10 retried once adds 10).
    public var retried = 0
    /// Sends made while the destination was unreachable, to find out whether it answers
    /// again. Not retries: they never count against ``DeliveryConfiguration/maximumRetries``.
    package var probes = 0
    /// Items waiting in the buffer or being sent.
    public var pending = 0
    /// Bytes the buffer accounts for its waiting items.
    public var bufferedBytes = 0

    /// Creates zeroed statistics.
    package init() {}

    /// Whether every accepted item is accounted for exactly once.
    package var isBalanced: Bool {
        accepted == delivered + skipped + dropped + expired + rejected + failed + pending
    }

    /// A one-line summary; `dropped 3 (2 after shutdown)` when items arrived after shutdown.
    public var description: String {
        let late = droppedAfterShutdown > 0 ? " (\(droppedAfterShutdown) after shutdown)" : ""
        return "accepted \(accepted), delivered \(delivered), skipped \(skipped), dropped \(dropped)\(late), expired \(expired), rejected \(rejected), "
            + "failed \(failed), retried \(retried), probes \(probes), pending \(pending)"
    }

    /// These counters and `other`'s added up, for a sink that delivers through several
    /// queues.
    package func adding(_ other: DeliveryStatistics) -> DeliveryStatistics {
        var sum = self
        sum.accepted += other.accepted
        sum.delivered += other.delivered
        sum.skipped += other.skipped
        sum.dropped += other.dropped
        sum.droppedAfterShutdown += other.droppedAfterShutdown
        sum.expired += other.expired
        sum.rejected += other.rejected
        sum.failed += other.failed
        sum.retried += other.retried
        sum.probes += other.probes
        sum.pending += other.pending
        sum.bufferedBytes += other.bufferedBytes
        return sum
    }
}
