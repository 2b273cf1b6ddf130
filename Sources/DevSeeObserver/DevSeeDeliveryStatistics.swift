import HTTPCoreDelivery

/// Counters of a ``DevSeeLogger``'s deliveries since it was created: the delivery engine's
/// ``/HTTPCoreDelivery/DeliveryStatistics`` of its logs, with the logs an observer never made.
///
/// Every counter of ``/HTTPCoreDelivery/DeliveryStatistics`` reads and writes as a property of its own
/// (`statistics.accepted`, `statistics.probes`, `statistics.isBalanced`), counting logs:
/// every accepted log ends in exactly one of `delivered`, `dropped`, `expired`, `rejected` or
/// `failed`, or is still `pending`. Logs that were never made, because the event dispatcher
/// dropped their events before ``DevSeeObserver`` saw them, were never accepted: they are
/// counted in ``missed``.
@dynamicMemberLookup
public struct DevSeeDeliveryStatistics: Sendable, Hashable, CustomStringConvertible {
    /// The delivery engine's counters of the logger's logs.
    public var delivery: DeliveryStatistics
    /// Logs never made because the event dispatcher dropped their terminal or retried events
    /// while the observer was behind, as counted by ``DevSeeObserver/statistics``; `nil` in a
    /// logger's own ``DevSeeLogger/statistics``, which cannot know what its observers missed.
    public var missed: Int?

    /// Creates statistics of `delivery`'s counters, with `missed` unknown unless given.
    public init(_ delivery: DeliveryStatistics = DeliveryStatistics(), missed: Int? = nil) {
        self.delivery = delivery
        self.missed = missed
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

    /// The engine's one-line summary, with `missed` when it is known.
    public var description: String {
        delivery.description + (missed.map { ", missed \($0)" } ?? "")
    }
}
