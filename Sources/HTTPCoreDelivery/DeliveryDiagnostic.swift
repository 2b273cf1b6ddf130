import HTTPCore
import HTTPCoreObservation

/// Something a ``DeliveryQueue`` reports once, so that losses and outages are never silent
/// yet never flood the output.
package enum DeliveryDiagnostic: Sendable, Hashable, CustomStringConvertible {
    /// The buffer is full and the oldest items are being dropped; reported when an overflow
    /// starts.
    case overflowStarted(countLimit: Int, byteLimit: Int)
    /// The buffer is at most half full again after an overflow that dropped `dropped` items.
    case overflowEnded(dropped: Int)
    /// The destination stopped answering; reported once per outage.
    case unreachable(reason: String)
    /// The destination answers again after an outage.
    case reachableAgain
    /// The destination refused a batch for good; reported once per status.
    case rejected(status: Int, reason: String)
    /// Items waited longer than the maximum age and were dropped; reported the first time.
    case expired(count: Int)
    /// Items were given up: their retries ran out (reported once per status), or the
    /// destination did not take them at shutdown (reported for each send that found it
    /// unreachable, so the counts of these reports add up to what shutdown gave up).
    case failed(count: Int, reason: String)
    /// `count` items were enqueued after ``DeliveryQueue/shutdown()`` and dropped, `total`
    /// since shutdown (``DeliveryStatistics/droppedAfterShutdown``).
    ///
    /// The first such item is reported at once, alone. Those that follow within a second
    /// are reported together when the second ends, then those of the next 2 s, 4 s and so on
    /// up to a minute, for as long as items keep arriving; a ``DeliveryQueue/flush()``
    /// reports those not yet reported at once. A window that ends with none to report ends
    /// the series, and the next late item is reported at once again. So a flood of late items
    /// makes seven reports in its first minute and one a minute after that, and their counts
    /// add up to `total`.
    case droppedAfterShutdown(count: Int, total: Int)

    /// A one-line description that speaks of items and of "the destination".
    package var description: String {
        description(items: "item")
    }

    /// A one-line description that calls the items `items` (a singular noun such as `log`
    /// or `line`, made plural with an `s`) and the receiver "the destination".
    package func description(items noun: String) -> String {
        func counted(_ count: Int) -> String { "\(count) \(noun)\(count == 1 ? "" : "s")" }
        func was(_ count: Int) -> String { count == 1 ? "was" : "were" }
        switch self {
        case .overflowStarted(let count, let bytes):
            return "buffer full (\(counted(count)) or \(bytes / 1024) KiB): dropping the oldest \(noun)s until there is room"
        case .overflowEnded(let dropped):
            return "buffer has room again: \(counted(dropped)) \(was(dropped)) dropped"
        case .unreachable(let reason):
            return "the destination is unreachable (\(reason)); \(noun)s are kept in the buffer and retried"
        case .reachableAgain:
            return "the destination is reachable again"
        case .rejected(let status, let reason):
            return "the destination refused a batch with status \(status) (\(reason)); such batches are dropped"
        case .expired(let count):
            return "\(counted(count)) waited longer than the maximum age and \(was(count)) dropped"
        case .failed(let count, let reason):
            return "\(counted(count)) \(was(count)) given up (\(reason))"
        case .droppedAfterShutdown(let count, let total) where count == total:
            return "\(counted(count)) arrived after shutdown and \(was(count)) dropped"
        case .droppedAfterShutdown(let count, let total):
            return "\(count) more \(noun)\(count == 1 ? "" : "s") arrived after shutdown and \(was(count)) dropped (\(total) since shutdown)"
        }
    }

    /// This report as an ``/HTTPCoreObservation/HTTPDiagnostic`` of `source`, its items called `items`
    /// (see ``description(items:)``).
    ///
    /// Losses are errors, with how many items were lost as `lost` in the metadata; an
    /// overflow that starts and an outage are warnings; a destination back is a notice.
    package func diagnostic(source: String, items noun: String = "item") -> HTTPDiagnostic {
        let (level, metadata): (HTTPDiagnostic.Level, [String: String]) = switch self {
        case .overflowStarted(let count, let bytes):
            (.warning, ["buffer_limit": String(count), "buffer_byte_limit": String(bytes)])
        case .overflowEnded(let dropped):
            (.error, ["lost": String(dropped)])
        case .unreachable(let reason):
            (.warning, ["reason": reason])
        case .reachableAgain:
            (.notice, [:])
        case .rejected(let status, let reason):
            (.error, ["status": String(status), "reason": reason])
        case .expired(let count):
            (.error, ["lost": String(count)])
        case .failed(let count, let reason):
            (.error, ["lost": String(count), "reason": reason])
        case .droppedAfterShutdown(let count, let total):
            (.error, ["lost": String(count), "lost_after_shutdown": String(total)])
        }
        return HTTPDiagnostic(source: source, level: level, message: description(items: noun), metadata: metadata)
    }
}
