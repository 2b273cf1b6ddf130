import HTTPCore

/// An entry as a ``HARRecorder`` keeps it: the event of an exchange's end (or a retried
/// attempt's) with the message events of its attempt, made into a ``HARExchange`` only when
/// a document is built; or, for an event keeping large bodies alive, made already.
enum HARRecordedEntry: Sendable {
    case event(HTTPEvent, messages: [HTTPEvent])
    indirect case exchange(HARExchange)

    /// The entry's exchange: made now from the event and its messages (reading, and so
    /// redacting, their policy-exposed views, once per event), or the one made already.
    var exchange: HARExchange {
        switch self {
        case .event(let event, let messages): HARExchange(event: event, messageEvents: messages)
        case .exchange(let exchange): exchange
        }
    }
}
