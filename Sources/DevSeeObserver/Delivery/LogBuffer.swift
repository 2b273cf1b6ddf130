import HTTPCoreDelivery

/// The dev-see logs waiting for delivery: the delivery engine's buffer, holding
/// ``PendingLog``s and each upload's payload kept for its retries.
typealias LogBuffer = DeliveryBuffer

extension DeliveryBuffer.Item {
    /// A log accepted now.
    init(sequence: UInt64, log: PendingLog, byteCost: Int) {
        self.init(sequence: sequence, element: log, byteCost: byteCost, enqueuedAt: 0)
    }
}
