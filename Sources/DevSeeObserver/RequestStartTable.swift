import Foundation
import HTTPCoreConcurrency

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What makes two requests the same call for ``DevSeeLogger/markRequestStarted(_:at:)``:
/// method, URL and body.
struct RequestIdentity: Hashable {
    let method: String
    let url: String
    let body: Data?

    init(_ request: URLRequest) {
        method = request.httpMethod ?? "GET"
        url = request.url?.absoluteString ?? ""
        body = request.httpBody
    }
}

/// Start times of manual-API requests between their start (`beginRequest`,
/// `markRequestStarted`) and their log, bounded: beyond ``limit`` open starts the oldest is
/// forgotten, in constant time.
struct RequestStartTable<Key: Hashable> {
    /// The most open starts kept; at least 1.
    let limit: Int
    private var startTimes: [Key: Date] = [:]
    /// The tokens in insertion order; may hold tokens already completed, which are skipped.
    /// Room for `limit` open ones and as many completed again (plus some), so that
    /// compacting it costs O(1) per insert.
    private var order: BoundedQueue<Key>
    /// The tokens of marked starts by request identity, earliest first; may hold tokens
    /// already forgotten, which are skipped and pruned.
    private var marks: [RequestIdentity: [Key]] = [:]
    private var markCount = 0

    init(limit: Int) {
        self.limit = max(1, limit)
        order = BoundedQueue(capacity: 2 * self.limit + 64)
    }

    mutating func insert(_ token: Key, startedAt: Date, identity: RequestIdentity?) {
        while startTimes.count >= limit, let oldest = order.popFirst() {
            startTimes[oldest] = nil
        }
        // Completed tokens stay in `order` until here: drop them when it is full.
        if order.isFull {
            var open = BoundedQueue<Key>(capacity: order.capacity)
            for token in order where startTimes[token] != nil { open.append(token) }
            order = open
        }
        startTimes[token] = startedAt
        order.append(token)
        guard let identity else { return }
        marks[identity, default: []].append(token)
        markCount += 1
        if markCount > 2 * limit + 64 { pruneMarks() }
    }

    mutating func remove(_ token: Key) -> Date? {
        startTimes.removeValue(forKey: token)
    }

    /// The earliest open start marked for an identical request, removed.
    mutating func removeEarliest(matching identity: RequestIdentity) -> (token: Key, startedAt: Date)? {
        guard var tokens = marks[identity] else { return nil }
        defer { marks[identity] = tokens.isEmpty ? nil : tokens }
        while !tokens.isEmpty {
            let token = tokens.removeFirst()
            markCount -= 1
            if let startedAt = startTimes.removeValue(forKey: token) { return (token, startedAt) }
        }
        return nil
    }

    /// Drops the marks of forgotten starts.
    private mutating func pruneMarks() {
        marks = marks.compactMapValues { tokens in
            let open = tokens.filter { startTimes[$0] != nil }
            return open.isEmpty ? nil : open
        }
        markCount = marks.values.reduce(0) { $0 + $1.count }
    }
}
