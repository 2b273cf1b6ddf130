import Foundation
import HTTPCore
import HTTPCoreObservation
import HTTPCoreConcurrency

/// How a ``DeliveryQueue`` buffers, batches and retries.
///
/// The defaults suit a log shipper: 10,000 items or 16 MiB waiting at most, batches of one
/// item sent at once, two concurrent sends, three retries with backoff from 0.5 s to 30 s.
public struct DeliveryConfiguration: Sendable {
    /// When a batch is ready to send: whichever limit is reached first.
    public struct Batching: Sendable, Hashable {
        /// The most items in one batch.
        public var maximumCount: Int
        /// The most bytes in one batch, as the buffer accounts them (the `byteCost` given
        /// to ``DeliveryQueue/enqueue(_:byteCost:)``). A single larger item is sent alone.
        public var maximumBytes: Int
        /// How long the oldest waiting item waits for a batch to fill, in seconds. 0 sends
        /// whatever is waiting at once.
        public var maximumDelay: TimeInterval

        /// Creates batching limits.
        ///
        /// - Parameters:
        ///   - maximumCount: The most items in one batch.
        ///   - maximumBytes: The most bytes in one batch, by the items' `byteCost`; no limit by
        ///     default.
        ///   - maximumDelay: How long the oldest waiting item waits for a batch to fill, in
        ///     seconds; 0, the default, sends at once.
        public init(maximumCount: Int, maximumBytes: Int = .max, maximumDelay: TimeInterval = 0) {
            self.maximumCount = maximumCount
            self.maximumBytes = maximumBytes
            self.maximumDelay = maximumDelay
        }

        /// One item per batch, sent as soon as it is accepted.
        package static let single = Batching(maximumCount: 1)
    }

    /// The most items waiting; the oldest are dropped (and counted) to make room.
    public var bufferLimit = 10_000
    /// The most bytes waiting, by the `byteCost` of each item; the oldest are dropped (and
    /// counted) to make room, and an item larger than the whole limit is dropped itself.
    public var bufferByteLimit = 16 * 1024 * 1024
    /// When a batch is ready to send.
    public var batching = Batching.single
    /// The most batches being sent at once. Use 1 where the destination needs batches in
    /// order.
    public var maximumConcurrentSends = 2
    /// Whether, while the sends under way take every slot, the next full batch is built beside
    /// them, so that it leaves as soon as one of them ends instead of being built only then.
    ///
    /// Turn it on when building a batch takes time next to sending it (redaction, encoding)
    /// and ``DeliverySender/makeBatch(_:)`` depends on its items alone: the batch is then
    /// built ahead of its send, possibly while another batch is being built, and now and then
    /// for items that are dropped or expire before it leaves, when it is discarded. Leave it
    /// off for a sender that carries anything from one batch to the next (Loki's keeps each
    /// stream's last timestamp, so its batches must be built in the order they are sent).
    /// One batch at a time is built ahead, at a lower priority than the sends; its items stay
    /// in the buffer, counted against its limits.
    public var buildsBatchesAhead = false
    /// Retries of a batch that got ``DeliveryOutcome/retryable(status:retryAfter:)``, before
    /// its items are counted as failed. Probes of an unreachable destination are not retries.
    public var maximumRetries = 3
    /// The wait before each retry, and between probes while the destination is unreachable.
    public var backoff = Backoff(initial: 0.5, maximum: 30, jitter: .equal)
    /// Items that waited longer than this many seconds, checked when their batch is formed
    /// and again before each retry, are dropped and counted as expired (a retried batch is
    /// rebuilt from the items left); `nil` keeps them however long they wait.
    public var maximumAge: TimeInterval?
    /// Receives the queue's reports (overflow, outage, refusals, items given up or arriving
    /// after shutdown), each once per occurrence. Called one report at a time, in order, from
    /// a send task or the enqueuing thread; keep it cheap. It may log through the same queue.
    ///
    /// By default each goes to `HTTPDiagnostics.handler` as a report of `DeliveryQueue`; the
    /// package's sinks name themselves and their items here, and route the reports to their
    /// own configuration's `diagnostics`.
    package var diagnostics: @Sendable (DeliveryDiagnostic) -> Void = { HTTPDiagnostics.report($0.diagnostic(source: "DeliveryQueue")) }

    /// The clock of ``maximumAge`` and batching delays, in nanoseconds of system uptime: tests
    /// move it to make items old without waiting.
    package var uptimeNanoseconds: @Sendable () -> UInt64 = DeliveryConfiguration.systemUptimeNanoseconds

    /// Creates a configuration with the defaults.
    public init() {}

    /// The package's monotonic clock (`MonotonicClock`), in nanoseconds.
    package static let systemUptimeNanoseconds: @Sendable () -> UInt64 = { MonotonicClock.nanoseconds() }
}
