import Foundation

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

/// Start times of requests between their start (`beginRequest`, `markRequestStarted`, or an
/// attempt's `started` event) and their log, bounded: beyond the limit the oldest open start
/// is forgotten, in constant time.
struct RequestStartTable<Key: Hashable> {
    private var startTimes: [Key: Date] = [:]
    private var order: [Key] = []
    private var head = 0
    /// The tokens of marked starts by request identity, earliest first; may hold tokens
    /// already forgotten, which are skipped and pruned.
    private var marks: [RequestIdentity: [Key]] = [:]
    private var markCount = 0

    mutating func insert(_ token: Key, startedAt: Date, identity: RequestIdentity?, limit: Int) {
        let limit = max(1, limit)
        while startTimes.count >= limit, head < order.count {
            startTimes[order[head]] = nil
            head += 1
        }
        startTimes[token] = startedAt
        order.append(token)
        // Completed tokens stay in `order` until here: drop them when they outnumber the rest.
        if order.count - head > 2 * limit + 64 {
            order = order[head...].filter { startTimes[$0] != nil }
            head = 0
        }
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
