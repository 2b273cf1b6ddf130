import HTTPCore
import HTTPCoreObservation

extension GenAIExchange: HTTPExchangeAttachment, RetainedBytesCounting {
    /// The bytes its strings and arrays keep alive: a model name or a stop sequence is as long
    /// as the body it was read from.
    package var retainedByteCount: Int { GenAIExchangeRecord.retainedByteCount(of: self) }

    /// The note sinks show: named `genAI`, with the call at a glance as its summary
    /// (`gpt-4o-mini-2024-07-18 · 25 in, 15 out tokens · first chunk 625 ms · stop`), the
    /// ``attributes``, and a failure when the call reported an ``errorType``.
    ///
    /// Each fact that is text from the wire (the models, stop sequences, response id, finish
    /// reasons, error code) is masked as the body value it was read from would be by
    /// `redactor`; numbers and the provider's, operation's and server's names are kept.
    ///
    /// - Parameter redactor: The redactor applied on top of the client policy's, which masked
    ///   the facts as they were derived; ``/HTTPCoreRedaction/Redactor/none``, what the sinks
    ///   pass, adds nothing.
    /// - Returns: The note.
    public func note(redactedBy redactor: Redactor) -> HTTPExchangeNote {
        let shown = redacted(by: redactor)
        return HTTPExchangeNote(name: "genAI", summary: shown.summary, attributes: shown.attributes, reportsFailure: shown.errorType != nil)
    }
}

extension GenAIExchangeRecord: HTTPExchangeAttachment, RetainedBytesCounting {
    /// The note of the call's facts, derived on the first read (``GenAIExchange/note(redactedBy:)``).
    package func note(redactedBy redactor: Redactor) -> HTTPExchangeNote {
        exchange.note(redactedBy: redactor)
    }
}
