import HTTPCore
import HTTPCoreObservation
import HTTPCoreConcurrency

/// The notes of an entry not made yet (``HARRecordedEntry/event(_:messages:byteCount:notes:)``),
/// made when the first document is built and kept for the next ones: making a note derives
/// what its attachment holds (an LLM call's facts, parsed from its bodies) and formats its
/// summary, so it is done once per entry, however many documents are built.
final class HAREntryNotes: Sendable {
    private let made = Locked<[HTTPExchangeNote]?>(nil)

    /// The notes of `event`'s attachments: made on the first call, under this entry's own
    /// lock (a document built at the same time waits for them rather than making them again),
    /// and the same ones on every later call.
    ///
    /// - Parameter event: The entry's event; the same on every call.
    /// - Returns: Its notes, as the policy's redactor left them.
    func notes(of event: HTTPEvent) -> [HTTPExchangeNote] {
        made.withLock { made in
            if let made { return made }
            let notes = event.notes(redactedBy: .none)
            made = notes
            return notes
        }
    }
}
