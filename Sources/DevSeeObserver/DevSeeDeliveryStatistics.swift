/// Counters of a ``DevSeeLogger``'s deliveries since it was created.
///
/// Every accepted log ends in exactly one of `delivered`, `dropped`, `expired`, `rejected` or
/// `failed`, or is still `pending`:
/// `accepted == delivered + dropped + expired + rejected + failed + pending`.
/// Logs that were never made, because the event dispatcher dropped their events before
/// ``DevSeeObserver`` saw them, were never accepted: they are counted in `missed`.
public struct DevSeeDeliveryStatistics: Sendable, Hashable, CustomStringConvertible {
    /// Logs accepted into the buffer.
    public var accepted = 0
    /// Logs the server stored.
    public var delivered = 0
    /// Logs dropped because the buffer was full (the oldest go first), or because they
    /// arrived after shutdown.
    public var dropped = 0
    /// Logs dropped because they waited longer than
    /// ``DevSeeLoggerConfiguration/maximumLogAge``.
    public var expired = 0
    /// Logs the server refused with a 4xx (other than 408 and 429); never retried.
    public var rejected = 0
    /// Logs given up after their retries, or at shutdown when the server did not take them.
    /// An outage alone never fails a log: it waits in the buffer.
    public var failed = 0
    /// Retries made after answers that were errors (one log can be retried several times).
    public var retried = 0
    /// Uploads made while the server was unreachable, to find out whether it is back. Not
    /// retries: they never count against ``DevSeeLoggerConfiguration/maxRetries``.
    public var probes = 0
    /// Logs waiting in the buffer or being uploaded.
    public var pending = 0
    /// Bytes the buffer accounts for its waiting logs.
    public var bufferedBytes = 0
    /// Logs never made because the event dispatcher dropped their terminal or retried events
    /// while the observer was behind, as counted by ``DevSeeObserver/statistics``; `nil` in a
    /// logger's own ``DevSeeLogger/statistics``, which cannot know what its observers missed.
    public var missed: Int?

    /// Creates zeroed statistics.
    public init() {}

    /// Whether every accepted log is accounted for exactly once.
    public var isBalanced: Bool {
        accepted == delivered + dropped + expired + rejected + failed + pending
    }

    /// A one-line summary.
    public var description: String {
        "accepted \(accepted), delivered \(delivered), dropped \(dropped), expired \(expired), rejected \(rejected), "
            + "failed \(failed), retried \(retried), probes \(probes), pending \(pending)" + (missed.map { ", missed \($0)" } ?? "")
    }
}
