import Foundation
import HTTPCoreDelivery

/// The dev-see logs waiting for delivery: the delivery engine's buffer of pending logs, each
/// upload's payload kept for its retries.
typealias LogBuffer = DeliveryBuffer<PendingLog, Data>

extension DeliveryBuffer.Item where Element == PendingLog {
    /// A log accepted now.
    init(sequence: UInt64, log: PendingLog, byteCost: Int) {
        self.init(sequence: sequence, element: log, byteCost: byteCost, enqueuedAt: 0)
    }
}
