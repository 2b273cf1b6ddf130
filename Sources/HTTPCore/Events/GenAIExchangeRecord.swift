/// The LLM call a terminal event carries, behind one reference, so the events that carry none
/// (all but a few) stay as small as they were.
final class GenAIExchangeRecord: Sendable {
    let exchange: GenAIExchange

    init(_ exchange: GenAIExchange) {
        self.exchange = exchange
    }

    /// Bytes it keeps alive, roughly: the record and its strings, and the chunk intervals.
    var retainedByteCount: Int {
        1024 + exchange.response.outputChunkIntervals.count * MemoryLayout<Double>.stride
    }
}
