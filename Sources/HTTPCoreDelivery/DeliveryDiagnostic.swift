/// Something a ``DeliveryQueue`` reports once, so that losses and outages are never silent
/// yet never flood the output.
public enum DeliveryDiagnostic: Sendable, Hashable, CustomStringConvertible {
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

    /// A one-line description that speaks of items and of "the destination".
    public var description: String {
        switch self {
        case .overflowStarted(let count, let bytes):
            "buffer full (\(count) items or \(bytes / 1024) KiB): dropping the oldest items until there is room"
        case .overflowEnded(let dropped):
            "buffer has room again: \(dropped) item\(dropped == 1 ? " was" : "s were") dropped"
        case .unreachable(let reason):
            "the destination is unreachable (\(reason)); items are kept in the buffer and retried"
        case .reachableAgain:
            "the destination is reachable again"
        case .rejected(let status, let reason):
            "the destination refused a batch with status \(status) (\(reason)); such batches are dropped"
        case .expired(let count):
            "\(count) item\(count == 1 ? "" : "s") waited longer than the maximum age and \(count == 1 ? "was" : "were") dropped"
        case .failed(let count, let reason):
            "\(count) item\(count == 1 ? " was" : "s were") given up (\(reason))"
        }
    }
}
