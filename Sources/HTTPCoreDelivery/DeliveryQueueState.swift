import Foundation

/// Everything a ``DeliveryQueue``'s workers share, guarded by one lock. Not generic, so the
/// code that runs on every enqueue is compiled concrete in this module.
struct DeliveryQueueState {
    var buffer: DeliveryBuffer
    var statistics = DeliveryStatistics()
    var nextSequence: UInt64 = 0
    var inFlight: Set<UInt64> = []
    var workers: [UInt64: Task<Void, Never>] = [:]
    var nextWorkerID: UInt64 = 0
    /// Starts a worker when the oldest item of a batch that is not full has waited long enough.
    var batchTimer: Task<Void, Never>?
    /// A worker waiting out a backoff, and the timer that will wake it.
    struct Sleeper {
        let continuation: CheckedContinuation<Void, Never>
        let timer: Task<Void, Never>?
    }

    /// Workers waiting out a backoff, woken early by shutdown or ``DeliveryQueue/retryNow()``.
    var sleepers: [UInt64: Sleeper] = [:]
    var nextSleeperID: UInt64 = 0
    /// Counts ``DeliveryQueue/retryNow()`` calls, so a worker whose send was under way
    /// during one does not start a backoff after it.
    var retryGeneration: UInt64 = 0
    var isOffline = false
    var hasProber = false
    var consecutiveFailures = 0
    var isReportedUnreachable = false
    var reportedRejections: Set<Int> = []
    var hasReportedExpiry = false
    /// Items dropped since the buffer overflowed, while it has not had room again.
    var dropsInOverflow: Int?
    var flushWaiters: [(target: UInt64, continuation: CheckedContinuation<Void, Never>)] = []
    /// Set when shutdown starts: no more waiting between retries or for a batch to fill.
    var isStopping = false
    var isShutDown = false

    /// Counts items dropped to make room; the first drop of an overflow returns the
    /// report of it.
    mutating func recordDrops(_ count: Int) -> DeliveryDiagnostic? {
        guard count > 0 else { return nil }
        statistics.dropped += count
        defer { dropsInOverflow = (dropsInOverflow ?? 0) + count }
        guard dropsInOverflow == nil else { return nil }
        return .overflowStarted(countLimit: buffer.countLimit, byteLimit: buffer.byteLimit)
    }

    /// Once an overflow is over (the buffer at most half full), the report counting its
    /// drops. Half, not one free slot, so a sustained overflow reports once, not per item.
    mutating func endOverflowIfRelieved() -> DeliveryDiagnostic? {
        guard let dropped = dropsInOverflow,
            buffer.count <= buffer.countLimit / 2, buffer.byteCount <= buffer.byteLimit / 2
        else { return nil }
        dropsInOverflow = nil
        return .overflowEnded(dropped: dropped)
    }

    /// Drops the items at the front that waited longer than `maximumAge` nanoseconds.
    mutating func dropExpired(maximumAge: UInt64?, now: UInt64) -> DeliveryDiagnostic? {
        guard let maximumAge else { return nil }
        var expired = 0
        while let first = buffer.first, first.hasOutlived(maximumAge, now: now) {
            _ = buffer.popFirst()
            expired += 1
        }
        return countExpired(expired)
    }

    /// Counts `count` items as expired; the first expiry is reported.
    mutating func countExpired(_ count: Int) -> DeliveryDiagnostic? {
        statistics.expired += count
        guard count > 0, !hasReportedExpiry else { return nil }
        hasReportedExpiry = true
        return .expired(count: count)
    }

    /// Removes the sleepers to wake them early.
    mutating func takeSleepers() -> [Sleeper] {
        defer { sleepers = [:] }
        return Array(sleepers.values)
    }

    func isSettled(through target: UInt64) -> Bool {
        (buffer.firstSequence.map { $0 > target } ?? true) && inFlight.allSatisfy { $0 > target }
    }

    mutating func readyFlushWaiters() -> [CheckedContinuation<Void, Never>] {
        guard !flushWaiters.isEmpty else { return [] }
        let waiters = flushWaiters
        flushWaiters = waiters.filter { !isSettled(through: $0.target) }
        return waiters.filter { isSettled(through: $0.target) }.map(\.continuation)
    }
}
