import Foundation

extension DeliveryQueue {
    /// A batch taken from the buffer and being sent.
    struct InFlightBatch {
        var items: [DeliveryBuffer.Item]
        let batch: Sender.Batch
        var attempts: Int
        var count: Int { items.count }
    }

    /// What a worker does after a send.
    enum Step {
        case next
        case probe(after: TimeInterval, generation: UInt64)
        case stop
    }
}
