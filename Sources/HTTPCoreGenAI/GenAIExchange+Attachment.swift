import HTTPCore

extension GenAIExchange: HTTPExchangeAttachment, RetainedBytesCounting {
    /// The bytes its strings and arrays keep alive: a model name or a stop sequence is as long
    /// as the body it was read from.
    package var retainedByteCount: Int { GenAIExchangeRecord.retainedByteCount(of: self) }

    /// The note sinks show: named `genAI`, with the ``summary``, the ``attributes``, and a
    /// failure when the call reported an ``errorType``; its texts masked by `redactor`
    /// (``redacted(by:)``).
    ///
    /// - Parameter redactor: The sink's redactor.
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
