import HTTPCore
import HTTPCoreObservation

/// An entry as a ``HARRecorder`` keeps it: the event of an exchange's end (or a retried
/// attempt's) with the message events of its attempt, made into a ``HARExchange`` only when
/// a document is built, with what the event kept alive when it was recorded; or, for an
/// event holding large bodies (or recorded past the recorder's byte budget), made already.
enum HARRecordedEntry: Sendable {
    /// An entry made only when a document is built; `notes`, its attachments' notes, made
    /// once for every document (`nil` without attachments, which have none to make).
    case event(HTTPEvent, messages: [HTTPEvent], byteCount: Int, notes: HAREntryNotes?)
    indirect case exchange(HARExchange)

    /// The entry of `event`, made when a document is built.
    ///
    /// - Parameters:
    ///   - event: A terminal or retried event.
    ///   - messages: The message events of its attempt.
    ///   - byteCount: What they keep alive.
    static func deferred(_ event: HTTPEvent, messages: [HTTPEvent], byteCount: Int) -> HARRecordedEntry {
        .event(event, messages: messages, byteCount: byteCount, notes: event.attachments.isEmpty ? nil : HAREntryNotes())
    }

    /// What the entry counts against ``HARRecorder/maximumDeferredBytes``: its event's
    /// `retainedByteCount` when recorded, for an entry not made yet; 0 for one made already.
    var deferredByteCount: Int {
        switch self {
        case .event(_, _, let byteCount, _): byteCount
        case .exchange: 0
        }
    }

    /// The entry's exchange: made now from the event and its messages (reading, and so
    /// redacting, their policy-exposed views, once per event) with the notes made for the
    /// first document, or the one made already.
    var exchange: HARExchange {
        switch self {
        case .event(let event, let messages, _, let notes):
            HARExchange(event: event, messageEvents: messages, notes: notes?.notes(of: event) ?? [])
        case .exchange(let exchange): exchange
        }
    }
}
