/// Turns buffered items into batches and sends them somewhere: the one part of a delivery
/// that is specific to its destination.
///
/// Implement it for a new destination; a ``DeliveryQueue`` brings the rest (a bounded
/// buffer, batching, workers, retries, offline probing, flush, shutdown and statistics).
/// Send through a transport directly, never through an observed client, so that shipping
/// emits no events.
///
/// ```swift
/// struct LineSender: DeliverySender {
///     let url: URL
///     func makeBatch(_ lines: [String]) -> Data { Data(lines.joined(separator: "\n").utf8) }
///     func send(_ body: Data) async -> DeliveryOutcome {
///         var request = URLRequest(url: url)
///         request.httpMethod = "POST"
///         guard let (_, response) = try? await URLSession.shared.upload(for: request, from: body) else {
///             return .unreachable(reason: "no answer")
///         }
///         let status = (response as? HTTPURLResponse)?.statusCode ?? 0
///         return (200..<300).contains(status) ? .delivered : .rejected(status: status, reason: "")
///     }
/// }
/// ```
///
/// Both methods run on the queue's workers, never on the caller of
/// ``DeliveryQueue/enqueue(_:byteCost:)``. With one send at a time, batches are built one
/// after the other, in the order they are sent, unless the queue builds batches ahead
/// (``DeliveryConfiguration/buildsBatchesAhead``): then a batch may be built while another
/// is built or sent, and now and then built and never sent.
public protocol DeliverySender: Sendable {
    /// What the queue buffers: one log, one entry, one span.
    associatedtype Item: Sendable
    /// What one send carries, built once and kept for the batch's retries.
    associatedtype Batch: Sendable

    /// Builds the batch for `items`. Called once per batch sent: its retries keep it.
    ///
    /// - Parameter items: The items of the batch, oldest first: at least one, at most the
    ///   batching limits.
    /// - Returns: What ``send(_:)`` sends, and sends again on a retry.
    func makeBatch(_ items: [Item]) -> Batch

    /// Sends one batch and classifies the answer. Must return within a bounded time (give
    /// the request a timeout): a worker waits for it.
    ///
    /// - Parameter batch: A batch ``makeBatch(_:)`` built.
    /// - Returns: What the destination's answer means: delivered, rejected for good,
    ///   retryable, or unreachable.
    func send(_ batch: Batch) async -> DeliveryOutcome
}
