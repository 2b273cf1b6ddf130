import HTTPCore
import HTTPCoreObservation

extension HTTPEvent {
    /// On the terminal event of an exchange the policy's ``GenAIRecognizer`` took for an LLM
    /// call (`HTTPCorePolicy.default.interpreting(.genAI)`): the call's OpenTelemetry GenAI
    /// facts, derived from the raw exchange (request parameters, response id and model, finish
    /// reasons, token usage, time to first chunk, `error.type`); `nil` on every other event,
    /// for other exchanges, and without the interpreter.
    ///
    /// A call cut short (a failed, cancelled or timed-out stream) carries what arrived until
    /// then, with its ``GenAIExchange/errorType``. It holds no prompt or completion text; its
    /// stop sequences only when the policy captures bodies, redacted.
    ///
    /// A client's event derives the facts on the first read, once for every observer: the
    /// first reader (a sink's worker, usually) pays for parsing a body read whole.
    public var genAI: GenAIExchange? {
        for attachment in attachments {
            if let record = attachment as? GenAIExchangeRecord { return record.exchange }
            if let exchange = attachment as? GenAIExchange { return exchange }
        }
        return nil
    }
}

extension HTTPEvent {
    /// The record behind ``genAI`` on a client's event, whose facts are derived on first read.
    package var genAIRecord: GenAIExchangeRecord? { attachment(GenAIExchangeRecord.self) }
}
