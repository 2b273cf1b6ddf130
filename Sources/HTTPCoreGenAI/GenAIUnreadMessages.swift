import Foundation
import HTTPCore

/// The messages of an LLM call's stream, kept unread so that their JSON is parsed when the
/// facts are first asked for (by a sink, on its worker) rather than on the task that reads
/// the body: each message's data back to back in one buffer, with its event type and when it
/// arrived.
///
/// It keeps at most ``budget`` bytes, counted by what it keeps (``retainedByteCount``): each
/// message's data and its entry of ``entryByteCount`` bytes, and each distinct event type's
/// string. A message that would pass the budget is refused
/// (``keep(eventType:data:arrivedAt:)``), and its owner reads what is kept (``forEach(_:)``),
/// empties it and keeps the message then.
///
/// Its two buffers are arrays, which grow by doubling as they fill: the memory they take
/// beyond what is counted is their spare capacity (at most about what they hold) and their
/// allocations' headers. Emptied, they let their memory go.
///
/// What it keeps is its own: each message's data is copied into its buffer, so a message's
/// storage, or a parser buffer it may share, is never kept alive by it.
struct GenAIUnreadMessages: Sendable {
    /// One message kept: where its data ends in ``data``, its event type's index in
    /// ``eventTypes`` (`-1` for none), and when it arrived, in nanoseconds of uptime.
    private struct Entry: Sendable {
        let dataEnd: Int
        let eventType: Int
        let arrivedAt: UInt64
    }

    /// What each message kept costs beyond its data: its entry (24 bytes on 64-bit platforms).
    static let entryByteCount = MemoryLayout<Entry>.stride

    /// The most distinct event types kept at once: providers use a handful.
    private static let maximumEventTypes = 16

    /// The most bytes it keeps, as ``retainedByteCount`` counts them.
    let budget: Int
    private var data: [UInt8] = []
    private var entries: [Entry] = []
    /// The distinct event types of the messages kept, each stored once.
    private var eventTypes: [String] = []
    /// The bytes ``eventTypes`` keeps: each type's `String` and its UTF-8 bytes.
    private var eventTypeByteCount = 0

    /// An empty store of at most `budget` bytes.
    init(budget: Int) {
        self.budget = budget
    }

    /// The messages kept.
    var count: Int { entries.count }

    /// The bytes it keeps, at most ``budget``: the messages' data, ``entryByteCount`` per
    /// message, and for each distinct event type its `String` and its UTF-8 bytes.
    var retainedByteCount: Int {
        data.count + entries.count * Self.entryByteCount + eventTypeByteCount
    }

    /// Keeps a message of `eventType` whose data is `bytes`, which arrived at `uptime`
    /// (nanoseconds); `false`, keeping nothing, when it would pass the budget or bring a
    /// seventeenth event type.
    mutating func keep(eventType: String?, data bytes: Data, arrivedAt uptime: UInt64) -> Bool {
        var typeIndex = -1
        var newType: String?
        if let eventType {
            if let known = eventTypes.lastIndex(of: eventType) {
                typeIndex = known
            } else {
                guard eventTypes.count < Self.maximumEventTypes else { return false }
                typeIndex = eventTypes.count
                newType = eventType
            }
        }
        let typeBytes = newType.map(Self.byteCount(ofEventType:)) ?? 0
        guard retainedByteCount + typeBytes + Self.entryByteCount + bytes.count <= budget else { return false }
        if let newType {
            eventTypes.append(newType)
            eventTypeByteCount += typeBytes
        }
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

    /// Forgets the messages kept and lets their buffers go, keeping the event types known
    /// (still counted) for the next ones; the event types too when there are as many as can
    /// be known, so that a new one fits again.
    mutating func removeAll() {
        data = []
        entries = []
        guard eventTypes.count == Self.maximumEventTypes else { return }
        eventTypes = []
        eventTypeByteCount = 0
    }

    /// The bytes an event type keeps: its `String` and its UTF-8 bytes (counted even when
    /// short enough to be stored inside the `String`).
    private static func byteCount(ofEventType eventType: String) -> Int {
        MemoryLayout<String>.stride + eventType.utf8.count
    }
}
