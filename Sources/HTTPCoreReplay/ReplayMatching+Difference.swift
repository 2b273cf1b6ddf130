import Foundation
import HTTPCore
import HTTPCoreText

/// A request as a replaying transport compares it: redacted as the recorded ones were.
struct ReplayedRequest {
    var method: String
    var url: String
    var headers: HTTPHeaders
    var body: Data?
    var contentType: String?
}

/// Why a recorded exchange does not answer a request: the first difference, in words, and how
/// far it is (the closest entry is the one with the least).
struct ReplayDifference: Comparable {
    var distance: Int
    var reason: String

    static func < (lhs: ReplayDifference, rhs: ReplayDifference) -> Bool { lhs.distance < rhs.distance }
    static func == (lhs: ReplayDifference, rhs: ReplayDifference) -> Bool { lhs.distance == rhs.distance }
}

extension ReplayMatching {
    /// What keeps `recorded` from answering `request`, or `nil` when it answers it.
    func difference(between request: ReplayedRequest, and recorded: RecordedExchange.Request) -> ReplayDifference? {
        var differences: [ReplayDifference] = []
        if request.method.uppercased() != recorded.method.uppercased() {
            differences.append(ReplayDifference(distance: 1000, reason: "its method is \(recorded.method), this request's is \(request.method)"))
        }
        differences += urlDifferences(URLComponents(string: request.url), URLComponents(string: recorded.url), request.url, recorded.url)
        differences += headerDifferences(request.headers, recorded.headers)
        if let body = bodyDifference(request, recorded) { differences.append(body) }
        guard let first = differences.first else { return nil }
        return ReplayDifference(distance: differences.reduce(0) { $0 + $1.distance }, reason: first.reason)
    }

    private func urlDifferences(_ live: URLComponents?, _ recorded: URLComponents?, _ liveText: String, _ recordedText: String) -> [ReplayDifference] {
        guard let live, let recorded else {
            return liveText == recordedText ? [] : [ReplayDifference(distance: 500, reason: "its URL is \(recordedText), this request's is \(liveText)")]
        }
        var differences: [ReplayDifference] = []
        let origin = { (url: URLComponents) in "\(url.scheme?.lowercased() ?? "")://\(url.host?.lowercased() ?? "")\(url.port.map { ":\($0)" } ?? "")" }
        if origin(live) != origin(recorded) {
            differences.append(ReplayDifference(distance: 500, reason: "its origin is \(origin(recorded)), this request's is \(origin(live))"))
        }
        if live.percentEncodedPath != recorded.percentEncodedPath {
            differences.append(ReplayDifference(
                distance: 200, reason: "its path is \(recorded.percentEncodedPath), this request's is \(live.percentEncodedPath)"
            ))
        }
        let items = { (url: URLComponents) in
            (url.queryItems ?? []).filter { !self.ignoredQueryItems.contains($0.name) }.map { ($0.name, $0.value ?? "") }
        }
        let liveItems = items(live)
        var recordedItems = items(recorded)
        for (name, value) in liveItems {
            if let index = recordedItems.firstIndex(where: { $0.0 == name && $0.1 == value }) {
                recordedItems.remove(at: index)
            } else if let other = recordedItems.first(where: { $0.0 == name }) {
                differences.append(ReplayDifference(distance: 10, reason: "its query item \(name) is \(other.1), this request's is \(value)"))
                recordedItems.removeAll { $0.0 == name && $0.1 == other.1 }
            } else {
                differences.append(ReplayDifference(distance: 10, reason: "it has no query item \(name), this request has \(name)=\(value)"))
            }
        }
        for (name, value) in recordedItems where !liveItems.contains(where: { $0.0 == name }) {
            differences.append(ReplayDifference(distance: 10, reason: "it has the query item \(name)=\(value), this request has none"))
        }
        return differences
    }

    private func headerDifferences(_ live: HTTPHeaders, _ recorded: HTTPHeaders) -> [ReplayDifference] {
        let names: Set<String>
        switch headers {
        case .ignored: return []
        case .named(let named): names = Set(named.map { $0.lowercased() })
        case .all(let excepted):
            let left = Set(excepted.map { $0.lowercased() }).union(Self.volatileHeaders)
            names = Set((live.map(\.name) + recorded.map(\.name)).map { $0.lowercased() }).subtracting(left)
        }
        return names.sorted().compactMap { name in
            let liveValues = live.values(for: name)
            let recordedValues = recorded.values(for: name)
            guard liveValues != recordedValues else { return nil }
            let shown = { (values: [String]) in values.isEmpty ? "absent" : values.joined(separator: ", ") }
            return ReplayDifference(distance: 5, reason: "its header \(name) is \(shown(recordedValues)), this request's is \(shown(liveValues))")
        }
    }

    private func bodyDifference(_ request: ReplayedRequest, _ recorded: RecordedExchange.Request) -> ReplayDifference? {
        let live = request.body ?? Data()
        let kept = recorded.body ?? Data()
        switch body {
        case .ignored:
            return nil
        case .exact:
            return live == kept ? nil : ReplayDifference(distance: 5, reason: "its body differs (\(kept.count) bytes there, \(live.count) here)")
        case .json(let ignored):
            guard let liveJSON = try? JSONValue.parse(live), let keptJSON = try? JSONValue.parse(kept) else {
                return live == kept ? nil : ReplayDifference(distance: 5, reason: "its body differs (\(kept.count) bytes there, \(live.count) here)")
            }
            return Self.jsonDifference(liveJSON, keptJSON, path: "", ignoring: ignored).map { ReplayDifference(distance: 5, reason: "its body differs at \($0)") }
        }
    }

    /// Where two JSON values first differ, members in any order, `ignored` members left out.
    private static func jsonDifference(_ live: JSONValue, _ recorded: JSONValue, path: String, ignoring ignored: Set<String>) -> String? {
        let place = path.isEmpty ? "the top" : "member \(path)"
        switch (live, recorded) {
        case (.object(let liveMembers), .object(let recordedMembers)):
            let liveKeys = Set(liveMembers.map(\.key)).subtracting(ignored)
            let recordedKeys = Set(recordedMembers.map(\.key)).subtracting(ignored)
            for key in liveKeys.union(recordedKeys).sorted() {
                let member = path.isEmpty ? key : "\(path).\(key)"
                guard let liveValue = live[key] else { return "member \(member): there, not here" }
                guard let recordedValue = recorded[key] else { return "member \(member): here, not there" }
                if let difference = jsonDifference(liveValue, recordedValue, path: member, ignoring: ignored) { return difference }
            }
            return nil
        case (.array(let liveValues), .array(let recordedValues)):
            guard liveValues.count == recordedValues.count else {
                return "\(place): \(recordedValues.count) elements there, \(liveValues.count) here"
            }
            for (index, pair) in zip(liveValues, recordedValues).enumerated() {
                if let difference = jsonDifference(pair.0, pair.1, path: "\(path)[\(index)]", ignoring: ignored) { return difference }
            }
            return nil
        case (.number(let a, _), .number(let b, _)):
            return a == b ? nil : "\(place): \(recorded.serialized) there, \(live.serialized) here"
        default:
            return live == recorded ? nil : "\(place): \(recorded.serialized) there, \(live.serialized) here"
        }
    }
}
