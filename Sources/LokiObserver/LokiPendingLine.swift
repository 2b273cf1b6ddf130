import HTTPCore
import HTTPCoreObservation

/// A line waiting in a ``LokiLogger``'s buffer: made already (the logger's own lines), or
/// the event of an exchange, an attempt or a message, whose line is made when its batch is
/// built, on the logger's worker.
enum LokiPendingLine: Sendable {
    case line(LokiEntry)
    case event(HTTPEvent)

    /// What the item keeps alive while it waits, for the buffer's byte limit: an event's
    /// raw request and response (``/HTTPCoreObservation/HTTPEvent/queuedByteCount``: a stream's later
    /// messages share those of the first), or a made line's text.
    var byteCost: Int {
        switch self {
        case .line(let entry): entry.byteCost
        case .event(let event): event.queuedByteCount
        }
    }
}
