import HTTPCore
import HTTPCoreObservation

/// An entry as a ``HARRecorder`` keeps it: the event of an exchange's end (or a retried
/// attempt's) with the message events of its attempt, made into a ``HARExchange`` only when
/// a document is built, with what the event kept alive when it was recorded; or, for an
/// event holding large bodies (or recorded past the recorder's byte budget), made already.
enum HARRecordedEntry: Sendable {
    case event(HTTPEvent, messages: [HTTPEvent], byteCount: Int)
    indirect case exchange(HARExchange)

    /// What the entry counts against ``HARRecorder/maximumDeferredBytes``: its event's
    /// `retainedByteCount` when recorded, for an entry not made yet; 0 for one made already.
    var deferredByteCount: Int {
        switch self {
        case .event(_, _, let byteCount): byteCount
        case .exchange: 0
        }
    }

    /// The entry's exchange: made now from the event and its messages (reading, and so
    /// redacting, their policy-exposed views, once per event), or the one made already.
    var exchange: HARExchange {
        switch self {
        case .event(let event, let messages, _): HARExchange(event: event, messageEvents: messages)
        case .exchange(let exchange): exchange
        }
    }
}
