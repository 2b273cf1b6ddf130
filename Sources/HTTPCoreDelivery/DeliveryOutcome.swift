import Foundation

/// How one attempt to send a batch ended, as its ``DeliverySender`` classifies the answer.
///
/// The outcome decides what the ``DeliveryQueue`` does next: count the batch, retry it after
/// a backoff, or go offline and probe until the destination answers again.
public enum DeliveryOutcome: Sendable, Hashable {
    /// The destination stored the batch.
    case delivered
    /// The destination took the batch and, by a rule of its own, left `count` of its items
    /// out (a console leaves out an event below its minimum level, which only its notes could
    /// tell): those are counted as ``DeliveryStatistics/skipped``, the others as delivered.
    /// Never retried; `count` is at most the batch's items.
    case skipped(count: Int)
    /// The destination refused the batch for good (typically a 4xx other than 408 and 429).
    /// Never retried: its items are counted as rejected.
    case rejected(status: Int, reason: String)
    /// The destination answered but could not take the batch now (typically a 5xx, 408 or
    /// 429; `status` 0 for an answer that is not HTTP). Retried up to ``DeliveryConfiguration/maximumRetries`` times, after `retryAfter`
    /// seconds when the destination said so (capped by the backoff maximum), else after the
    /// backoff.
    case retryable(status: Int, retryAfter: TimeInterval?)
    /// No answer: refused, reset, timed out. If the destination answered another send while
    /// this one waited, it is reachable, and the missing answer counts as an error of this
    /// batch (retried up to ``DeliveryConfiguration/maximumRetries`` times, like a 5xx). Else
    /// the queue goes offline: the batch goes back to
    /// the front of the buffer, and one probe at a time, with the oldest batch at growing
    /// intervals, finds out when the destination answers again, while the buffer keeps the
    /// newest items. Never counted against ``DeliveryConfiguration/maximumRetries``: during
    /// an outage items leave the buffer only by overflow or by
    /// ``DeliveryConfiguration/maximumAge``, both counted and reported.
    case unreachable(reason: String)
}
