/// How one attempt to send a batch ended, as the sender classifies it.
public enum DeliveryOutcome: Sendable, Hashable {
    /// The destination stored the batch.
    case delivered
}
