/// The items waiting for delivery: first in, first out, bounded by count and by bytes.
///
/// When a new item does not fit, the oldest are dropped until it does; an item larger than
/// the whole byte limit is dropped itself. The byte count is the caller's accounting of what
/// its items keep alive. A slot is emptied as its item leaves, so a dropped item's memory is
/// freed at once, not at the next compaction.
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
    private var storage: [Item?] = []
    private var head = 0
    package private(set) var byteCount = 0

    package init(countLimit: Int, byteLimit: Int) {
        self.countLimit = max(1, countLimit)
        self.byteLimit = max(1, byteLimit)
    }

    package var count: Int { storage.count - head }
    package var isEmpty: Bool { head == storage.count }
    package var first: Item? { isEmpty ? nil : storage[head] }
    package var firstSequence: UInt64? { first?.sequence }

    /// Appends an item and returns how many items were dropped to make room (the item itself
    /// counts when it alone exceeds the byte limit).
    package mutating func append(_ item: Item) -> Int {
        guard item.byteCost <= byteLimit else { return 1 }
        var dropped = 0
        while count >= countLimit || (byteCount + item.byteCost > byteLimit && !isEmpty) {
            removeFirst()
            dropped += 1
        }
        storage.append(item)
        byteCount += item.byteCost
        return dropped
    }

    package mutating func popFirst() -> Item? {
        guard !isEmpty else { return nil }
        let item = storage[head]
        removeFirst()
        return item
    }

    /// Empties the first slot and moves past it, compacting once most slots are empty.
    private mutating func removeFirst() {
        byteCount -= storage[head]?.byteCost ?? 0
        storage[head] = nil
        head += 1
        if head >= 64, head * 2 >= storage.count {
            storage.removeFirst(head)
            head = 0
        }
    }

    /// Puts an item taken with ``popFirst()`` back for a retry, in front of every later item,
    /// so the buffer stays in sequence order when several sends fail at once.
    package mutating func pushFront(_ item: Item) {
        if head > 0, first.map({ $0.sequence > item.sequence }) ?? true {
            head -= 1
            storage[head] = item
        } else {
            let index = storage[head...].firstIndex { $0!.sequence > item.sequence } ?? storage.endIndex
            storage.insert(item, at: index)
        }
        byteCount += item.byteCost
    }

    /// Drops the oldest items until the buffer is within its limits again, as after items
    /// were put back with ``pushFront(_:)``; returns how many.
    package mutating func dropOldestBeyondLimits() -> Int {
        var dropped = 0
        while count > countLimit || byteCount > byteLimit {
            removeFirst()
            dropped += 1
        }
        return dropped
    }

    /// Removes every item whose sequence is at most `sequence`; returns how many.
    package mutating func removeAll(through sequence: UInt64) -> Int {
        var removed = 0
        while let first = firstSequence, first <= sequence {
            removeFirst()
            removed += 1
        }
        return removed
    }
}
