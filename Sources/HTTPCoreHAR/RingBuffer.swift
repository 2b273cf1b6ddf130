/// The last `capacity` elements appended, oldest first; appending to a full buffer drops the
/// oldest element in constant time.
struct RingBuffer<Element> {
    /// The most elements kept; at least 1.
    let capacity: Int
    private var storage: [Element] = []
    /// The position of the oldest element once the storage is full.
    private var start = 0

    init(capacity: Int) {
        self.capacity = max(1, capacity)
    }

    /// How many elements are kept.
    var count: Int { storage.count }

    /// The kept elements, oldest first.
    var elements: [Element] {
        Array(storage[start...] + storage[..<start])
    }

    /// Appends an element; returns whether the oldest one was dropped to make room.
    mutating func append(_ element: Element) -> Bool {
        guard storage.count == capacity else {
            storage.append(element)
            return false
        }
        storage[start] = element
        start = (start + 1) % capacity
        return true
    }

    /// Drops every element.
    mutating func removeAll() {
        storage.removeAll()
        start = 0
    }
}

extension RingBuffer: Sendable where Element: Sendable {}
