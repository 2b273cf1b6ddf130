import Foundation

/// The logs waiting for delivery: first in, first out, bounded by count and by bytes.
///
/// When a new log does not fit, the oldest are dropped until it does; a log larger than the
/// whole byte limit is dropped itself. The byte count is the buffer's own accounting of what
/// its logs keep alive (``LogEntry/byteCost`` or an estimate for events not yet read).
struct LogBuffer {
    struct Item {
        let sequence: UInt64
        let log: PendingLog
        let byteCost: Int
        var attempts = 0
        var payload: Data?
    }

    let countLimit: Int
    let byteLimit: Int
    private var storage: [Item] = []
    private var head = 0
    private(set) var byteCount = 0

    init(countLimit: Int, byteLimit: Int) {
        self.countLimit = max(1, countLimit)
        self.byteLimit = max(1, byteLimit)
    }

    var count: Int { storage.count - head }
    var isEmpty: Bool { count == 0 }
    var firstSequence: UInt64? { isEmpty ? nil : storage[head].sequence }

    /// Appends an item and returns how many logs were dropped to make room (the item itself
    /// counts when it alone exceeds the byte limit).
    mutating func append(_ item: Item) -> Int {
        guard item.byteCost <= byteLimit else { return 1 }
        var dropped = 0
        while count >= countLimit || (byteCount + item.byteCost > byteLimit && !isEmpty) {
            _ = popFirst()
            dropped += 1
        }
        storage.append(item)
        byteCount += item.byteCost
        return dropped
    }

    mutating func popFirst() -> Item? {
        guard !isEmpty else { return nil }
        let item = storage[head]
        head += 1
        byteCount -= item.byteCost
        if head >= 64, head * 2 >= storage.count {
            storage.removeFirst(head)
            head = 0
        }
        return item
    }

    /// Puts an item taken with ``popFirst()`` back in front, for a retry.
    mutating func pushFront(_ item: Item) {
        if head > 0 {
            head -= 1
            storage[head] = item
        } else {
            storage.insert(item, at: 0)
        }
        byteCount += item.byteCost
    }

    /// Removes every item whose sequence is at most `sequence`; returns how many.
    mutating func removeAll(through sequence: UInt64) -> Int {
        var removed = 0
        while let first = firstSequence, first <= sequence {
            _ = popFirst()
            removed += 1
        }
        return removed
    }
}
