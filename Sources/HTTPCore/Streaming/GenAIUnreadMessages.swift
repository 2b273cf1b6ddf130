import Foundation

/// The messages of an LLM call's stream, kept unread so that their JSON is parsed when the
/// facts are first asked for (by a sink, on its worker) rather than on the task that reads
/// the body: each message's data back to back in one buffer, with its event type and when it
/// arrived, in at most ``budget`` bytes of memory.
///
/// What it keeps is its own: each message's data is copied into its buffer, so a message's
/// storage, or a parser buffer it may share, is never kept alive by it. Its buffers grow by
/// doubling but never past the budget, less what the allocator may round an allocation up
/// by; a message that does not fit is refused (``keep(eventType:data:arrivedAt:)``), and
/// its owner reads what is kept (``forEach(_:)``), empties it and keeps the message then.
struct GenAIUnreadMessages: Sendable {
    /// One message kept: where its data ends in ``data``, its event type's index in
    /// ``eventTypes`` (`-1` for none), and when it arrived, in nanoseconds of uptime.
    private struct Entry: Sendable {
        let dataEnd: Int
        let eventType: Int
        let arrivedAt: UInt64
    }

    /// The most distinct event types kept at once: providers use a handful.
    private static let maximumEventTypes = 16
    /// About what one allocation costs beyond its bytes, as ``GenAIExchangeRecord`` counts.
    private static let allocation = 64
    /// What each of the two growing buffers may cost beyond its capacity: its allocation, and
    /// what the allocator may round it up by (to a page, for a large one). Kept out of the
    /// budget, so that what the buffers hold, capacities included, stays under it.
    private static let bufferOverhead = allocation + 4096

    /// The most bytes it keeps alive: buffers, capacities and event types included.
    let budget: Int
    private var data: [UInt8] = []
    private var entries: [Entry] = []
    /// The distinct event types of the messages kept, each stored once; its capacity is
    /// reserved whole with the first.
    private var eventTypes: [String] = []
    /// The bytes the strings of ``eventTypes`` keep alive.
    private var eventTypeByteCount = 0

    /// An empty store of at most `budget` bytes.
    init(budget: Int) {
        self.budget = budget
    }

    /// The messages kept.
    var count: Int { entries.count }

    /// Bytes it keeps alive: its buffers (their capacity and allocation) and its event types.
    var retainedByteCount: Int {
        Self.byteCount(ofBuffer: data) + Self.byteCount(ofBuffer: entries) + Self.byteCount(ofBuffer: eventTypes) + eventTypeByteCount
    }

    /// Keeps a message of `eventType` whose data is `bytes`, which arrived at `uptime`
    /// (nanoseconds); `false`, keeping nothing, when it does not fit the budget.
    mutating func keep(eventType: String?, data bytes: Data, arrivedAt uptime: UInt64) -> Bool {
        guard let typeIndex = index(of: eventType) else { return false }
        let entryBytes = MemoryLayout<Entry>.stride
        // What the two buffers' capacities may take.
        let room = budget - 2 * Self.bufferOverhead - Self.byteCount(ofBuffer: eventTypes) - eventTypeByteCount
        let dataCount = data.count + bytes.count
        guard let entryCapacity = Self.capacity(of: entries.capacity, toHold: entries.count + 1, limit: (room - dataCount) / entryBytes),
              let dataCapacity = Self.capacity(of: data.capacity, toHold: dataCount, limit: room - entryCapacity * entryBytes)
        else { return false }
        if entryCapacity > entries.capacity { entries.reserveCapacity(entryCapacity) }
        if dataCapacity > data.capacity { data.reserveCapacity(dataCapacity) }
        // Through its bytes, so the copy is one memcpy, not a walk of `Data`'s elements.
        bytes.withUnsafeBytes { data.append(contentsOf: $0) }
        entries.append(Entry(dataEnd: data.count, eventType: typeIndex, arrivedAt: uptime))
        return true
    }

    /// Calls `read` with each message kept, in the order they arrived: its event type, its
    /// data (a copy) and when it arrived (uptime nanoseconds).
    func forEach(_ read: (_ eventType: String?, _ data: Data, _ arrivedAt: UInt64) -> Void) {
        var start = 0
        for entry in entries {
            read(entry.eventType < 0 ? nil : eventTypes[entry.eventType], Data(data[start..<entry.dataEnd]), entry.arrivedAt)
            start = entry.dataEnd
        }
    }

    /// Forgets the messages kept, keeping the buffers' capacity and the event types known for
    /// the next ones (a type new then might no longer fit); the event types too when there
    /// are as many as can be known.
    mutating func removeAll() {
        data.removeAll(keepingCapacity: true)
        entries.removeAll(keepingCapacity: true)
        guard eventTypes.count == Self.maximumEventTypes else { return }
        eventTypes.removeAll(keepingCapacity: true)
        eventTypeByteCount = 0
    }

    /// The index of `eventType` in ``eventTypes``, added if new; `-1` for none; `nil` when a
    /// new one does not fit (too many types, or over the budget).
    private mutating func index(of eventType: String?) -> Int? {
        guard let eventType else { return -1 }
        if let known = eventTypes.lastIndex(of: eventType) { return known }
        guard eventTypes.count < Self.maximumEventTypes else { return nil }
        let table = eventTypes.capacity == 0 ? Self.allocation + Self.maximumEventTypes * MemoryLayout<String>.stride : 0
        let string = eventType.utf8.count > 15 ? eventType.utf8.count + Self.allocation : 0
        let buffers = data.capacity + entries.capacity * MemoryLayout<Entry>.stride
        guard buffers + Self.byteCount(ofBuffer: eventTypes) + eventTypeByteCount + table + string <= budget - 2 * Self.bufferOverhead
        else { return nil }
        if eventTypes.capacity == 0 { eventTypes.reserveCapacity(Self.maximumEventTypes) }
        eventTypes.append(eventType)
        eventTypeByteCount += string
        return eventTypes.count - 1
    }

    /// The bytes `buffer` keeps alive: its capacity, and its allocation when it has one.
    private static func byteCount<Element>(ofBuffer buffer: [Element]) -> Int {
        buffer.capacity == 0 ? 0 : allocation + buffer.capacity * MemoryLayout<Element>.stride
    }

    /// The capacity a buffer of `capacity` needs to hold `count` elements: the same when they
    /// fit, else doubled (or `count`, if more), but at most `limit`; `nil` when `count` is
    /// over `limit`.
    private static func capacity(of capacity: Int, toHold count: Int, limit: Int) -> Int? {
        guard count > capacity else { return capacity }
        guard count <= limit else { return nil }
        return min(max(count, 2 * capacity), limit)
    }
}
