/// A first-in, first-out queue of at most ``capacity`` elements, kept in a ring: appending
/// and taking the first element cost O(1), and a full queue makes room by evicting its oldest
/// element, which it hands back so that the caller can count it (or keep what it weighs).
///
/// The ring grows by doubling up to ``capacity`` as elements arrive, so a large capacity that
/// is never used costs nothing. An element leaves its slot as it leaves the queue: a popped
/// or evicted element's memory is freed at once.
///
/// As a `RandomAccessCollection` its indices are offsets from the oldest element (0) to the
/// newest (`count - 1`).
///
/// Its code is inlinable so that each module that uses it gets it specialized for its
/// element type rather than run generically. The type itself must be `@usableFromInline` for
/// that: the compiler does not specialize a plain `package` type's inlinable methods in
/// another module (checked with Swift 6.3; without it an event's enqueue costs 50% more).
@usableFromInline
package struct BoundedQueue<Element> {
    /// The most elements kept; 0 keeps none (every append is evicted at once).
    @usableFromInline package let capacity: Int
    /// The ring: the element at offset `i` is in slot `(head + i) % storage.count`.
    @usableFromInline var storage: ContiguousArray<Element?> = []
    /// The slot of the oldest element.
    @usableFromInline var head = 0
    @usableFromInline var elementCount = 0

    /// An empty queue that keeps at most `capacity` elements (a negative capacity keeps none).
    @inlinable
    package init(capacity: Int) {
        self.capacity = Swift.max(0, capacity)
    }

    /// Whether the queue holds ``capacity`` elements, so that the next append evicts one.
    @inlinable
    package var isFull: Bool { elementCount == capacity }

    /// Appends `element` as the newest; when the queue is full, evicts the oldest element and
    /// returns it (with capacity 0, `element` itself). Returns `nil` when nothing was evicted.
    @inlinable
    @discardableResult
    package mutating func append(_ element: Element) -> Element? {
        guard capacity > 0 else { return element }
        if elementCount == capacity {
            let evicted = storage[head].take()
            storage[head] = element
            head = slot(after: head)
            return evicted
        }
        if elementCount == storage.count {
            guard head == 0 else { return appendAfterGrowing(element) }
            // Not wrapped: grow as an array does, without writing `nil` into spare slots.
            if storage.count == storage.capacity {
                storage.reserveCapacity(Swift.min(capacity, Swift.max(4, storage.count * 2)))
            }
            storage.append(element)
            elementCount += 1
            return nil
        }
        storage[slot(at: elementCount)] = element
        elementCount += 1
        return nil
    }

    @inlinable
    mutating func appendAfterGrowing(_ element: Element) -> Element? {
        grow()
        storage[slot(at: elementCount)] = element
        elementCount += 1
        return nil
    }

    /// Inserts `element` at `offset` from the oldest (0 makes it the oldest, ``count`` the
    /// newest); when the queue was full, evicts the oldest element afterwards and returns it,
    /// which is `element` itself when `offset` is 0. O(1) at either end, O(count) between.
    ///
    /// - Precondition: `0 <= offset <= count`.
    @inlinable
    @discardableResult
    package mutating func insert(_ element: Element, at offset: Int) -> Element? {
        precondition(offset >= 0 && offset <= elementCount, "BoundedQueue.insert offset out of range")
        guard offset < elementCount else { return append(element) }
        guard capacity > 0 else { return element }
        if elementCount == capacity, offset == 0 { return element }
        let evicted = elementCount == capacity ? popFirst() : nil
        let target = evicted == nil ? offset : offset - 1
        if elementCount == storage.count { grow() }
        if target == 0 {
            head = head == 0 ? storage.count - 1 : head - 1
        } else {
            // Move the elements from `target` on one slot towards the end.
            var position = elementCount
            while position > target {
                storage[slot(at: position)] = storage[slot(at: position - 1)].take()
                position -= 1
            }
        }
        storage[slot(at: target)] = element
        elementCount += 1
        return evicted
    }

    /// Removes and returns the oldest element; `nil` when the queue is empty.
    @inlinable
    package mutating func popFirst() -> Element? {
        guard elementCount > 0 else { return nil }
        let element = storage[head].take()
        head = slot(after: head)
        elementCount -= 1
        return element
    }

    /// Removes every element and gives the ring's memory back.
    @inlinable
    package mutating func removeAll() {
        storage = []
        head = 0
        elementCount = 0
    }

    /// The slot of the element at `offset` from the oldest.
    @inlinable
    func slot(at offset: Int) -> Int {
        let slot = head + offset
        return slot >= storage.count ? slot - storage.count : slot
    }

    @inlinable
    func slot(after slot: Int) -> Int {
        slot + 1 == storage.count ? 0 : slot + 1
    }

    /// Doubles the ring (at least 4 slots, at most ``capacity``), the oldest element first.
    ///
    /// Moves the elements rather than copying them, as an array's own growth does: the old
    /// slots are left holding `nil`, so the old storage frees nothing twice.
    @inlinable
    mutating func grow() {
        let size = Swift.min(capacity, Swift.max(4, storage.count * 2))
        let (count, head) = (elementCount, head)
        storage = storage.withUnsafeMutableBufferPointer { old in
            ContiguousArray(unsafeUninitializedCapacity: size) { grown, initialized in
                let firstPart = Swift.min(count, old.count - head)
                if firstPart > 0 {
                    grown.baseAddress!.moveInitialize(from: old.baseAddress! + head, count: firstPart)
                    (old.baseAddress! + head).initialize(repeating: nil, count: firstPart)
                }
                if count > firstPart {
                    (grown.baseAddress! + firstPart).moveInitialize(from: old.baseAddress!, count: count - firstPart)
                    old.baseAddress!.initialize(repeating: nil, count: count - firstPart)
                }
                (grown.baseAddress! + count).initialize(repeating: nil, count: size - count)
                initialized = size
            }
        }
        self.head = 0
    }
}

extension BoundedQueue: RandomAccessCollection {
    /// 0, the oldest element's offset.
    @inlinable
    package var startIndex: Int { 0 }

    /// ``count``, one past the newest element's offset.
    @inlinable
    package var endIndex: Int { elementCount }

    /// How many elements the queue holds.
    @inlinable
    package var count: Int { elementCount }

    /// Whether the queue holds no element.
    @inlinable
    package var isEmpty: Bool { elementCount == 0 }

    /// The element at `offset` from the oldest; setting it replaces that element in place.
    ///
    /// - Precondition: `0 <= offset < count`.
    @inlinable
    package subscript(offset: Int) -> Element {
        get {
            precondition(offset >= 0 && offset < elementCount, "BoundedQueue index out of range")
            return storage[slot(at: offset)]!
        }
        set {
            precondition(offset >= 0 && offset < elementCount, "BoundedQueue index out of range")
            storage[slot(at: offset)] = newValue
        }
    }
}

extension BoundedQueue: Sendable where Element: Sendable {}
