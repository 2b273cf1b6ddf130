import Foundation
import HTTPCore

/// When each attempt in flight started and got its response, from the `started` and
/// `received` events, until the attempt's `retried` or terminal event takes them.
///
/// Bounded: every attempt ends with one of those events, but a dispatcher drops events for a
/// slow observer, so an attempt can stay open forever. Past ``limit`` attempts the older half
/// (by request id, then attempt) is forgotten; their entries then count all of their time as
/// `wait`.
struct AttemptTimestampTable {
    /// One attempt of one request.
    struct Key: Hashable, Comparable {
        let requestID: HTTPRequest.ID
        let attempt: Int

        static func < (lhs: Key, rhs: Key) -> Bool {
            (lhs.requestID, lhs.attempt) < (rhs.requestID, rhs.attempt)
        }
    }

    /// What is known of an attempt's timing.
    struct Marks: Hashable {
        var startedAt: Date
        var responseAt: Date?
    }

    /// The most attempts kept open at once.
    let limit: Int
    private var marks: [Key: Marks] = [:]

    init(limit: Int) {
        self.limit = max(2, limit)
    }

    /// How many attempts are open.
    var count: Int { marks.count }

    /// Records an attempt's start.
    mutating func recordStart(of key: Key, at date: Date) {
        marks[key] = Marks(startedAt: date)
        guard marks.count > limit else { return }
        // Sorting half the table away every `limit / 2` inserts costs O(log n) per insert.
        for stale in marks.keys.sorted().prefix(marks.count - limit / 2) {
            marks[stale] = nil
        }
    }

    /// Records an attempt's response; ignored for an attempt whose start is unknown.
    mutating func recordResponse(of key: Key, at date: Date) {
        marks[key]?.responseAt = date
    }

    /// What is known of an attempt that ended, removed from the table.
    mutating func removeMarks(of key: Key) -> Marks? {
        marks.removeValue(forKey: key)
    }
}
