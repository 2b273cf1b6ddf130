import HTTPCoreDelivery

/// Counters of a ``DevSeeLogger``'s deliveries since it was created: the delivery engine's
/// ``/HTTPCoreDelivery/DeliveryStatistics`` of its logs.
///
/// Every counter of ``/HTTPCoreDelivery/DeliveryStatistics`` reads and writes as a property of its own
/// (`statistics.accepted`, `statistics.probes`, `statistics.isBalanced`), counting logs:
/// every accepted log ends in exactly one of `delivered`, `dropped`, `expired`, `rejected` or
/// `failed`, or is still `pending`.
@dynamicMemberLookup
public struct DevSeeDeliveryStatistics: Sendable, Hashable, CustomStringConvertible {
    /// The delivery engine's counters of the logger's logs.
    public var delivery: DeliveryStatistics

    /// Creates statistics of `delivery`'s counters.
    public init(_ delivery: DeliveryStatistics = DeliveryStatistics()) {
        self.delivery = delivery
    }

    /// A counter of ``delivery``, such as `accepted` or `probes`.
    public subscript<Value>(dynamicMember counter: WritableKeyPath<DeliveryStatistics, Value>) -> Value {
        get { delivery[keyPath: counter] }
        set { delivery[keyPath: counter] = newValue }
    }

    /// A computed property of ``delivery``, such as `isBalanced`.
    public subscript<Value>(dynamicMember property: KeyPath<DeliveryStatistics, Value>) -> Value {
        delivery[keyPath: property]
    }

    /// The engine's one-line summary.
    public var description: String { delivery.description }
}
