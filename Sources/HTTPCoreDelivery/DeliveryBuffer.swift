import HTTPCoreConcurrency

/// The items waiting for delivery: first in, first out, bounded by count and by bytes.
///
/// When a new item does not fit, the oldest are dropped until it does; an item larger than
/// the whole byte limit is dropped itself. The byte count is the caller's accounting of what
/// its items keep alive. Items are kept in a ``BoundedQueue``, which frees a dropped item's
/// memory at once.
///
/// Elements are stored type-erased: the buffer is concrete code, fully optimized in this
/// module, rather than generic code run unspecialized from every client module.
package struct DeliveryBuffer {
    /// A batch already built for the items from this one on, kept for its retries.
    package struct PreparedBatch {
        package let batch: any Sendable
        package let count: Int
    }

    /// One waiting element with its bookkeeping.
    package struct Item {
        package let sequence: UInt64
        package let element: any Sendable
        package let byteCost: Int
        /// When the item was accepted, in nanoseconds of system uptime.
        package var enqueuedAt: UInt64
        package var attempts = 0
        /// Set on the first item of a batch put back for a retry.
        package var prepared: PreparedBatch?

        package init(sequence: UInt64, element: any Sendable, byteCost: Int, enqueuedAt: UInt64) {
            self.sequence = sequence
            self.element = element
            self.byteCost = byteCost
            self.enqueuedAt = enqueuedAt
        }

        /// Whether the item was accepted more than `maximumAge` nanoseconds before `now`.
        package func hasOutlived(_ maximumAge: UInt64, now: UInt64) -> Bool {
            enqueuedAt <= now && now - enqueuedAt > maximumAge
        }
    }

    package let countLimit: Int
    package let byteLimit: Int
    private var items: BoundedQueue<Item>
    package private(set) var byteCount = 0

    package init(countLimit: Int, byteLimit: Int) {
        self.countLimit = max(1, countLimit)
        self.byteLimit = max(1, byteLimit)
        items = BoundedQueue(capacity: self.countLimit)
    }

    package var count: Int { items.count }
    package var isEmpty: Bool { items.isEmpty }
    package var first: Item? { items.first }
    package var firstSequence: UInt64? { first?.sequence }

    /// Appends an item and returns how many items were dropped to make room (the item itself
    /// counts when it alone exceeds the byte limit).
    package mutating func append(_ item: Item) -> Int {
        guard item.byteCost <= byteLimit else { return 1 }
        var dropped = 0
        while byteCount + item.byteCost > byteLimit, popFirst() != nil {
            dropped += 1
        }
        byteCount += item.byteCost
        if let evicted = items.append(item) {
            byteCount -= evicted.byteCost
            dropped += 1
        }
        return dropped
    }

    package mutating func popFirst() -> Item? {
        guard let item = items.popFirst() else { return nil }
        byteCount -= item.byteCost
        return item
    }

    /// Puts an item taken with ``popFirst()`` back for a retry, in front of every later item,
    /// so the buffer stays in sequence order when several sends fail at once; then drops the
    /// oldest items until the buffer is within its limits again, and returns how many (the
    /// item itself is among them when it is the oldest).
    ///
    /// Putting a batch back last item first drops exactly the items that putting it all back
    /// and then dropping the oldest beyond the limits would: the dropped are always the oldest.
    package mutating func pushFront(_ item: Item) -> Int {
        let offset = items.firstIndex { $0.sequence > item.sequence } ?? items.endIndex
        byteCount += item.byteCost
        var dropped = 0
        if let evicted = items.insert(item, at: offset) {
            byteCount -= evicted.byteCost
            dropped += 1
        }
        while byteCount > byteLimit, popFirst() != nil {
            dropped += 1
        }
        return dropped
    }

    /// Removes every item whose sequence is at most `sequence`; returns how many.
    package mutating func removeAll(through sequence: UInt64) -> Int {
        var removed = 0
        while let first = firstSequence, first <= sequence {
            _ = popFirst()
            removed += 1
        }
        return removed
    }
}
