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
    /// A batch already built for the items from this one on: kept for its retries, or built
    /// ahead while the sends in flight took every slot.
    package struct PreparedBatch {
        package let batch: any Sendable
        /// How many items it holds, this one first.
        package let count: Int
        /// The sequence of its last item: an item put back among its items since (a send
        /// that failed) makes it the wrong batch for the items it is taken with.
        package let lastSequence: UInt64
    }

    /// One waiting element with its bookkeeping.
    package struct Item {
        package let sequence: UInt64
        package let element: any Sendable
        package let byteCost: Int
        /// When the item was accepted, in nanoseconds of system uptime.
        package var enqueuedAt: UInt64
        package var attempts = 0
        /// Set on the first item of a batch put back for a retry, or of a batch built ahead.
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

    /// The item at `offset` from the oldest.
    ///
    /// - Precondition: `0 <= offset < count`.
    package subscript(offset: Int) -> Item { items[offset] }

    /// The items an append dropped to make room, handed back rather than freed, so that the
    /// caller releases them (and everything they keep alive) once it has let go of its lock.
    ///
    /// A full buffer drops an item on every append, the oldest, whose memory is long out of
    /// the cache: freeing it under the queue's lock made every other enqueue wait for it.
    /// Holding the first dropped item allocates nothing; only an append that drops several (a
    /// large item making room by bytes) keeps the others in an array.
    package struct Evicted {
        /// The first item dropped; with the buffer full by count, the only one.
        package private(set) var first: Item?
        /// The items dropped after the first.
        package private(set) var others: [Item] = []

        package init() {}

        /// How many items were dropped.
        package var count: Int { first == nil ? 0 : 1 + others.count }

        mutating func add(_ item: Item) {
            if first == nil { first = item } else { others.append(item) }
        }
    }

    /// Appends an item and returns the items dropped to make room (the item itself when it
    /// alone exceeds the byte limit), for the caller to release.
    package mutating func append(_ item: Item) -> Evicted {
        var evicted = Evicted()
        guard item.byteCost <= byteLimit else {
            evicted.add(item)
            return evicted
        }
        while byteCount + item.byteCost > byteLimit, let oldest = popFirst() {
            evicted.add(oldest)
        }
        byteCount += item.byteCost
        if let oldest = items.append(item) {
            byteCount -= oldest.byteCost
            evicted.add(oldest)
        }
        return evicted
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
    package mutating func pushFront(_ item: Item) -> Int {
        insertInOrder(item).dropped
    }

    /// Puts a batch taken with ``popFirst()`` back for a retry, `items` oldest first, and
    /// returns how many items were dropped to stay within the limits, of the batch or of the
    /// buffer.
    ///
    /// The dropped are the oldest, as if the whole batch went back and the oldest were then
    /// dropped: an item of the batch is kept only when every later one is. So the batch's
    /// first item, which carries the batch built for its retries, is kept only with all the
    /// items that batch holds.
    package mutating func putBack(_ items: [Item]) -> Int {
        var dropped = 0
        for index in items.indices.reversed() {
            let (count, isKept) = insertInOrder(items[index])
            dropped += count
            // The older items of the batch would be older still than the one just dropped.
            guard isKept else { return dropped + index }
        }
        return dropped
    }

    /// Inserts `item` before every later item, then drops the oldest beyond the limits;
    /// returns how many were dropped and whether `item` itself is still in the buffer.
    private mutating func insertInOrder(_ item: Item) -> (dropped: Int, isKept: Bool) {
        let offset = items.firstIndex { $0.sequence > item.sequence } ?? items.endIndex
        byteCount += item.byteCost
        var dropped = 0
        var isKept = true
        if let evicted = items.insert(item, at: offset) {
            byteCount -= evicted.byteCost
            dropped += 1
            isKept = evicted.sequence != item.sequence
        }
        while byteCount > byteLimit, let oldest = popFirst() {
            dropped += 1
            if oldest.sequence == item.sequence { isKept = false }
        }
        return (dropped, isKept)
    }

    /// Keeps `prepared`, a batch built from the item with sequence `first` and those after
    /// it, on that item for their send; returns whether it did. It does only when those items
    /// still wait together and unchanged: none dropped, none taken, none put back among them,
    /// none carrying a batch of its own.
    ///
    /// Items leave the buffer only from the front, so the first one still waiting means all
    /// that followed it still do; an item put back among them would push the last out of
    /// place.
    package mutating func keep(_ prepared: PreparedBatch, forItemsFrom first: UInt64) -> Bool {
        guard prepared.count > 0, let offset = items.firstIndex(where: { $0.sequence >= first }), items[offset].sequence == first,
            offset + prepared.count <= items.count, items[offset + prepared.count - 1].sequence == prepared.lastSequence,
            items[offset..<offset + prepared.count].allSatisfy({ $0.prepared == nil })
        else { return false }
        items[offset].prepared = prepared
        return true
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
